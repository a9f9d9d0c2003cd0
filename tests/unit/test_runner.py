"""The check runner: a hung checker is killed with its whole process tree; a crash is an error value."""

import time
from fractions import Fraction

import pytest

from mathloop.check.runner import InProcessRunner, ProcessRunner


@pytest.mark.slow  # > 1.5 s: the default tier stays under 3 minutes
def test_timeout_kills_the_checker_and_its_children_and_the_next_check_works(toy_contract):
    runner = ProcessRunner(1.0, start_method="fork")
    try:
        t0 = time.monotonic()
        out = runner.check(toy_contract, None, {"x": "1/2", "sleep": 30})
        assert out.error and "timed out" in out.error
        assert time.monotonic() - t0 < 10
        pgid = runner._proc  # killed and cleared
        assert pgid is None
        ok = runner.check(toy_contract, None, {"x": "1/2"})
        assert ok.evidence is not None and ok.evidence.bounds["value"] == 0.5
    finally:
        runner.close()


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_no_grandchild_survives_a_timeout(toy_contract, tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    runner = ProcessRunner(1.5, start_method="fork")
    try:
        out = runner.check(toy_contract, None, {"x": "1/2", "sleep": 30, "pidfile": str(pidfile)})
    finally:
        runner.close()
    assert out.error and "timed out" in out.error
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    assert not _alive(pid), f"grandchild {pid} outlived the timeout"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_checker_crash_is_an_error_value_not_an_exception(toy_contract):
    out = InProcessRunner().check(toy_contract, None, {"x": "1/2", "crash": True})
    assert out.evidence is None and "asked to crash" in out.error


def test_malformed_payload_is_a_malformed_value(toy_contract):
    out = InProcessRunner().check(toy_contract, None, {"x": "banana"})
    assert out.malformed == "x: not a rational: 'banana'"


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_a_check_running_at_the_session_deadline_is_cut_there_not_at_its_timeout(toy_contract):
    runner = ProcessRunner(120.0, start_method="fork")
    try:
        runner.deadline = time.monotonic() + 2.0
        t0 = time.monotonic()
        out = runner.check(toy_contract, None, {"x": "1/2", "sleep": 60})
        assert out.error and "session's time limit" in out.error
        assert time.monotonic() - t0 < 10
        runner.deadline = None  # without a deadline the contract's timeout applies again
        ok = runner.check(toy_contract, None, {"x": "1/2"})
        assert ok.evidence is not None and ok.evidence.bounds["value"] == 0.5
    finally:
        runner.close()


def test_a_check_that_ends_before_the_deadline_is_not_affected_by_it(toy_contract):
    runner = ProcessRunner(120.0, start_method="fork")
    try:
        runner.deadline = time.monotonic() + 5.0
        out = runner.check(toy_contract, None, {"x": "1/2", "sleep": 0.2})
        assert out.error is None and out.evidence is not None
    finally:
        runner.close()


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_the_local_pool_cuts_a_check_at_the_session_deadline_and_keeps_working(toy_contract, monkeypatch):
    from mathloop.check.executors import LocalPool

    pool = LocalPool(2, 120.0)
    try:
        pool.set_deadline(time.monotonic() + 2.0)
        t0 = time.monotonic()
        slow, quick = (pool.submit(toy_contract, None, p) for p in ({"x": "1/2", "sleep": 60}, {"x": "1/4"}))
        out = slow.result()
        assert out.error and "session's time limit" in out.error and time.monotonic() - t0 < 15
        assert quick.result().evidence is not None
        pool.set_deadline(None)
        assert pool.submit(toy_contract, None, {"x": "1/2", "sleep": 0.2}).result().evidence is not None
    finally:
        pool.close()


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_a_dask_task_carries_the_time_left_and_is_cut_there(toy_contract):
    from mathloop.check.dask import check_on_worker, close_worker_runners
    from mathloop.check.outcome import outcome_from_bytes

    try:
        t0 = time.monotonic()
        out = outcome_from_bytes(check_on_worker(toy_contract, None, {"x": "1/2", "sleep": 60}, 120.0, 1.5), "worker")
        assert out.error and "session's time limit" in out.error and out.interrupted and time.monotonic() - t0 < 15
        ok = outcome_from_bytes(check_on_worker(toy_contract, None, {"x": "1/2"}, 120.0, 30.0), "worker")
        assert ok.evidence is not None and ok.evidence.bounds["value"] == 0.5
    finally:
        close_worker_runners()


def test_a_target_the_checker_child_cannot_build_is_an_error_not_a_crash(toy_contract, monkeypatch):
    from mathloop.check import runner as runner_mod

    monkeypatch.setattr(runner_mod, "_hello", lambda: __import__("pickle").dumps({"sys_path": [], "registry": {}}))
    runner = ProcessRunner(60.0)  # the toy target is not passed on to the child: it cannot build it
    try:
        out = runner.check(toy_contract, None, {"x": "1/2"})
        assert out.evidence is None and out.error and out.error.startswith("target could not be built")
    finally:
        runner.close()


def test_the_checker_child_sees_the_targets_this_process_registered(toy_contract):
    runner = ProcessRunner(60.0)  # a fresh interpreter: the registration travels with the start-up message
    try:
        assert runner.check(toy_contract, None, {"x": "1/2"}).evidence.bounds["value"] == Fraction(1, 2)
    finally:
        runner.close()


def test_exceptions_that_cross_the_checker_pipe_unpickle_whole():
    import pickle

    from mathloop.bounded import StrictJSONError
    from mathloop.contract.model import ContractError

    e = pickle.loads(pickle.dumps(ContractError("c.toml", "limits.x", "must be > 0")))
    assert (str(e), e.key, e.reason) == ("c.toml: limits.x: must be > 0", "limits.x", "must be > 0")
    j = pickle.loads(pickle.dumps(StrictJSONError("duplicate key 'a'", refused=True)))
    assert (str(j), j.refused) == ("duplicate key 'a'", True)


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_a_check_cut_by_the_session_time_limit_is_interrupted_not_an_error_of_the_candidate(toy_contract, repo):
    from mathloop.check.checker import Checker
    from mathloop.propose.base import Proposal, Proposer
    from mathloop.search.loop import Session, SessionLimits

    class One(Proposer):
        name = "one"

        def __init__(self):
            self.sent = False

        def propose(self, ctx):
            if self.sent:
                return []
            self.sent = True
            return [Proposal({"x": "1/2", "sleep": 60}, self.name)]

    checker = Checker(toy_contract, runner=ProcessRunner(120.0))
    try:
        session = Session(toy_contract, repo, checker)
        session.ensure_root()
        checker.set_deadline(time.monotonic() + 2.0)
        t0 = time.monotonic()
        summary = session.run(One(), SessionLimits(5, time_limit_s=2.0))
    finally:
        checker.close()
    assert time.monotonic() - t0 < 10 and summary.interrupted == 1 and summary.outcome == "time limit"
    assert "error" not in summary.labels
    assert [c.label for c in repo.candidates(toy_contract.sha256)] == ["correct"]  # the seed only: nothing recorded
