"""`mathloop check TARGET --candidate FILE.json`: verify one candidate and print its evidence, no commit."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from mathloop.bounded import MAX_CANDIDATE_BYTES, InputError, decode_utf8, parse_json, read_bytes
from mathloop.cli.common import DB_HELP, bounds_json, console, fail, hypotheses_line, open_contract, print_json
from mathloop.domain import Verdict, canonical_json
from mathloop.search.gate import beyond_class_maximum, gate
from mathloop.search.runner import ProcessRunner
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import Repository

DEFAULT_CHECK_TIMEOUT_S = 120  # as `mathloop run`: the contract's limits.check_timeout_s, else this


def _read_candidate(path: Path, cap: int = MAX_CANDIDATE_BYTES) -> Any:
    """Return the strict JSON of a candidate file (size-capped, strict UTF-8, no NaN, no lone surrogate)."""
    return _parse(path, _read(path, cap))


def _read(path: Path, cap: int) -> bytes:
    try:
        return read_bytes(path, cap, "--candidate")
    except InputError as e:
        fail(str(e))


def _parse(path: Path, data: bytes) -> Any:
    try:
        return parse_json(decode_utf8(data, f"--candidate {path}"), f"--candidate {path}")
    except InputError as e:
        fail(str(e))


def _runner(contract) -> ProcessRunner:
    """Return the runner `mathloop run` uses: a killable worker process with the contract's timeout."""
    return ProcessRunner(float(contract.limits.get("check_timeout_s", DEFAULT_CHECK_TIMEOUT_S)))


def _parent_state(repo: Repository | None, head, contract, envelope: dict | None):
    """Return (parent state, where it came from, confirmed).

    A certificate file's own parent_state is a claim, not a fact: it is confirmed only when it
    is the root (None) or equals the state of a commit in the given store.
    """
    if envelope is not None and "parent_state" in envelope:
        parent = envelope["parent_state"]
        if parent is None:
            return None, "root", True
        if repo is None:
            return parent, "certificate file (unconfirmed: pass --db, or check the export's manifest.json)", False
        wanted = canonical_json(parent)
        for c in repo.commits(contract.sha256):
            if canonical_json(c.state) == wanted:
                return parent, f"commit {c.hash[:12]}", True
        return parent, "certificate file (its parent state is not a commit of this store)", False
    return (head.state, f"head {head.hash[:12]}", True) if head else (None, "none", True)


