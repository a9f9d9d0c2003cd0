"""The `mathloop` command: the one place that composes concrete stores, targets, proposers and runners."""

from __future__ import annotations

import typer

from mathloop.cli.audit_cmd import audit
from mathloop.cli.bench import bench
from mathloop.cli.check import check
from mathloop.cli.checkpoint import checkpoint
from mathloop.cli.export_cmd import export
from mathloop.cli.graph import graph
from mathloop.cli.lean_cmds import doctor, lean_check
from mathloop.cli.log import log
from mathloop.cli.plot import plot
from mathloop.cli.run import run
from mathloop.cli.serve import serve
from mathloop.cli.status import status
from mathloop.cli.targets_cmd import targets

# Locals stay hidden in tracebacks: the process may hold an API key.
app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False,
                  help="mathloop: models propose, deterministic checkers decide, only checked progress is committed.")
app.command()(targets)
app.command()(run)
app.command()(status)
app.command()(log)
app.command()(graph)
app.command()(plot)
app.command()(serve)
app.command()(check)
app.command()(export)
app.command()(audit)
app.command()(bench)
app.command("lean-check")(lean_check)
app.command()(doctor)
app.command()(checkpoint)


def main() -> None:
    app()
