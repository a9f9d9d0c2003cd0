"""Executors: checks of a round run at once (local pool, dask), committed in order, a killed worker loses nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from mathloop.targets import load_contract
from mathloop.check.executors import LocalPool, executor_for
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.outcome import CheckOutcome
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target
from tests.support.clz import small_contract

ROOT = Path(__file__).resolve().parents[2]


def _mathloop(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from mathloop.cli.app import main; main()", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def _heads(db: str, contract) -> list[str]:
    repo = Repository(make_engine(db, create=False))
    return [c.evidence_sha for c in repo.commits(contract.sha256)]


@pytest.mark.slow  # heavy: runs in .ci/run's second tier; the default tier stays < 3 min
def test_run_with_two_workers_commits_the_same_chain_as_one_and_says_so(tmp_path):
    path = small_contract(tmp_path, **{"chunk_gram_intervals = 320": "chunk_gram_intervals = 64"})
    one, two = str(tmp_path / "one.db"), str(tmp_path / "two.db")
    r1 = _mathloop("run", str(path), "--db", one, "--budget", "5", "--samples", "1", "--no-lean", "--no-progress")
    r2 = _mathloop("run", str(path), "--db", two, "--budget", "5", "--workers", "2", "--no-lean", "--no-progress")
    assert r1.returncode == 0 and r2.returncode == 0, r1.stdout + r1.stderr + r2.stdout + r2.stderr
    assert "executor: local pool (2 workers); 4 proposals per round" in r2.stdout
    assert "executor: local, 1 worker" in r1.stdout
    contract = load_contract(path)
    assert _heads(one, contract) == _heads(two, contract)
    for db in (one, two):
        assert _mathloop("audit", str(path), "--db", db).returncode == 0


def test_a_bad_executor_address_is_a_clear_error(tmp_path):
    r = _mathloop("run", "critical-line-zeros", "--db", str(tmp_path / "x.db"), "--executor", "dask://nohost", "--budget", "1")
    assert r.returncode == 2
    assert "--executor" in r.stderr


class _LosingExecutor:
    """An executor whose every first result is a lost worker (as when a worker process is killed)."""

    name, workers, in_flight = "losing", 2, 4

    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, contract, parent_state, payload) -> Future:
        self.submitted += 1
        f: Future = Future()
        f.set_result(CheckOutcome(error="checker process died (exit code -9): EOFError"))
        return f

    def close(self) -> None:
        pass


def test_a_check_lost_with_its_worker_is_run_again_and_recorded_once(tmp_path):
    contract = load_contract(small_contract(tmp_path))
    target = build_target(contract)
    repo = Repository(make_engine(str(tmp_path / "s.db"), create=True))
    ex = _LosingExecutor()
    session = Session(contract, repo, InProcessRunner(), executor=ex)
    proposer = target.local_proposer(0)
    proposer.workers = 1
    summary = session.run(proposer, SessionLimits(budget=2, samples=2))
    assert ex.submitted == 2
    assert summary.commits == 2 and summary.labels.get("error", 0) == 0
    assert len(repo.commits(contract.sha256)) == 3  # root + the two chunks, each recorded once


@pytest.mark.slow  # > 1.5 s: the default tier stays under 3 minutes
def test_killing_a_local_pool_worker_mid_check_returns_an_error_and_the_pool_recovers(tmp_path):
    contract = load_contract(small_contract(tmp_path, **{"chunk_gram_intervals = 320": "chunk_gram_intervals = 320"}))
    target = build_target(contract)
    proposer = target.local_proposer(0)
    proposer.workers = 1
    chunk = proposer.chunks_from(-1, 1)[0]
    root = target.check(None, target.parse(contract.seed))
    pool = LocalPool(1, timeout_s=120)
    _POOLS.append(pool)
    others = set(_children())  # checker children that earlier tests of this process left running
    try:
        fut = pool.submit(contract, root.state, chunk)
        for _ in range(2000):  # kill the worker as soon as it exists: before or while it runs the check
            if set(_children()) - others:
                break
            time.sleep(0.005)
        for pid in set(_children()) - others:
            os.kill(pid, signal.SIGKILL)  # the worker itself (its own process group may not exist yet)
        out = fut.result(timeout=60)
        assert out.error is not None and ("died" in out.error or "did not start" in out.error)
        again = pool.submit(contract, root.state, chunk).result(timeout=300)
        assert again.evidence is not None
    finally:
        pool.close()


_POOLS: list = []


def _children() -> list[int]:
    """Return the PIDs of the checker children of the pools this module started."""
    return [pid for pool in _POOLS for pid in pool.pids()]


def test_executor_spec_is_validated():
    with pytest.raises(ValueError, match="dask://HOST:PORT"):
        executor_for("dask://nohost", 1, 10)
    with pytest.raises(ValueError, match="unknown executor"):
        executor_for("ray://x:1", 1, 10)
    pool = executor_for("local", 3, 10)
    assert pool.workers == 3
    pool.close()


@pytest.mark.slow
def test_dask_cluster_of_two_workers_commits_the_same_chain_and_survives_a_killed_worker(tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    from mathloop.check.dask import DaskExecutor

    path = small_contract(tmp_path, **{"chunk_gram_intervals = 320": "chunk_gram_intervals = 48"})
    contract = load_contract(path)
    target = build_target(contract)
    ref_repo = Repository(make_engine(str(tmp_path / "ref.db"), create=True))
    prop = target.local_proposer(0)
    prop.workers = 1
    Session(contract, ref_repo, InProcessRunner()).run(prop, SessionLimits(budget=8, samples=4))
    import dask

    with dask.config.set({"distributed.worker.daemon": False}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        ex = DaskExecutor(cluster.scheduler_address, timeout_s=120)
        try:
            assert ex.workers == 2
            repo = Repository(make_engine(str(tmp_path / "dask.db"), create=True))
            prop = target.local_proposer(0)
            prop.workers = 1
            # kill one worker process while the first round is in flight: dask re-runs its tasks
            pids = list(ex.client.run(os.getpid).values())
            killed: list[int] = []
            submit = ex.submit

            def submit_then_kill(*args):
                future = submit(*args)
                if not killed:  # the first task is in flight: a worker dies under it (a timer may fire too late)
                    os.kill(pids[0], signal.SIGKILL)
                    killed.append(pids[0])
                return future

            ex.submit = submit_then_kill
            session = Session(contract, repo, InProcessRunner(), executor=ex)
            summary = session.run(prop, SessionLimits(budget=8, samples=4))
        finally:
            ex.close()
    assert killed and summary.labels.get("error", 0) == 0
    assert [c.evidence_sha for c in repo.commits(contract.sha256)] == [c.evidence_sha for c in ref_repo.commits(contract.sha256)]
    db = str(tmp_path / "dask.db")
    assert _mathloop("audit", str(path), "--db", db).returncode == 0


def test_a_dask_task_that_failed_for_good_is_an_error_outcome_the_session_re_checks():
    from mathloop.check.dask import DaskCheck

    class Lost:  # what a distributed future raises once its task was lost on too many workers
        def result(self, timeout=None):
            raise RuntimeError("KilledWorker: attempted to run task on 3 workers")

    class Executor:
        name, timeout_s = "dask tcp://127.0.0.1:1 (1 worker)", 10.0

    out = DaskCheck(Executor(), Lost()).result()
    assert out.evidence is None and out.error.startswith("dask task failed: RuntimeError: KilledWorker")


def test_the_dask_task_returns_the_childs_json_outcome_and_warm_checks_the_seed_in_the_child(tmp_path):

    from mathloop.check.dask import check_on_worker as check_in_child, close_worker_runners, warm_on_worker as warm_in_child
    from mathloop.check.outcome import outcome_from_bytes

    contract = load_contract(small_contract(tmp_path))
    try:
        assert warm_in_child(contract, 120) is True  # the seed checked in a hardened child
        blob = check_in_child(contract, None, {"not": "a chunk"}, 120)
        assert isinstance(blob, bytes) and outcome_from_bytes(blob, "worker").malformed is not None  # JSON, never pickle
        assert close_worker_runners() == 1  # one child, kept for the next task
    finally:
        close_worker_runners()


def test_warming_a_local_pool_checks_the_seed_once_in_every_worker(tmp_path):
    contract = load_contract(small_contract(tmp_path))
    pool = LocalPool(2, timeout_s=120)
    _POOLS.append(pool)
    others = set(_children())  # checker children that earlier tests of this process left running
    try:
        assert pool.warm(contract) == 2
        assert len(set(_children()) - others) == 2  # both children started before the session's first round
    finally:
        pool.close()
