"""`mathloop check TARGET --candidate FILE.json`: verify one candidate and print its evidence, no commit."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.table import Table
from rich.text import Text

from mathloop.bounded import MAX_CANDIDATE_BYTES, InputError, read_json
from mathloop.cli.common import TARGET_HELP, contract_option, DB_HELP, bounds_json, console, fail, hypotheses_line, open_contract, print_json
from mathloop.domain import Label, Verdict, canonical_json
from mathloop.check.checker import Checker, build_checker
from mathloop.check.outcome import CheckOutcome, WireError, evidence_from_json
from mathloop.check.runner import verify_chain
from mathloop.targets import build_target
from mathloop.targets.base import CertificateError, CheckerCrash, Malformed
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import Repository


def _read_candidate(path: Path, contract=None, as_json: bool = False) -> Any:
    """Return the candidate payload the target's `read_candidate_file` reads from the file (by default its strict
    JSON: size-capped, strict UTF-8, no NaN, no lone surrogate; some targets also read published formats: .npy,
    text, JSON lists), or the strict JSON without a contract. A refused file exits 2; with --json its refusal is
    printed as the other malformed answers are."""
    try:
        if contract is not None:
            return build_target(contract).read_candidate_file(path)
        return read_json(path, MAX_CANDIDATE_BYTES, "--candidate")
    except InputError as e:
        _malformed(str(e), as_json)
    except Malformed as e:
        _malformed(f"--candidate {e}", as_json)


def _malformed(reason: str, as_json: bool) -> NoReturn:
    """Exit 2 with `reason`; with --json, first print the malformed answer (the keys every malformed answer has)."""
    if as_json:
        print_json({"ok": False, "malformed": True, "bounds": {}, "reasons": [reason]})
    fail(reason)


def _run_program(path: Path, contract, seconds: float, as_json: bool) -> tuple[Any, dict]:
    """Return (the payload the program printed, what the run did); exit 2 when it printed no usable candidate."""
    from mathloop.bounded import read_text
    from mathloop.cli.programs import program_runner
    from mathloop.propose.programs import MAX_PROGRAM_CHARS

    try:
        text = read_text(path, 4 * MAX_PROGRAM_CHARS, "--program")
    except InputError as e:
        fail(str(e))
    runner = program_runner(build_target(contract), f"--program {path}", seconds)
    out = runner.outcome(text)
    run = dict(out.record.get("run") or {})
    ran = {"sha256": out.record["sha256"], **{k: run[k] for k in ("seconds", "exit_code", "stopped", "stdout_bytes")
                                              if k in run}}
    if out.malformed is not None:
        if as_json:
            print_json({"ok": False, "malformed": True, "bounds": {}, "reasons": [out.malformed], "program": ran})
        fail(f"--program {path}: {out.malformed}")
    if not as_json:
        console.print(f"program {path} (sha256 {ran['sha256'][:12]}): ran in the sandbox in {ran.get('seconds')} s, "
                      f"{ran.get('stdout_bytes')} bytes of output", highlight=False)
    return out.payload, ran


def _checker(contract) -> Checker:
    """Return the checker `mathloop run` uses: a killable checker child with the contract's timeout, and the gate."""
    return build_checker(contract, build_target(contract))


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
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    candidate: Optional[Path] = typer.Option(None, "--candidate", help="Candidate JSON file (or an exported certificate "
                                             "file)."),
    example: bool = typer.Option(False, "--example", help="Print an example candidate (the contract's seed) as JSON "
                                 "and exit: `check T --example > c.json` gives a file for --candidate."),
    program: Optional[Path] = typer.Option(None, "--program", help="A Python program whose standard output is the "
                                           "candidate; it runs in the sandbox (no network, own directory, limits)."),
    program_time: float = typer.Option(30.0, "--program-time", min=0.5, max=3600.0, help="Wall-clock and CPU seconds "
                                       "of the program run."),
    db: Optional[str] = typer.Option(None, "--db", help="Check against this store's head state. " + DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Exit 0 if the candidate checks (no refutation, every bound certified), 1 if refused, 2 if malformed."""
    contract = open_contract(target, contract_file)
    if example:
        print_json(dict(contract.seed))
        return
    if (candidate is None) == (program is None):
        fail("give exactly one of --candidate FILE and --program FILE.py (or --example, which prints a candidate "
             "to start from)")
    ran = None
    if program is not None:
        payload, ran = _run_program(program, contract, program_time, as_json)
        candidate = program
    else:
        payload = _read_candidate(candidate, contract, as_json)
    envelope = payload if isinstance(payload, dict) and "mathloop_certificate" in payload else None
    if envelope is not None:
        payload = envelope.get("candidate")
    if isinstance(payload, dict) and "files" in payload and candidate.name == "manifest.json":
        return _check_chain(contract, candidate, len(payload["files"]) if isinstance(payload["files"], list) else 0,
                            as_json)
    repo = _repo(db) if db is not None else None
    store_head = repo.head(contract.sha256) if repo is not None else None
    parent, parent_from, confirmed = _parent_state(repo, store_head, contract, envelope)
    head = store_head if envelope is None else None  # a certificate file is not gated against the head
    checker = _checker(contract)
    try:
        limits = checker.limits(repo, store_head.hash) if repo is not None and store_head is not None else ()
        out, decision = checker.judge(parent, payload, head.scores if head else None, limits)
    finally:
        checker.close()
    if out.malformed is not None:
        if as_json:
            print_json({"ok": False, "malformed": True, "bounds": {}, "reasons": [out.malformed]})
        fail(f"{'--program' if ran is not None else '--candidate'} {candidate}: {out.malformed}")
    if out.error is not None:
        if as_json:
            print_json({"ok": False, "error": True, "bounds": {}, "reasons": [out.error]})
        fail(out.error, 1)
    ev = out.evidence
    if confirmed and build_target(contract).rests_on_claimed_parent(ev):
        confirmed, parent_from = False, "taken from the payload itself (unconfirmed)"
    beyond = "; ".join(decision.reasons) if decision.label is Label.ERROR or decision.capped else None
    refuted = [r for r in ev.results if r.verdict in (Verdict.REFUTED, Verdict.ERROR)]
    ok = confirmed and not refuted and beyond is None and all(b.name in ev.bounds for b in contract.bounds)
    reasons = ev.reasons() + ([beyond] if beyond else [])
    if not confirmed:
        reasons.append(f"parent state not confirmed ({parent_from}): the bounds below hold only if it is true")
    would = decision.label.value if head else None
    outcome = _outcome(ok, confirmed, beyond is not None or any(r.verdict is Verdict.REFUTED for r in ev.results),
                       bool(ev.bounds) and not refuted)
    if as_json:
        print_json({
            "ok": ok,
            "outcome": outcome,
            "bounds": bounds_json(contract, ev.bounds) if beyond is None and confirmed else {},
            "bounds_exact": {k: str(v) for k, v in ev.bounds.items()} if beyond is None and confirmed else {},
            "conditional_bounds": {} if confirmed or beyond else bounds_json(contract, ev.bounds),
            "reasons": reasons,
            "parent": parent_from,
            "parent_confirmed": confirmed,
            "label_against_head": would,
            "hypotheses": [{"id": h.id, "citation": h.citation} for h in contract.hypotheses],
            "evidence": ev.to_json(),
            **({"program": ran} if ran is not None else {}),
        })
    else:
        t = Table(title=f"{contract.name}: {candidate}")
        for c in ("obligation", "verdict", "rank", "trust", "reasons"):
            t.add_column(c, overflow="fold")
        for r in ev.results:
            colour = {"PROVED": "green", "REFUTED": "red"}.get(r.verdict.value, "yellow")
            # an obligation undecided while the candidate certifies its bounds is still open (e.g. below the goal)
            word = "open" if r.verdict is Verdict.UNKNOWN and outcome == "certified" else r.verdict.value
            t.add_row(r.id, Text(word, style=colour), str(r.rank), r.trust.value, "; ".join(r.reasons))
        console.print(t)
        if not confirmed:
            console.print(Text.assemble(("conditional", "red"), f": parent state {parent_from}"))
        if not ok and confirmed:  # a refused candidate certifies nothing, whatever bounds its evidence carries
            console.print("certified: nothing (refused" + (f": {beyond}" if beyond else "") + ")")
        else:
            console.print(("certified: " if confirmed else "conditionally certified: ") + (", ".join(f"{k} = {v} (exact {ev.bounds[k]})" for k, v in bounds_json(contract, ev.bounds).items())
                                           if beyond is None else "nothing (" + beyond + ")"), highlight=False)
        console.print(hypotheses_line(contract), highlight=False)
        used = ev.artifacts.get("conditional_on") if isinstance(ev.artifacts, dict) else None
        if isinstance(used, list) and ev.bounds:  # a recursive construction names the hypotheses it used
            console.print(f"this construction uses: {', '.join(map(str, used)) or 'none of them'}", highlight=False)
        if would:
            console.print(f"against the head: {would}")
        colour = {"certified": "green", "refused": "red"}.get(outcome, "yellow")
        console.print(outcome, style=colour)
    if outcome != "certified":
        raise typer.Exit(EXIT_CODES[outcome])


# What `check` answers, in words and exit codes (docs/guide.md); malformed input exits 2 before this.
EXIT_CODES = {"certified": 0, "refused": 1, "conditionally certified": 1, "checked, nothing certified": 3}


def _outcome(ok: bool, confirmed: bool, refused: bool, any_bound: bool) -> str:
    """Return the one word for a check: certified, refused, conditionally certified or checked, nothing certified.

    >>> _outcome(True, True, False, True), _outcome(False, True, True, True), _outcome(False, True, False, False)
    ('certified', 'refused', 'checked, nothing certified')
    """
    if refused:
        return "refused"
    if not confirmed:
        return "conditionally certified"
    return "certified" if ok or any_bound else "checked, nothing certified"


def _check_chain(contract, manifest_path: Path, files: int, as_json: bool) -> None:
    """Re-verify an exported certificate chain from the root, through the target's own verifier, in the
    checker worker (the contract's timeout per file, plus one for the seed)."""
    checker = _checker(contract)
    try:
        out = checker.runner.call(verify_chain, (contract, manifest_path), timeout_s=checker.timeout_s * (files + 1),
                                  contract=contract)
    finally:
        checker.close()
    if isinstance(out.raised, CertificateError):
        _malformed(f"--candidate {out.raised}", as_json)
    if isinstance(out.raised, CheckerCrash):
        fail(f"{contract.path}: seed: {out.raised}", 1)
    if out.raised is not None:
        fail(f"--candidate {manifest_path}: checker crashed: {type(out.raised).__name__}: {out.raised}", 1)
    if out.error is not None:
        fail(f"--candidate {manifest_path}: {out.error}", 1)
    if out.value is None:
        _malformed(f"--candidate {manifest_path}: target {contract.name} has no certificate chains", as_json)
    try:
        evidences = [evidence_from_json(e) for e in out.value["evidences"]]
        reasons, n_files = [str(r) for r in out.value["reasons"]], int(out.value["files"])
    except (WireError, KeyError, TypeError, ValueError) as e:
        fail(f"--candidate {manifest_path}: the checker's answer could not be read: {e}", 1)
    for e in evidences:
        _, decision = checker.settle(CheckOutcome(evidence=e), None)
        if (decision.label is Label.ERROR or decision.capped) and not reasons:
            reasons += decision.reasons
    ev = evidences[-1] if evidences else None
    ok = not reasons and ev is not None
    result = {"ok": ok, "bounds": bounds_json(contract, ev.bounds) if ok else {},
              "bounds_exact": {k: str(v) for k, v in ev.bounds.items()} if ok else {},
              "reasons": reasons, "files": n_files, "parent": "root (whole chain re-verified)",
              "parent_confirmed": True}
    if as_json:
        print_json(result)
    else:
        console.print(f"{manifest_path}: {n_files} certificate(s) re-verified from the root" if ok
                      else Text.assemble(("refused", "red"), f": {'; '.join(reasons)}"))
        if ok:
            console.print("certified: " + ", ".join(f"{k} = {v}" for k, v in result["bounds"].items()))
    if not ok:
        raise typer.Exit(1)
