"""Review of issue 19's merge (5eb1235), as an attacker: side doors around the one gate, the strict evidence rule,
the quarantine re-check and the loop's own meta keys.

Each hole found is an `xfail(strict=True)` test that states what should hold (it fails today; it turns into an
XPASS, hence a failure, the day the hole is closed, so the marker must then be removed). Each attack that is
refused is a passing test pinning the refusal.

Workers are replaced by `tests/support/raw_reply_executor.py`: the session reads their raw bytes through the real
`check.dask.DaskCheck.result`, so everything from the wire parser to the store is the product's own code.
"""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import pytest

from mathloop.check.checker import Checker
from mathloop.check.gate import decide
from mathloop.check.outcome import outcome_from_bytes
from mathloop.check.rules import declared_open, evidence_problems
from mathloop.check.runner import InProcessRunner, check_payload
from mathloop.domain import Evidence, Label, ObligationResult, Trust, Verdict
from mathloop.propose.base import Proposal, Proposer
from mathloop.audit.report import audit
from mathloop.search.loop import Session, SessionLimits
from mathloop.store.rechecks import LOOP_KEYS, failed_rechecks
from mathloop.targets import build_target, load_contract, registry
from mathloop.targets.base import OpenByDesign
from tests.integration.cli import invoke
from tests.support.open_target import OPEN_CONTRACT, OpenGoalTarget, Sequence
from tests.support.raw_reply_executor import WORKER, RawReplyExecutor, honest

GOOD = {"x": "1/2"}  # the toy target certifies value = 1/2 against the seed's 1/10: honest progress


def _session(contract, repo, executor, proposals, budget=None):
    """Run one session over `proposals` with `executor` (None: the session's own checker only); return the summary."""
    checker = Checker(contract, target=build_target(contract), executor=executor, runner=InProcessRunner())
    repo.ensure_contract(contract)
    sid = repo.start_session(contract.sha256, "scripted", 0, {})
    with checker:
        summary = Session(contract, repo, checker, sid).run(Sequence(list(proposals)),
                                                             SessionLimits(budget or len(proposals), samples=1))
    repo.end_session(sid, summary.outcome)
    return summary


def _rows(repo, contract, payload):
    return [r for r in repo.candidates(contract.sha256) if r.payload == payload]


def _reply_with(edit):
    """Return a worker reply: the honest outcome JSON with `edit(evidence_json)` applied."""
    def reply(contract, parent_state, payload) -> bytes:
        d = json.loads(honest(contract, parent_state, payload))
        edit(d["evidence"])
        return json.dumps(d).encode("utf-8")
    return reply


def _bound(value: str):
    def edit(ev: dict) -> None:
        ev["bounds"]["value"] = value
    return edit


def _timing(value):
    def edit(ev: dict) -> None:
        ev["timings"] = {"check": value}
    return edit


# -- 1. the one strict parser must turn every reply into an outcome, never an exception -------------------------
HOSTILE_NUMBERS = {
    "bound 1/0": _bound("1/0"),
    "bound 0/0": _bound("0/0"),
    "timing 10**400 (an int too large for a float)": _timing(10 ** 400),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_NUMBERS))
def test_a_reply_with_a_zero_denominator_or_an_overflowing_number_is_an_error_outcome(toy_contract, kind):
    blob = _reply_with(HOSTILE_NUMBERS[kind])(toy_contract, None, GOOD)
    out = outcome_from_bytes(blob, "dask worker")
    assert out.evidence is None and "unreadable outcome" in (out.error or "")


@pytest.mark.parametrize("authenticated", [True, False], ids=["tls", "loopback"])
@pytest.mark.parametrize("kind", sorted(HOSTILE_NUMBERS))
def test_a_worker_sending_a_zero_denominator_cannot_end_the_session(toy_contract, repo, kind, authenticated):
    executor = RawReplyExecutor(_reply_with(HOSTILE_NUMBERS[kind]), authenticated=authenticated)
    summary = _session(toy_contract, repo, executor, [GOOD])
    assert summary.outcome in ("budget spent", "proposer exhausted")
    [row] = _rows(repo, toy_contract, GOOD)
    assert row.commit_hash is not None  # the session checked it itself (an unreadable reply is an error: re-checked)


