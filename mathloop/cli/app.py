"""The `mathloop` command: every subcommand parses its options, calls the library and prints (a search session is
assembled in one place, `mathloop.search.opening.open_session`).

Every subcommand is registered lazily: its module (and whatever heavy library it needs — openai, sqlmodel,
numpy, flint, scipy, matplotlib, mpmath, sympy, networkx) is imported only when that subcommand runs or
shows its own `--help`. `mathloop --help` lists them from the table below without importing any.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer import _click
from typer.core import TyperCommand, TyperGroup

# name -> (module, function, one-line summary shown by `mathloop --help`, kept under 80 columns).
# `mathloop NAME --help` shows the command's own docstring.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "targets": ("mathloop.cli.targets_cmd", "targets", "List the installed targets and their contracts (hash prefix)."),
    "run": ("mathloop.cli.run", "run", "Run a search session: propose, check, gate, commit only strict progress."),
    "status": ("mathloop.cli.status", "status", "Show the head, its certified bounds, hypotheses and label counts."),
    "log": ("mathloop.cli.log", "log", "List the commit chain, root first, with certified bounds and Lean status."),
    "graph": ("mathloop.cli.graph", "graph", "Show every obligation at the head (DOT, HTML, SVG or PNG)."),
    "plot": ("mathloop.cli.plot", "plot", "Plot certified bounds against commit and wall time (plot extra)."),
    "serve": ("mathloop.cli.serve", "serve", "Serve a read-only web view of a store (web extra)."),
    "check": ("mathloop.cli.check", "check", "Check one candidate file against the head; nothing is committed."),
    "records": ("mathloop.cli.records_cmd", "records", "Show the certified leaderboard of the table's constants."),
    "export": ("mathloop.cli.export_cmd", "export", "Export records, a dataset, certificates or Lean files from a store."),
    "audit": ("mathloop.cli.audit_cmd", "audit", "Re-verify the hash chain and re-run every commit's checks."),
    "bench": ("mathloop.cli.bench", "bench", "Compare proposers under one frozen, hashed protocol."),
    "lean-check": ("mathloop.cli.lean_cmds", "lean_check", "Check pending commits, a file or an export with a real Lean kernel."),
    "doctor": ("mathloop.cli.lean_cmds", "doctor", "Report which Lean mathloop uses here and what was tried."),
    "checkpoint": ("mathloop.cli.checkpoint", "checkpoint", "Record the chain's tip; a later audit fails if it was rolled back."),
}


def build_command(name: str) -> _click.Command:
    """Import the module of subcommand `name` and return its click command, every help text markup-escaped."""
    module, attr, _summary = COMMANDS[name]
    function = getattr(importlib.import_module(module), attr)
    single = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False, rich_markup_mode=None)
    single.command(name)(function)
    command = typer.main.get_command(single)
    command.name = name
    return command


class LazyGroup(TyperGroup):
    """A typer group whose subcommands are imported only when one of them is invoked."""

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return [*COMMANDS, *(n for n in self.commands if n not in COMMANDS)]

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in COMMANDS:
            return None
        # Listing the commands (`mathloop --help`) needs only the summary: a placeholder, no import.
        return TyperCommand(cmd_name, help=COMMANDS[cmd_name][2], short_help=COMMANDS[cmd_name][2],
                            rich_markup_mode=None)

    def resolve_command(self, ctx: _click.Context, args: list[str]) -> tuple[str | None, _click.Command | None,
                                                                               list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if name in COMMANDS and name not in self.commands:
            command = self.commands[name] = build_command(name)
        return name, command, rest


# Locals stay hidden in tracebacks: the process may hold an API key.
# Help is click's plain text (rich_markup_mode=None): wrapped to the terminal, never a flag name cut to fit a
# box at 80 columns, and `[rewards]` or `'mathloop[ml]'` printed as written (no markup to escape).
app = typer.Typer(cls=LazyGroup, no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False,
                  rich_markup_mode=None, help="mathloop: models propose, deterministic checkers decide, only checked progress is committed.")


@app.callback()
def _root() -> None:
    """The group itself takes no options; every subcommand is resolved lazily by LazyGroup."""


def main(*args: Any) -> None:
    """Run the `mathloop` command line."""
    app()
