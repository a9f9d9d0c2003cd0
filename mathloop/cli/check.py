"""`mathloop check TARGET --candidate FILE.json`: verify one candidate and print its evidence, no commit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from mathloop.cli.common import DB_HELP, bounds_json, console, fail, hypotheses_line, open_contract, print_json
from mathloop.domain import Verdict
from mathloop.search.gate import beyond_class_maximum, gate
from mathloop.search.runner import InProcessRunner
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import Repository

MAX_CANDIDATE_BYTES = 50_000_000


def _read_candidate(path: Path) -> Any:
    if not path.is_file():
        fail(f"--candidate {path}: no such file")
    if path.stat().st_size > MAX_CANDIDATE_BYTES:
        fail(f"--candidate {path}: larger than {MAX_CANDIDATE_BYTES} bytes")
    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError) as e:
        fail(f"--candidate {path}: not valid JSON: {e}")


def _no_constants(name: str):
    raise ValueError(f"non-finite number {name}")


def _parent_state(target: str, db: str | None, contract, envelope: dict | None):
    if envelope is not None and "parent_state" in envelope:
        return envelope["parent_state"], "certificate file"
    if db is None:
        return None, "none"
    try:
        head = Repository(make_engine(db, create=False)).head(contract.sha256)
    except StoreError as e:
        fail(str(e))
    return (head.state, f"head {head.hash[:12]}") if head else (None, "none")


def check(
    target: str = typer.Argument(..., help="Target name or contract path."),
    candidate: Path = typer.Option(..., "--candidate", help="Candidate JSON file (or an exported certificate file)."),
    db: Optional[str] = typer.Option(None, "--db", help="Check against this store's head state. " + DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Exit 0 if the candidate checks (no refutation, every bound certified), 1 if refused, 2 if malformed."""
    contract = open_contract(target)
    payload = _read_candidate(candidate)
    envelope = payload if isinstance(payload, dict) and "mathloop_certificate" in payload else None
    if envelope is not None:
        payload = envelope.get("candidate")
    parent, parent_from = _parent_state(target, db, contract, envelope)
    head = None
    if db is not None and envelope is None:
        head = Repository(make_engine(db, create=False)).head(contract.sha256)
    out = InProcessRunner().check(contract, parent, payload)
    if out.malformed is not None:
        if as_json:
            print_json({"ok": False, "malformed": True, "bounds": {}, "reasons": [out.malformed]})
        fail(f"--candidate {candidate}: {out.malformed}")
    if out.error is not None:
        if as_json:
            print_json({"ok": False, "error": True, "bounds": {}, "reasons": [out.error]})
        fail(out.error, 1)
    ev = out.evidence
    beyond = beyond_class_maximum(contract, ev)
    refuted = [r for r in ev.results if r.verdict in (Verdict.REFUTED, Verdict.ERROR)]
    ok = not refuted and beyond is None and all(b.name in ev.bounds for b in contract.bounds)
    reasons = ev.reasons() + ([beyond] if beyond else [])
    would = gate(contract, head.scores if head else None, ev).label.value if head else None
    if as_json:
        print_json({
            "ok": ok,
            "bounds": bounds_json(contract, ev.bounds) if beyond is None else {},
            "bounds_exact": {k: str(v) for k, v in ev.bounds.items()} if beyond is None else {},
            "reasons": reasons,
            "parent": parent_from,
            "label_against_head": would,
            "hypotheses": [{"id": h.id, "citation": h.citation} for h in contract.hypotheses],
            "evidence": ev.to_json(),
        })
    else:
        t = Table(title=f"{contract.name}: {candidate}")
        for c in ("obligation", "verdict", "rank", "trust", "reasons"):
            t.add_column(c, overflow="fold")
        for r in ev.results:
            colour = {"PROVED": "green", "REFUTED": "red"}.get(r.verdict.value, "yellow")
            t.add_row(r.id, f"[{colour}]{r.verdict.value}[/]", str(r.rank), r.trust.value, "; ".join(r.reasons))
        console.print(t)
        console.print("certified: " + (", ".join(f"{k} = {v}" for k, v in bounds_json(contract, ev.bounds).items())
                                       if beyond is None else "nothing (" + beyond + ")"))
        console.print(f"rests on: {hypotheses_line(contract)}", highlight=False)
        if would:
            console.print(f"against the head: {would}")
        console.print("[green]ok[/]" if ok else "[red]refused[/]")
    if not ok:
        raise typer.Exit(1)