def test_a_worker_reply_in_non_canonical_or_non_finite_numbers_is_an_error_outcome(toy_contract):
    # should-refuse counterparts the parser already holds: nothing but lowest-terms p/q strings, no NaN/Infinity
    for edit in (_bound("2/4"), _bound("-0"), _bound("1e3"), _bound("NaN"), _bound("0.5"), _timing(float("inf"))):
        blob = _reply_with(edit)(toy_contract, None, GOOD)
        out = outcome_from_bytes(blob, "dask worker")
        assert out.evidence is None and out.error, edit


# -- 2. a worker's answer that does not move the head is believed, and the payload is then never checked again ----
def _claims_malformed(contract, parent_state, payload) -> bytes:
    return b'{"malformed":"x: not a rational"}' if payload != dict(contract.seed) else honest(contract, parent_state,
                                                                                              payload)


def _forges_worse(contract, parent_state, payload) -> bytes:
    return _reply_with(_bound("1/20"))(contract, parent_state, payload)


LIES = {"claims malformed": _claims_malformed, "forges a worse bound": _forges_worse}


@pytest.mark.parametrize("authenticated", [True, False], ids=["tls", "loopback"])
@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_worker_cannot_bury_a_good_candidate_by_lying_that_it_is_malformed_or_worse(toy_contract, repo, lie,
                                                                                      authenticated):
    _session(toy_contract, repo, RawReplyExecutor(LIES[lie], authenticated=authenticated), [GOOD])
    _session(toy_contract, repo, None, [GOOD])  # a later honest session proposes it again
    rows = _rows(repo, toy_contract, GOOD)
    assert any(r.commit_hash for r in rows), [(r.label, r.meta, r.reasons) for r in rows]


def test_a_worker_that_lies_about_a_good_candidate_is_caught_and_named(toy_contract, repo):
    # a remote `malformed` is parsed again in the session: the lie is caught, the worker named and quarantined
    _session(toy_contract, repo, RawReplyExecutor(_claims_malformed, authenticated=True), [GOOD])
    [row] = _rows(repo, toy_contract, GOOD)
    assert row.label == Label.CORRECT.value and row.commit_hash
    assert row.meta["checked_by"].startswith("session (re-check") and WORKER in row.meta["checked_by"]
    assert "quarantined" in row.meta["checked_by"]


def test_a_worker_that_forges_a_worse_bound_is_marked_unverified_and_not_a_repeat(toy_contract, repo):
    _session(toy_contract, repo, RawReplyExecutor(_forges_worse, authenticated=True), [GOOD])
    [row] = _rows(repo, toy_contract, GOOD)
    assert row.commit_hash is None and row.meta["unverified_remote"] is True and row.meta["checked_by"].endswith(WORKER)


# -- 3. reading: an edited store must give a finding, never a traceback ---------------------------------------------
def _store(contract, repo):
    _session(contract, repo, None, [GOOD, {"x": "1/3"}])
    return [r for r in repo.candidates(contract.sha256) if r.evidence is not None]


def _edit_bound(repo, candidate_id: int, value: str) -> None:
    """Set the stored evidence's bound `value` of memory row `candidate_id` with SQLite, as an attacker would."""
    import sqlite3

    con = sqlite3.connect(repo.engine.url.database)
    [(text,)] = con.execute("select evidence from candidates where id = ?", (candidate_id,)).fetchall()
    ev = json.loads(text)
    ev["bounds"]["value"] = value
    con.execute("update candidates set evidence = ? where id = ?", (json.dumps(ev), candidate_id))
    con.commit()
    con.close()


def test_audit_names_a_committed_row_edited_to_a_zero_denominator(toy_contract, repo):
    root = _store(toy_contract, repo)[0]
    _edit_bound(repo, root.id, "1/0")
    findings, _ = audit(toy_contract, repo, None)
    assert any(f.table == "candidates" and f.row == root.id for f in findings), findings


def test_audit_names_a_memory_row_edited_to_a_zero_denominator(toy_contract, repo):
    # the counterpart that holds: an uncommitted row's edit is found by its row hash (no decode on that path)
    last = _store(toy_contract, repo)[-1]
    assert last.commit_hash is None
    _edit_bound(repo, last.id, "1/0")
    findings, _ = audit(toy_contract, repo, None)
    assert [(f.table, f.row, f.field) for f in findings] == [("candidates", last.id, "evidence")]


