"""`mathloop status TARGET`: the head, its certified bounds with their hypotheses, and label counts."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from mathloop.cli.common import (DB_HELP, TARGET_HELP, bounds_json, console, contract_line, contract_option,
                                 hypotheses_line, open_contract, open_repo, print_json)
from mathloop.lean import attest
from mathloop.check.bracket import bracket
from mathloop.view.bracket_history import bracket_history
from mathloop.check.gate import open_obligations
from mathloop.store.rechecks import failed_rechecks
from mathloop.view.counts import COMMITS_MEANING, explain_labels, lineage_counts

HISTORY_ROWS = 8  # the last moves of a bracket that `status` prints (--json has them all)


def status(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Show the head of the target's lineage, its certified bounds and the memory's label counts."""
    contract = open_contract(target, contract_file)
    repo = open_repo(db, readonly=True)
    head = repo.head(contract.sha256)
    counts = lineage_counts(repo.engine, contract.sha256)  # the same numbers as run's summary and the web index
    labels = counts.labels
    lean = attest.statuses(repo.engine, contract.sha256, [head.hash] if head else [])
    hyps = [{"id": h.id, "title": h.title, "citation": h.citation, "statement": h.statement}
            for h in contract.hypotheses]
    older = [c.sha256 for c in repo.lineages(contract.name) if c.sha256 != contract.sha256]
    br = bracket(repo, contract)
    failed = failed_rechecks(repo.engine, contract.sha256)
    steps = bracket_history(repo, contract) if br is not None else ()
    if as_json:
        print_json({
            "target": contract.name,
            "implementation": contract.target,
            "contract_sha256": contract.sha256,
            "contract_source": contract.source,
            "contract_path": str(contract.path),
            "head": None if head is None else {
                "commit": head.hash,
                "seq": head.seq,
                "created_at": head.created_at,
                "bounds": bounds_json(contract, head.bounds),
                "bounds_exact": {k: str(v) for k, v in head.bounds.items()},
                "state": head.state,
                "open_obligations": list(open_obligations(head.ranks)),
                "lean": lean[head.hash],
            },
            "commits": counts.commits,
            "labels": labels,
            "hypotheses": hyps,
            "class_maxima": [{"bound": b.name, "value": str(b.class_maximum), "theorem": b.class_maximum_is_theorem,
                              "text": b.class_maximum_text()} for b in contract.bounds if b.class_maximum is not None],
            "other_lineages": older,
            **({"bracket": br.to_json(), "bracket_history": [b.to_json() for b in steps]} if br is not None else {}),
            "failed_rechecks": [f.to_json() for f in failed],  # commits a quarantine re-check contradicts
        })
        return
    console.print(Text.assemble((contract.name, "bold"), f" — {contract.title}"), highlight=False)
    console.print(f"{contract_line(contract)}, implementation {contract.target}"
                  + (f"; {len(older)} older contract version(s) kept as separate lineages" if older else ""),
                  highlight=False)
    if head is None:
        console.print("no commits yet: run `mathloop run " + contract.name + "`", highlight=False)
        return
    for f in failed:
        console.print(Text.assemble(("failed re-check", "red"), f": commit {f.commit} (memory row {f.candidate_id}), "
                                    f"answered by quarantined worker {f.worker}: {f.reason}"), highlight=False)
    t = Table(show_header=True)
    t.add_column("bound")
    t.add_column("certified", justify="right")
    for name, value in bounds_json(contract, head.bounds).items():
        t.add_row(name, value)
    console.print(t)
    console.print(hypotheses_line(contract), highlight=False)
    if br is not None:
        console.print(f"bracket of the class's best value (ASSUMING RH): {br.text()}", highlight=False)
        if steps:
            shown = steps[-HISTORY_ROWS:]
            console.print(f"bracket history (every lineage of the pair in this store; last {len(shown)} of "
                          f"{len(steps)} moves):", highlight=False)
            for step in shown:
                console.print("  " + step.text(), highlight=False)
    console.print(f"head {head.hash} (seq {head.seq}, {head.created_at})" + f", Lean: {lean[head.hash]['status']}")
    console.print("open obligations: " + (", ".join(open_obligations(head.ranks)) or "none"))
    for h in contract.hypotheses:
        console.print(Text.assemble(("hypothesis", "yellow"), f" {h.id}: {h.title} — {h.citation}"), highlight=False)
    for b in contract.bounds:
        if b.class_maximum is not None:
            console.print(f"{b.name}: {b.class_maximum_text()}", highlight=False)
    console.print(counts.line(), highlight=False)
    console.print(f"  {COMMITS_MEANING}; labels: every candidate recorded — {explain_labels(labels)}",
                  highlight=False)
    insecure = _insecure_sessions(repo, contract.sha256)
    if insecure:
        console.print(f"executor: insecure (plain tcp off this host) in session(s) {', '.join(map(str, insecure))}; "
                      "their head-moving answers were re-checked in the session before commit", highlight=False)


def _insecure_sessions(repo, contract_sha: str) -> list[int]:
    """Return the ids of the lineage's sessions run with `--insecure-executor` (stored in their options)."""
    import json

    from sqlmodel import Session, select

    from mathloop.store.models import SessionRow

    with Session(repo.engine) as s:
        rows = s.exec(select(SessionRow.id, SessionRow.options).where(SessionRow.contract_sha == contract_sha)).all()
    out = []
    for sid, options in rows:
        try:
            if json.loads(options).get("insecure_executor"):
                out.append(sid)
        except (ValueError, AttributeError):
            continue  # an unreadable options column is the audit's finding, not status's
    return out
