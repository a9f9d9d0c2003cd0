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
from mathloop.search.audit import audit
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


@pytest.mark.xfail(strict=True, reason="HOLE: outcome_from_bytes lets ZeroDivisionError (Fraction('1/0')) and "
                   "OverflowError (float(10**400) of a timing) escape: it catches only StrictJSONError, "
                   "UnicodeDecodeError and WireError, and evidence_from_json converts only ValueError")
@pytest.mark.parametrize("kind", sorted(HOSTILE_NUMBERS))
def test_a_reply_with_a_zero_denominator_or_an_overflowing_number_is_an_error_outcome(toy_contract, kind):
    blob = _reply_with(HOSTILE_NUMBERS[kind])(toy_contract, None, GOOD)
    out = outcome_from_bytes(blob, "dask worker")
    assert out.evidence is None and "unreadable outcome" in (out.error or "")


@pytest.mark.xfail(strict=True, reason="HOLE: one hostile worker (authenticated or on loopback) ends the session "
                   "with a traceback: DaskCheck.result calls outcome_from_bytes outside its try, and the parser raises "
                   "ZeroDivisionError/OverflowError on 'bound 1/0' or a 400-digit timing, through Checker.take and the loop")
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


@pytest.mark.xfail(strict=True, reason="HOLE: Checker.take re-checks a worker's answer only when it would commit "
                   "(or is labelled error): a worker that says `malformed`, or sends rule-valid evidence with a worse "
                   "bound, has its label recorded as the verifier's (meta.checked_by = the worker), is never "
                   "quarantined, and the loop's exact-repeat rule then never checks that payload again in the lineage")
@pytest.mark.parametrize("authenticated", [True, False], ids=["tls", "loopback"])
@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_worker_cannot_bury_a_good_candidate_by_lying_that_it_is_malformed_or_worse(toy_contract, repo, lie,
                                                                                      authenticated):
    _session(toy_contract, repo, RawReplyExecutor(LIES[lie], authenticated=authenticated), [GOOD])
    _session(toy_contract, repo, None, [GOOD])  # a later honest session proposes it again
    rows = _rows(repo, toy_contract, GOOD)
    assert any(r.commit_hash for r in rows), [(r.label, r.meta, r.reasons) for r in rows]


def test_a_worker_that_lies_about_a_good_candidate_is_recorded_under_its_own_name(toy_contract, repo):
    # what holds today: the lie is at least attributed (meta.checked_by names the worker), never to the session
    _session(toy_contract, repo, RawReplyExecutor(_claims_malformed, authenticated=True), [GOOD])
    [row] = _rows(repo, toy_contract, GOOD)
    assert row.label == Label.MALFORMED.value and WORKER in row.meta["checked_by"]
