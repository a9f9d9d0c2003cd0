"""`mathloop log TARGET`: the commit chain with certified bounds and Lean status."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from mathloop.cli.common import (DB_HELP, TARGET_HELP, bounds_json, console, contract_line, contract_option,
                                 hypotheses_line, open_contract, open_repo, print_json)
from mathloop.lean import attest


def log(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the newest N commits."),
) -> None:
    """List the commits of the target's lineage, root first, each with its certified bounds."""
    contract = open_contract(target, contract_file)
    repo = open_repo(db, readonly=True)
    commits = repo.commits(contract.sha256)
    if limit:
        commits = commits[-limit:]
    lean = attest.statuses(repo.engine, contract.sha256, [c.hash for c in commits])
    if as_json:
        out = []
        for c in commits:
            d = c.to_json()
            d["bounds"] = bounds_json(contract, c.bounds)
            d["bounds_exact"] = {k: str(v) for k, v in c.bounds.items()}
            d["lean"] = lean[c.hash]
            out.append(d)
        print_json(out)
        return
    t = Table(title=f"{contract.name} ({contract_line(contract)}): {len(commits)} commit(s)")
    for col in ("seq", "commit", "parent", "created", "label", "bounds", "lean"):
        t.add_column(col, overflow="fold")
    for c in commits:
        t.add_row(str(c.seq), c.hash[:12], "-" if c.seq == 0 else c.parent[:12], c.created_at[:19], c.label,
                  ", ".join(f"{k} {v}" for k, v in bounds_json(contract, c.bounds).items()),
                  lean[c.hash]["status"])
    console.print(t)
    if contract.hypotheses:  # every bound above rests on these: a conditional result names them
        console.print("every bound rests on (taken as given): " + hypotheses_line(contract), highlight=False)