# -- 4. every surface that shows a commit must show that it failed its quarantine re-check --------------------------
@pytest.fixture
def failed_recheck_store(toy_contract, repo):
    """A lineage where a forging worker's commit (3/10 shown as 35/100) was caught by the quarantine re-check."""
    from tests.support.forging_executor import Draws, ForgingExecutor

    checker = Checker(toy_contract, target=build_target(toy_contract), executor=ForgingExecutor(),
                      runner=InProcessRunner(), recheck=0.5, rng=Draws([0.9, 0.9, 0.9, 0.0]))
    repo.ensure_contract(toy_contract)
    sid = repo.start_session(toy_contract.sha256, "scripted", 0, {})
    with checker:
        summary = Session(toy_contract, repo, checker, sid).run(Sequence([{"x": f"{k}/10"} for k in range(2, 10)]),
                                                                 SessionLimits(8, samples=1))
    repo.end_session(sid, summary.outcome)
    [failed] = summary.failed_commits
    assert audit(toy_contract, repo, None)[0]  # the audit flags the lineage
    return failed


def test_audit_and_status_flag_a_commit_that_failed_its_recheck(toy_contract, repo, failed_recheck_store):
    findings, _ = audit(toy_contract, repo, None)
    assert any(f.commit == failed_recheck_store or failed_recheck_store[:12] in f.problem for f in findings)
    assert [f.commit for f in failed_rechecks(repo.engine, toy_contract.sha256)] == [failed_recheck_store]


def test_the_web_view_marks_a_commit_that_failed_its_recheck(toy_contract, repo, failed_recheck_store):
    import html
    import re

    from starlette.testclient import TestClient

    from mathloop.web.app import create_app

    client = TestClient(create_app(repo, "store"))
    for url in ("/", f"/t/{toy_contract.sha256}"):
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", client.get(url).text)).split())
        assert "re-check" in text and failed_recheck_store[:12] in text, url


def test_exported_records_do_not_present_a_commit_that_failed_its_recheck_as_correct(toy_contract, repo,
                                                                                     failed_recheck_store):
    from mathloop.export.records import records

    [rec] = [r for r in records(toy_contract, repo) if r["commit"] == failed_recheck_store]
    assert rec["label"] != "correct" or rec.get("recheck_failed"), rec


# -- 5. the evidence rule against hand-built evidence (past __post_init__) ------------------------------------------
def _result(oid, verdict, rank, trust=Trust.EXACT):
    r = object.__new__(ObligationResult)  # built past __post_init__, as a plug-in or a worker could
    for k, v in {"id": oid, "verdict": verdict, "rank": rank, "trust": trust, "reasons": ()}.items():
        object.__setattr__(r, k, v)
    return r


class _Frac(Fraction):
    """A Fraction subclass whose comparisons lie (it claims to beat everything)."""

    def __gt__(self, other):
        return True

    def __ge__(self, other):
        return True


def _spoiled(ev: Evidence, kind: str) -> Evidence:
    res = list(ev.results)
    if kind == "bool rank":
        res = [_result(r.id, r.verdict, True) if r.id == "in-range" else r for r in res]  # True == 1, an int subclass
    elif kind == "False rank with PROVED":
        res = [_result(r.id, r.verdict, False) if r.id == "in-range" else r for r in res]
    elif kind == "negative rank":
        res = [_result(r.id, Verdict.UNKNOWN, -1) if r.id == "in-range" else r for r in res]
    elif kind == "rank 0 with UNKNOWN":
        res = [_result(r.id, Verdict.UNKNOWN, 0) if r.id == "value-bound" else r for r in res]
    elif kind == "duplicate result (PROVED and REFUTED)":
        res.append(_result("in-range", Verdict.REFUTED, 1))
    elif kind == "duplicate result (PROVED twice)":
        res.append(_result("in-range", Verdict.PROVED, 0))
    elif kind == "missing result":
        res = [r for r in res if r.id != "in-range"]
    elif kind == "result for an unknown id":
        res.append(_result("extra", Verdict.PROVED, 0))
    elif kind == "verdict as a string":
        res = [_result(r.id, "PROVED", 0) if r.id == "in-range" else r for r in res]
    elif kind == "float rank":
        res = [_result(r.id, r.verdict, 0.0) if r.id == "in-range" else r for r in res]
    elif kind == "results as a list":
        return replace(ev, results=list(res))
    elif kind == "Fraction subclass bound":
        return replace(ev, bounds={"value": _Frac(1, 2)})
    elif kind == "int bound":
        return replace(ev, bounds={"value": 1})
    elif kind == "bool bound":
        return replace(ev, bounds={"value": True})
    elif kind == "string bound":
        return replace(ev, bounds={"value": "1/2"})
    elif kind == "unknown bound name":
        return replace(ev, bounds={"value": Fraction(1, 2), "other": Fraction(1)})
    return replace(ev, results=tuple(res))


