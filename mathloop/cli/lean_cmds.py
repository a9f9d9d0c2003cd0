"""`mathloop doctor` (Lean toolchain state) and `mathloop lean-check TARGET` (re-check pending commits)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from mathloop.cli.common import DB_HELP, console, fail, open_contract, open_repo, print_json
from mathloop.verify.lean import discover
from mathloop.verify.lean_commit import check_commit, doctor_report


def doctor(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """Report the Lean toolchain state, what was tried, and how to install one."""
    rep = doctor_report()
    if as_json:
        print_json(rep)
        return
    if rep["available"]:
        console.print(f"Lean: [green]available[/] ({rep['kind']}: {rep['executable']}) — {rep['version']}")
    else:
        console.print("Lean: [yellow]unavailable[/] — commits stay [yellow]pending[/] until a toolchain exists")
    for t in rep["tried"]:
        console.print(f"  tried: {t}", highlight=False)
    console.print(f"pinned toolchain: {rep['pinned_toolchain']} (project {rep['project']})")
    if not rep["available"]:
        console.print("install (on a machine with internet):")
        for step in rep["install"]:
            console.print(f"  {step}", highlight=False)
    dojo = rep["lean_dojo"]
    console.print("LeanDojo (optional): " + ("available" if dojo["available"] else "missing " + "; ".join(dojo["missing"])),
                  highlight=False)


def lean_check(
    target: str = typer.Argument(..., help="Target name or contract path."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    all_commits: bool = typer.Option(False, "--all", help="Re-check every commit, not only pending/unchecked ones."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Check the rendered Lean of pending commits with a real Lean toolchain and store the result."""
    contract = open_contract(target)
    repo = open_repo(db, create=False)
    tc = discover()
    if not tc.available:
        fail(f"{tc.reason} — commits stay pending (see `mathloop doctor`)", 1)
    statuses = repo.lean_statuses(contract.sha256)
    rows = []
    for c in repo.commits(contract.sha256):
        old = statuses.get(c.hash)
        if not all_commits and old is not None and old.status not in ("pending", "error"):
            continue
        cand = repo.candidate(c.candidate_id)
        st = check_commit(contract, c.hash, cand.evidence, toolchain=tc)
        if st.status != "not-applicable":
            repo.set_lean_status(c.hash, st.status, lean_version=st.lean_version, file_sha256=st.file_sha256,
                                 axioms=st.axioms, messages=st.messages, seconds=st.seconds)
        rows.append({"commit": c.hash, **st.to_json()})
    if as_json:
        print_json(rows)
        return
    table = Table("commit", "Lean status", "seconds", "note")
    for r in rows:
        table.add_row(r["commit"][:16], r["status"], "" if r["seconds"] is None else f"{r['seconds']:.1f}",
                      (r["messages"] or [""])[0][:80])
    console.print(table)
    if any(r["status"] in ("refuted", "error") for r in rows):
        raise typer.Exit(1)
