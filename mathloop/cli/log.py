"""`mathloop log TARGET`: the commit chain with certified bounds and Lean status."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.table import Table

from mathloop.cli.common import (DB_HELP, TARGET_HELP, bounds_json, console, contract_line, contract_option,
                                 hypotheses_line, open_contract, open_repo, print_json)
from mathloop.lean import attest
from mathloop.propose.programs import PROGRAM_KEY


def log(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the newest N commits."),
    programs: bool = typer.Option(False, "--programs", help="Print the program (run in the sandbox) behind each commit."),
) -> None:
    """List the commits of the target's lineage, root first, each with its certified bounds."""
    contract = open_contract(target, contract_file)
    repo = open_repo(db, readonly=True)
    commits = repo.commits(contract.sha256)
    if limit:
        commits = commits[-limit:]
    lean = attest.statuses(repo.engine, contract.sha256, [c.hash for c in commits])
    made_by = {c.hash: _program(repo, c.candidate_id) for c in commits}  # the program behind a commit, if any
    if as_json:
        out = []
        for c in commits:
            d = c.to_json()
            d["bounds"] = bounds_json(contract, c.bounds)
            d["bounds_exact"] = {k: str(v) for k, v in c.bounds.items()}
            d["lean"] = lean[c.hash]
            if made_by[c.hash] is not None:
                d["program"] = made_by[c.hash]
            out.append(d)
        print_json(out)
        return
    console.print(_table(contract, commits, lean, made_by))
    for c in commits if programs else ():
        p = made_by[c.hash]
        if p is not None:
            console.print(f"--- program of commit {c.hash[:12]} (seq {c.seq}), sha256 {p['sha256']}:", highlight=False)
            console.print(p.get("text", ""), highlight=False, soft_wrap=True)
    console.print(hypotheses_line(contract), highlight=False)  # a conditional result names what it rests on


def _table(contract, commits, lean: dict, made_by: dict) -> Table:
    """Return the commit table, whole at any width from 80 columns: hashes, times and values are never split.

    Below 110 columns the parent column is left out (each row's parent is the row above; `--json` has it) and
    times drop their seconds; a bound's name and value may sit on two lines, a value never does. The program
    column (the sha256 prefix of the program whose output the commit was) is there only when a commit has one.
    """
    wide = console.width >= 110
    with_program = any(p is not None for p in made_by.values())
    rows = [(c, [f"{k} {v}" for k, v in bounds_json(contract, c.bounds).items()]) for c in commits]
    longest = max((len(part) for _, bounds in rows for b in bounds for part in b.split(" ")), default=8)
    t = Table(title=f"{contract.name} ({contract_line(contract)}): {len(commits)} commit(s)",
              box=box.SIMPLE_HEAD)
    t.add_column("seq", justify="right", no_wrap=True)
    t.add_column("commit", no_wrap=True)
    if wide:
        t.add_column("parent", no_wrap=True)
    t.add_column("created", no_wrap=True)
    t.add_column("label", no_wrap=True)
    t.add_column("bounds", min_width=longest)
    t.add_column("lean", no_wrap=True)
    if with_program:
        t.add_column("program", no_wrap=True)
    for c, bounds in rows:
        created = c.created_at[:19 if wide else 16].replace("T", " ")
        parent = ["-" if c.seq == 0 else c.parent[:12]] if wide else []
        program = [_program_cell(made_by[c.hash])] if with_program else []
        t.add_row(str(c.seq), c.hash[:12], *parent, created, c.label, "\n".join(bounds),
                  lean[c.hash]["status"], *program)
    return t


def _program(repo, candidate_id: int) -> dict | None:
    """Return {sha256, text, run} of the program whose output a commit's candidate was, or None."""
    c = repo.candidate(candidate_id)
    p = c.meta.get(PROGRAM_KEY) if c is not None else None
    if not isinstance(p, dict) or not isinstance(p.get("sha256"), str):
        return None
    return {"sha256": p["sha256"], "text": p.get("text") if isinstance(p.get("text"), str) else "", "run": p.get("run")}


def _program_cell(p: dict | None) -> str:
    """Return the program column's cell: the program's sha256 prefix, or '-'."""
    return "-" if p is None else p["sha256"][:12]