SPOILED_KINDS = ["bool rank", "False rank with PROVED", "negative rank", "rank 0 with UNKNOWN",
                 "duplicate result (PROVED and REFUTED)", "duplicate result (PROVED twice)", "missing result",
                 "result for an unknown id", "verdict as a string", "float rank", "results as a list",
                 "Fraction subclass bound", "int bound", "bool bound", "string bound", "unknown bound name"]


@pytest.mark.parametrize("kind", SPOILED_KINDS)
def test_hand_built_evidence_that_breaks_a_rule_is_an_error_never_a_commit(toy_contract, kind):
    honest_ev = check_payload(toy_contract, None, GOOD).evidence
    assert evidence_problems(toy_contract, honest_ev) == ()
    ev = _spoiled(honest_ev, kind)
    assert evidence_problems(toy_contract, ev), kind
    decision = decide(toy_contract, None, ev)
    assert decision.label is Label.ERROR and not decision.commits and decision.reasons


# -- 6. goals and open-by-design declarations -----------------------------------------------------------------------
@pytest.fixture
def open_goal(tmp_path, monkeypatch):
    from tests.unit.test_gate_open_by_design import _contract

    return _contract(tmp_path, monkeypatch, "open-goal", "OpenGoalTarget", OPEN_CONTRACT)


def _with(ev: Evidence, oid: str, verdict: Verdict, rank: int) -> Evidence:
    return replace(ev, results=tuple(_result(r.id, verdict, rank) if r.id == oid else r for r in ev.results))


@pytest.mark.parametrize("oid", ["value-bound", "coverage", "in-range"])
@pytest.mark.parametrize("verdict", [Verdict.REFUTED, Verdict.ERROR])
def test_a_goal_or_progress_declaration_never_lets_a_refuted_or_error_obligation_count(open_goal, oid, verdict):
    honest_ev = check_payload(open_goal, None, {"x": "1/2"}).evidence
    assert evidence_problems(open_goal, honest_ev) == ()  # value-bound UNKNOWN (short of the goal), coverage open
    ev = _with(honest_ev, oid, verdict, 1)
    assert any(str(verdict) in p or verdict.value in p for p in evidence_problems(open_goal, ev)), oid
    assert decide(open_goal, None, ev).label is Label.ERROR


def test_a_goal_never_lets_an_unknown_bound_obligation_count_without_its_certified_value(open_goal):
    ev = replace(check_payload(open_goal, None, {"x": "1/2"}).evidence, bounds={})
    assert evidence_problems(open_goal, ev) == ()  # nothing certified: nothing to count, no problem either
    from mathloop.domain import Scores

    seed = Scores.of(check_payload(open_goal, None, {"x": "1/10"}).evidence)
    assert decide(open_goal, seed, ev).commits is False  # against a head, an uncertified bound is no progress


class EverythingOpen(OpenGoalTarget):
    """A plug-in that declares every obligation of every contract open (goal and progress measure)."""

    name = "everything-open"

    @classmethod
    def open_by_design(cls, contract) -> OpenByDesign:
        every = frozenset(o.id for o in contract.obligations) | {"value-bound", "in-range", "blocks", "kappa-bound"}
        return OpenByDesign(goals=every, progress=every)


class Raises(OpenGoalTarget):
    name = "raises-open"

    @classmethod
    def open_by_design(cls, contract):
        raise RuntimeError("no")


class NotADeclaration(OpenGoalTarget):
    name = "not-a-declaration"

    @classmethod
    def open_by_design(cls, contract):
        return {"goals": {"value-bound"}, "progress": {"coverage", "in-range"}}


def _register(monkeypatch, key, cls):
    registry.registered()
    monkeypatch.setitem(registry.REGISTRY, key, registry.Registered(key, f"{__name__}:{cls}", "tests"))


