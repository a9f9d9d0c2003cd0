"""`audit` re-checking commits concurrently on the pool reports exactly what the serial audit reports, in order."""

import time
from fractions import Fraction

import pytest

from mathloop.check.executors import LocalPool
from mathloop.check.outcome import CheckOutcome
from mathloop.audit.report import audit_store
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner, check_payload
from tests.adversarial.store_fixture import Store
from tests.unit.test_loop import Scripted

STEPS = [f"{i}/20" for i in range(3, 20)]  # 17 improving commits after the root


class ChangedChecker(InProcessRunner):
    """Today's checker, except that it fails on 8/20 and answers 11/20 as if it were 12/20 (a changed checker);
    earlier commits take longer, so that concurrent re-checks finish out of commit order."""

    def check(self, contract, parent_state, payload):
        x = payload.get("x") if isinstance(payload, dict) else None
        if x is not None and Fraction(x) > 0:
            time.sleep(float(1 - Fraction(x)) * 0.02)
        if x == "8/20":
            return CheckOutcome(error="checker crashed: RuntimeError: lost its place")
        if x == "11/20":
            return check_payload(contract, parent_state, {"x": "12/20"})
        return super().check(contract, parent_state, payload)


@pytest.fixture
def store(toy_contract, repo):
    repo.ensure_contract(toy_contract)
    s = repo.start_session(toy_contract.sha256, "scripted", 0, {"budget": 40})
    Session(toy_contract, repo, InProcessRunner(), s).run(Scripted([{"x": x} for x in STEPS] + [{"x": "1/20"}]),
                                                          SessionLimits(40))
    repo.end_session(s, "budget spent")
    return Store(toy_contract, repo, repo.commits(toy_contract.sha256), s, s)


def both(store, runner_class=InProcessRunner, workers=3):
    """Return the serial and the pooled audit reports of the store, each with a fresh checker."""
    serial = audit_store(store.contract, store.repo, runner_class())
    pool = LocalPool(workers, 5.0, runner=lambda timeout_s: runner_class())
    try:
        pooled = audit_store(store.contract, store.repo, runner_class(), executor=pool)
    finally:
        pool.close()
    return serial, pooled


def test_clean_store_passes_serial_and_pooled(store):
    serial, pooled = both(store)
    assert serial.findings == [] and pooled.findings == []
    assert serial == pooled and serial.commits == len(STEPS) + 1


def test_tampered_and_forged_rows_give_identical_reports_serial_and_pooled(store):
    store.sql("UPDATE commits SET bounds = '{\"value\":\"99/100\"}' WHERE seq = 5; "
              "UPDATE candidates SET label = 'progress' WHERE label = 'regression'; "
              "UPDATE commits SET created_at = '2020-01-01' WHERE seq = 14")
    serial, pooled = both(store, ChangedChecker)
    problems = [(f.commit, f.problem) for f in serial.findings]
    # the rows' own findings and the re-check's (a failed re-check at 8/20, other evidence at 11/20), in order
    assert [p for _, p in problems[:4]] == ["hash mismatch: the commit row was edited (column bounds changed)",
                                            "re-check failed: checker crashed: RuntimeError: lost its place",
                                            "re-check gives different evidence than was committed (checker not "
                                            "deterministic, or changed)",
                                            "hash mismatch: the commit row was edited (column created_at changed)"]
    assert [c for c, _ in problems[:4]] == [store.commits[i].hash for i in (5, 6, 9, 14)]
    assert any(f.table == "candidates" and f.field == "label" for f in serial.findings)
    assert pooled == serial  # every finding, its fields and its position; the coverage too


def test_edited_commit_is_found_alike_by_serial_and_pooled_audits(store):
    store.sql("UPDATE commits SET bounds = '{\"value\":\"99/100\"}' WHERE seq = 5")
    serial, pooled = both(store)
    assert serial.findings and pooled == serial


def test_audit_refuses_an_executor_that_is_not_its_own_children(store):
    class Remote:
        name, local, in_flight = "dask (2 workers)", False, 4

    with pytest.raises(ValueError, match="own children"):
        audit_store(store.contract, store.repo, InProcessRunner(), executor=Remote())


def test_progress_counts_every_commit_once_in_order_when_pooled(store):
    seen = []
    pool = LocalPool(2, 5.0, runner=lambda timeout_s: InProcessRunner())
    try:
        audit_store(store.contract, store.repo, InProcessRunner(), lambda i, n: seen.append((i, n)), executor=pool)
    finally:
        pool.close()
    assert seen == [(i, len(STEPS) + 1) for i in range(1, len(STEPS) + 2)]
