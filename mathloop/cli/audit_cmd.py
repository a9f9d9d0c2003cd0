"""`mathloop audit TARGET`: re-verify the hash chain and re-run the checkers on every commit."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress

from mathloop.cli.common import TARGET_HELP, contract_option, DB_HELP, console, fail, open_contract, open_repo
from mathloop.search.audit import audit as run_audit
from mathloop.search.runner import ProcessRunner


def audit(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    hash_only: bool = typer.Option(False, "--hash-only", help="Verify hashes and rows only; do not re-run checkers."),
) -> None:
    """Exit 0 when every commit re-verifies; otherwise name the first offending commit and exit 1."""
    contract = open_contract(target, contract_file)
    repo = open_repo(db, create=False)
    runner = None if hash_only else ProcessRunner(float(contract.check_timeout_s))
    try:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("auditing", total=None)
            findings, n = run_audit(contract, repo, runner, lambda i, total: bar.update(task, completed=i, total=total))
    finally:
        if runner:
            runner.close()
    if findings:
        for f in findings:
            console.print(f"[red]commit {f.commit} (seq {f.seq})[/]: {f.problem}", highlight=False)
        fail(f"audit failed: {len(findings)} problem(s); first at commit {findings[0].commit}", 1)
    what = "hashes and rows" if hash_only else "hashes, rows, re-checked evidence and gate"
    console.print(f"audit ok: {n} commit(s) of {contract.name} verified ({what}).")