def test_a_plugin_declaring_everything_open_changes_nothing_for_shipped_contracts_or_other_targets(
        monkeypatch, toy_contract):
    shipped = [load_contract(n) for n in ("levinson-conrey", "critical-line-zeros", "sidon-autocorrelation")]
    before = {c.name: declared_open(c) for c in [*shipped, toy_contract]}
    _register(monkeypatch, "everything-open", "EverythingOpen")
    registry.target_class("everything-open")  # the plug-in's module and class are loaded
    assert {c.name: declared_open(c) for c in [*shipped, toy_contract]} == before
    assert declared_open(toy_contract) == OpenByDesign(goals=frozenset(), progress=frozenset())


def test_a_plugin_cannot_take_a_shipped_key_to_apply_its_declaration(monkeypatch):
    lc = load_contract("levinson-conrey")
    monkeypatch.setitem(registry.REGISTRY, "levinson-conrey",
                        registry.Registered("levinson-conrey", f"{__name__}:EverythingOpen", "evil"))
    assert declared_open(lc) == OpenByDesign()  # the key is refused for both: the strict rule, never the impostor's


def test_everything_open_still_refuses_refuted_upstream(monkeypatch, tmp_path):
    _register(monkeypatch, "everything-open", "EverythingOpen")
    path = tmp_path / "e.toml"
    path.write_text(OPEN_CONTRACT.replace('"open-goal"', '"everything-open"'), encoding="utf-8")
    c = load_contract(path)
    ev = check_payload(c, None, {"x": "1/2"}).evidence
    assert evidence_problems(c, _with(ev, "in-range", Verdict.UNKNOWN, 1)) == ()  # its own lineage: its own choice
    assert evidence_problems(c, _with(ev, "in-range", Verdict.REFUTED, 1))


@pytest.mark.parametrize("cls", ["Raises", "NotADeclaration"])
def test_a_declaration_that_raises_or_is_not_an_open_by_design_gives_the_strict_rule(monkeypatch, tmp_path, cls):
    key = {"Raises": "raises-open", "NotADeclaration": "not-a-declaration"}[cls]
    _register(monkeypatch, key, cls)
    path = tmp_path / "k.toml"
    path.write_text(OPEN_CONTRACT.replace('"open-goal"', f'"{key}"'), encoding="utf-8")
    c = load_contract(path)
    assert declared_open(c) == OpenByDesign()
    ev = check_payload(c, None, {"x": "1/2"}).evidence  # value-bound UNKNOWN, coverage UNKNOWN
    assert evidence_problems(c, ev) and decide(c, None, ev).label is Label.ERROR


# -- 7. proposers cannot write the loop's meta keys; --recheck outside [0, 1] is refused ---------------------------
class Spoofer(Proposer):
    """Proposes GOOD once with every loop-only meta key set, pointing at the head."""

    name = "spoofer"

    def __init__(self) -> None:
        self.done = False

    def propose(self, ctx):
        if self.done:
            return []
        self.done = True
        meta = {k: ctx.head.hash if hasattr(ctx.head, "hash") else "x" * 64 for k in LOOP_KEYS}
        return [Proposal(GOOD, self.name, {**meta, "repeat_of": "0" * 64, "note": "kept"}),
                Proposal({"x": "bad"}, self.name, dict(meta), malformed="x: not a rational")]


def test_a_proposer_cannot_spoof_checked_by_recheck_of_or_a_failed_recheck(toy_contract, repo):
    repo.ensure_contract(toy_contract)
    sid = repo.start_session(toy_contract.sha256, "spoofer", 0, {})
    with Checker(toy_contract, target=build_target(toy_contract), runner=InProcessRunner()) as checker:
        summary = Session(toy_contract, repo, checker, sid).run(Spoofer(), SessionLimits(4, samples=2))
    repo.end_session(sid, summary.outcome)
    rows = [r for r in repo.candidates(toy_contract.sha256) if r.proposer == "spoofer"]
    assert len(rows) == 2 and any(r.commit_hash for r in rows)  # checked (not taken as a repeat) and committed
    for r in rows:  # the loop writes checked_by itself ("session": its own check); nothing the proposer wrote
        assert not set(r.meta) & ({*LOOP_KEYS, "repeat_of"} - {"checked_by"}), r.meta
        assert r.meta.get("checked_by", "session") == "session", r.meta
    assert next(r for r in rows if r.commit_hash).meta == {"note": "kept", "checked_by": "session"}
    assert failed_rechecks(repo.engine, toy_contract.sha256) == []
    assert audit(toy_contract, repo, None)[0] == []
    _session(toy_contract, repo, None, [{"x": "3/4"}])  # the lineage is not refused