def _repo(db: str) -> Repository:
    try:
        return Repository(make_engine(db, create=False))
    except StoreError as e:
        fail(str(e))


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
    if isinstance(payload, dict) and "files" in payload and candidate.name == "manifest.json":
        return _check_chain(contract, candidate, payload, as_json)
    repo = _repo(db) if db is not None else None
    store_head = repo.head(contract.sha256) if repo is not None else None
    parent, parent_from, confirmed = _parent_state(repo, store_head, contract, envelope)
    head = store_head if envelope is None else None  # a certificate file is not gated against the head
    runner = _runner(contract)
    try:
        out = runner.check(contract, parent, payload)
    finally:
        runner.close()
    if out.malformed is not None:
        if as_json:
            print_json({"ok": False, "malformed": True, "bounds": {}, "reasons": [out.malformed]})
        fail(f"--candidate {candidate}: {out.malformed}")
    if out.error is not None:
        if as_json:
            print_json({"ok": False, "error": True, "bounds": {}, "reasons": [out.error]})
        fail(out.error, 1)
    ev = out.evidence
    if confirmed and isinstance(ev.state, dict) and ev.state.get("conditional_on_parent"):
        confirmed, parent_from = False, "taken from the payload itself (unconfirmed)"
    beyond = beyond_class_maximum(contract, ev)
    refuted = [r for r in ev.results if r.verdict in (Verdict.REFUTED, Verdict.ERROR)]
    ok = confirmed and not refuted and beyond is None and all(b.name in ev.bounds for b in contract.bounds)
    reasons = ev.reasons() + ([beyond] if beyond else [])
    if not confirmed:
        reasons.append(f"parent state not confirmed ({parent_from}): the bounds below hold only if it is true")
    would = gate(contract, head.scores if head else None, ev).label.value if head else None
    if as_json:
        print_json({
            "ok": ok,
            "bounds": bounds_json(contract, ev.bounds) if beyond is None and confirmed else {},
            "bounds_exact": {k: str(v) for k, v in ev.bounds.items()} if beyond is None and confirmed else {},
            "conditional_bounds": {} if confirmed or beyond else bounds_json(contract, ev.bounds),
            "reasons": reasons,
            "parent": parent_from,
            "parent_confirmed": confirmed,
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
        if not confirmed:
            console.print(f"[red]conditional[/]: parent state {parent_from}")
        if not ok and confirmed:  # a refused candidate certifies nothing, whatever bounds its evidence carries
            console.print("certified: nothing (refused" + (f": {beyond}" if beyond else "") + ")")
        else:
            console.print(("certified: " if confirmed else "conditionally certified: ") + (", ".join(f"{k} = {v}" for k, v in bounds_json(contract, ev.bounds).items())
                                           if beyond is None else "nothing (" + beyond + ")"))
        console.print(f"rests on: {hypotheses_line(contract)}", highlight=False)
        if would:
            console.print(f"against the head: {would}")
        console.print("[green]ok[/]" if ok else "[red]refused[/]")
    if not ok:
        raise typer.Exit(1)


def _check_chain(contract, manifest_path: Path, manifest: dict, as_json: bool) -> None:
    """Re-verify an exported certificate chain from the root: each file's parent must be the state
    the previous file's re-check produced (never the state the file claims)."""
    files = manifest.get("files")
    if not isinstance(files, list) or not files:
        fail(f"--candidate {manifest_path}: manifest has no files")
    for i, entry in enumerate(files):  # every entry well-formed before any check runs
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or not isinstance(entry.get("sha256"), str):
            fail(f"--candidate {manifest_path}: files[{i}]: must be an object with string keys file and sha256")
    runner = _runner(contract)
    try:
        return _check_files(contract, manifest_path, files, runner, as_json)
    finally:
        runner.close()


def _check_files(contract, manifest_path: Path, files: list, runner, as_json: bool) -> None:
    from mathloop.domain import sha256_hex

    reasons, ev = [], None
    root = runner.check(contract, None, dict(contract.seed))  # the chain starts at the contract's seed
    if root.evidence is None:
        fail(f"{contract.path}: seed: {root.malformed or root.error}", 1)
    parent = root.evidence.state
    for i, entry in enumerate(files):
        path = manifest_path.parent / entry["file"]
        if path.parent != manifest_path.parent or not path.is_file():
            fail(f"--candidate {manifest_path}: files[{i}]: {path.name} missing or outside the export")
        data = _read(path, MAX_CANDIDATE_BYTES)  # read once: the bytes hashed are the bytes checked
        if sha256_hex(data) != entry["sha256"]:
            reasons.append(f"{path.name}: sha256 does not match the manifest")
            break
        env = _parse(path, data)
        if not isinstance(env, dict) or "candidate" not in env:
            fail(f"--candidate {path}: not a certificate file")
        if canonical_json(env.get("parent_state")) != canonical_json(parent):
            reasons.append(f"{path.name}: parent_state differs from the state re-verified from the previous file")
            break
        out = runner.check(contract, parent, env["candidate"])
        if out.evidence is None:
            reasons.append(f"{path.name}: {out.malformed or out.error}")
            break
        ev = out.evidence
        bad = [r for r in ev.results if r.verdict in (Verdict.REFUTED, Verdict.ERROR)]
        if bad or beyond_class_maximum(contract, ev):
            reasons += [f"{path.name}: {r}" for r in ev.reasons()] or [f"{path.name}: refused"]
            break
        parent = ev.state
    ok = not reasons and ev is not None
    result = {"ok": ok, "bounds": bounds_json(contract, ev.bounds) if ok else {},
              "bounds_exact": {k: str(v) for k, v in ev.bounds.items()} if ok else {},
              "reasons": reasons, "files": len(files), "parent": "root (whole chain re-verified)",
              "parent_confirmed": True}
    if as_json:
        print_json(result)
    else:
        console.print(f"{manifest_path}: {len(files)} certificate(s) re-verified from the root" if ok
                      else f"[red]refused[/]: {'; '.join(reasons)}")
        if ok:
            console.print("certified: " + ", ".join(f"{k} = {v}" for k, v in result["bounds"].items()))
    if not ok:
        raise typer.Exit(1)