@pytest.mark.parametrize("value", ["nan", "-0.1", "1.5", "inf", "-inf", "1e-400x"])
def test_recheck_outside_zero_one_is_refused_with_exit_2_before_anything_is_written(tmp_path, toy_contract, value):
    db = tmp_path / "never.db"
    result = invoke("run", "--contract", str(toy_contract.path), "--db", str(db), "--budget", "1", "--no-lean",
                    "--no-progress", "--recheck", value)
    assert result.exit_code == 2, result.output
    assert "--recheck" in result.output and not db.exists()


def test_the_checker_refuses_a_recheck_share_outside_zero_one(toy_contract):
    for bad in (float("nan"), -0.0001, 1.0001, float("inf")):
        with pytest.raises(ValueError, match="--recheck"):
            Checker(toy_contract, runner=InProcessRunner(), recheck=bad)


# -- 8. Lean: a `checked` attestation must name the rendering it checked --------------------------------------------
def _forge_checked(repo, contract, commit, artifact):
    from mathloop.lean import attest

    attest.ensure_table(repo.engine)
    attest.record(repo.engine, contract.sha256, attest.Attestation(
        commit, "checked", kind="bundled", lean_version="4.35.0", lean_commit="eb6cafb7", prelude_sha256="p" * 64,
        artifact_sha256=artifact, file_sha256s={"Mathloop/Commit.lean": "f" * 64}, seconds=0.1))


def test_a_checked_attestation_for_a_commit_that_renders_nothing_is_refused(toy_contract, repo):
    from mathloop.lean import attest

    _session(toy_contract, repo, None, [GOOD])
    head = repo.head(toy_contract.sha256)
    _forge_checked(repo, toy_contract, head.hash, None)
    assert attest.statuses(repo.engine, toy_contract.sha256, [head.hash])[head.hash]["status"] == "checked"
    findings, _ = audit(toy_contract, repo, None)
    assert any(f.commit == head.hash and f.table == "lean_attestations" for f in findings), findings


def test_a_checked_attestation_naming_no_or_another_rendering_is_found(toy_contract, repo):
    # the counterparts that hold: "" (the body's default) or any sha for a commit that renders nothing is found
    _session(toy_contract, repo, None, [GOOD])
    head = repo.head(toy_contract.sha256)
    for artifact in ("", "a" * 64):
        _forge_checked(repo, toy_contract, head.hash, artifact)
    findings, _ = audit(toy_contract, repo, None)
    assert sum(f.table == "lean_attestations" and "different Lean rendering" in f.problem for f in findings) == 2


# -- 9. a worker caught in one session: its answers of earlier sessions ---------------------------------------------
def _forging_session(contract, repo, draws, proposals):
    from tests.support.forging_executor import Draws, ForgingExecutor

    checker = Checker(contract, target=build_target(contract), executor=ForgingExecutor(), runner=InProcessRunner(),
                      recheck=0.5, rng=Draws(draws))
    repo.ensure_contract(contract)
    sid = repo.start_session(contract.sha256, "scripted", 0, {})
    with checker:
        summary = Session(contract, repo, checker, sid).run(Sequence(proposals), SessionLimits(len(proposals), samples=1))
    repo.end_session(sid, summary.outcome)
    return summary, checker


def test_a_worker_caught_later_has_its_forged_commits_of_earlier_sessions_marked(toy_contract, repo):
    from tests.support.forging_executor import FORGER

    # session 1: 2/10 honest, 3/10 forged as 35/100; neither drawn for a re-check: both commit
    _forging_session(toy_contract, repo, [0.9, 0.9], [{"x": "2/10"}, {"x": "3/10"}])
    [forged] = [r for r in repo.candidates(toy_contract.sha256) if r.payload == {"x": "3/10"}]
    assert forged.commit_hash and forged.meta["checked_by"] == FORGER
    # session 2: the same worker forges 5/10, is drawn and caught
    _, checker = _forging_session(toy_contract, repo, [0.9, 0.0], [{"x": "4/10"}, {"x": "5/10"}])
    assert list(checker.quarantined) == [FORGER]
    assert forged.commit_hash in [f.commit for f in failed_rechecks(repo.engine, toy_contract.sha256)]


def test_a_full_audit_recheck_finds_a_forged_commit_of_an_earlier_session(toy_contract, repo):
    # what does hold: `audit` with the re-check (the default) finds the forgery, whichever session made it
    _forging_session(toy_contract, repo, [0.9, 0.9], [{"x": "2/10"}, {"x": "3/10"}])
    [forged] = [r for r in repo.candidates(toy_contract.sha256) if r.payload == {"x": "3/10"}]
    assert audit(toy_contract, repo, None)[0] == []  # without a re-check: nothing to see
    findings, _ = audit(toy_contract, repo, InProcessRunner())
    assert any(f.commit == forged.commit_hash for f in findings), findings


# -- 10. goals are declared by the user's contract, not by the target class -----------------------------------------
class Doubtful(OpenGoalTarget):
    """A plug-in whose bound obligation is UNKNOWN when it could not fully verify the value (it still reports the
    value it computed), and which relies on the default open_by_design: it does not decide by goals (it reuses
    open-goal's checks only)."""

    name = "doubtful"
    decides_by_goal = False


NO_GOAL = OPEN_CONTRACT.replace('"open-goal"', '"doubtful"').replace('goal = "9/10"\n', "")


def test_a_user_contract_cannot_open_a_bound_obligation_by_adding_a_goal(monkeypatch, tmp_path):
    _register(monkeypatch, "doubtful", "Doubtful")
    plain, with_goal = tmp_path / "plain.toml", tmp_path / "goal.toml"
    plain.write_text(NO_GOAL, encoding="utf-8")
    with_goal.write_text(NO_GOAL.replace('class_maximum = "1"\n', 'class_maximum = "1"\ngoal = "1"\n'), encoding="utf-8")
    c_plain, c_goal = load_contract(plain), load_contract(with_goal)
    ev = check_payload(c_plain, None, {"x": "1/2"}).evidence  # value-bound UNKNOWN, value 1/2 reported
    assert evidence_problems(c_plain, ev)  # the target's own contract: refused, as the strict rule says
    assert evidence_problems(c_goal, ev)  # the user's goal must not change that


def test_a_goal_on_a_target_that_does_not_decide_by_goals_is_refused_at_load_or_harmless(tmp_path):
    from mathloop.contract.model import ContractError

    c0 = load_contract("pair-correlation")
    text = c0.path.read_text(encoding="utf-8")
    i = text.index('direction = "maximize"')
    path = tmp_path / "pc.toml"
    path.write_text(text[:i] + 'goal = "1"\n' + text[i:], encoding="utf-8")
    try:
        c = load_contract(path)
    except ContractError:
        return  # refused at load: fine
    ev = check_payload(c, None, dict(c.seed)).evidence
    assert evidence_problems(c, ev) == ()


# -- 11. a worker's word that a check was "interrupted" -------------------------------------------------------------
def _claims_interrupted(contract, parent_state, payload) -> bytes:
    return b'{"error":"cut by the session time limit","interrupted":true}'


@pytest.mark.parametrize("authenticated", [True, False], ids=["tls", "loopback"])
def test_a_worker_cannot_make_a_candidate_vanish_by_claiming_it_was_interrupted(toy_contract, repo, authenticated):
    summary = _session(toy_contract, repo, RawReplyExecutor(_claims_interrupted, authenticated=authenticated), [GOOD])
    assert summary.interrupted == 0
    assert any(r.commit_hash for r in _rows(repo, toy_contract, GOOD))


def test_a_worker_interrupted_claim_is_believed_once_the_session_deadline_has_passed(toy_contract):
    import time

    executor = RawReplyExecutor(_claims_interrupted, authenticated=True)
    with Checker(toy_contract, target=build_target(toy_contract), executor=executor, runner=InProcessRunner()) as c:
        c.set_deadline(time.monotonic() - 1)
        out, decision = c.take(c.submit(None, GOOD), None, GOOD, None)
    assert out.interrupted and decision is None


def test_a_worker_error_is_rechecked_by_the_session(toy_contract, repo):
    # the counterpart that holds: a plain error from a worker costs nothing, the session checks the candidate itself
    reply = lambda c, s, p: b'{"error":"worker lost","interrupted":false}'  # noqa: E731
    _session(toy_contract, repo, RawReplyExecutor(reply, authenticated=True), [GOOD])
    [row] = _rows(repo, toy_contract, GOOD)
    assert row.commit_hash and row.meta["checked_by"] == "session"


# -- 12. the same lies from a real dask worker on loopback, through `mathloop run` ----------------------------------
def _lying_cluster(lie: str):
    """Return (address, stop) of a scheduler on loopback whose one worker runs tests/support/lying_dask_worker.py."""
    import os
    import subprocess
    import sys

    from tests.integration.cli import ROOT
    from tests.integration.test_hostile_dask import _free_port, _wait_for_worker

    port = _free_port()
    env = {**os.environ, "MATHLOOP_LIE": lie, "PYTHONPATH": str(ROOT)}
    quiet = dict(env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                               str(port), "--no-dashboard"], **quiet)]

    def stop() -> None:
        for p in reversed(procs):  # only the processes started here, by their own process groups
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait(10)

    try:
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", f"tcp://127.0.0.1:{port}",
                                       "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--preload",
                                       str(ROOT / "tests/support/lying_dask_worker.py")], **quiet))
        _wait_for_worker(port)
    except BaseException:
        stop()
        raise
    return f"dask://127.0.0.1:{port}", stop


@pytest.mark.slow
def test_mathloop_run_survives_a_real_worker_sending_a_zero_denominator(tmp_path):
    pytest.importorskip("distributed")
    from tests.integration.cli import mathloop

    address, stop = _lying_cluster("zero-denominator")
    try:
        proc = mathloop("run", "sidon-autocorrelation", "--db", str(tmp_path / "s.db"), "--budget", "2", "--executor",
                        address, "--no-lean", "--no-progress", timeout=120)
    finally:
        stop()
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_a_commit_that_failed_its_recheck_is_refused_as_a_reward_reference(toy_contract, repo, failed_recheck_store):
    from mathloop.env.reference import ReferenceError, StoreCommit, reference_state

    with pytest.raises(ReferenceError, match="re-check"):
        reference_state(toy_contract, StoreCommit(str(repo.engine.url.database), failed_recheck_store), check=None)


# -- 13. a plug-in's `ceiling_of` reaches a shipped target's gate -----------------------------------------------------
class FirstCeiling(OpenGoalTarget):
    """A plug-in that declares itself a ceiling of the shipped pair-correlation-rh; its key sorts before the shipped
    ceiling's."""

    name = "aaa-ceiling"
    ceiling_of = ("pair-correlation-rh", "proportion", "value")


@pytest.fixture
def first_ceiling(monkeypatch):
    from mathloop.check import bracket

    _register(monkeypatch, "aaa-ceiling", "FirstCeiling")
    bracket.pairs.cache_clear()
    bracket._partner_contracts.cache_clear()
    yield
    bracket.pairs.cache_clear()
    bracket._partner_contracts.cache_clear()


def test_a_plugin_cannot_replace_a_shipped_targets_bracket_partner(first_ceiling):
    from mathloop.check.bracket import pair_of

    rh = load_contract("pair-correlation-rh")
    assert pair_of(rh)[2] == "pair-correlation-rh-ceiling"


def test_without_plugins_the_shipped_primal_is_bracketed_by_the_shipped_ceiling():
    from mathloop.check.bracket import pair_of

    assert pair_of(load_contract("pair-correlation-rh"))[2] == "pair-correlation-rh-ceiling"


class CeilingA(OpenGoalTarget):
    name = "ceiling-a"
    ceiling_of = ("plug-primal", "value", "value")


class CeilingB(CeilingA):
    name = "ceiling-b"


def test_a_primal_with_two_ceilings_is_refused_naming_both(monkeypatch, toy_contract):
    from mathloop.check import bracket
    from mathloop.contract.model import ContractError

    for key, cls in (("plug-primal", "OpenGoalTarget"), ("ceiling-a", "CeilingA"), ("ceiling-b", "CeilingB")):
        _register(monkeypatch, key, cls)  # all three from one distribution ("tests"): both claims count
    bracket.pairs.cache_clear()
    try:
        with pytest.raises(ContractError, match="ceiling-a, ceiling-b"):
            bracket.pair_of(replace(toy_contract, target="plug-primal"))
    finally:
        bracket.pairs.cache_clear()
