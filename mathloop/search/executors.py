"""Where checks run in parallel: a local pool of hardened worker processes, or a dask.distributed cluster.

A check is a pure function of (contract, parent_state, payload) -> CheckOutcome (runner.check_payload),
so it may run anywhere and be re-run: a worker killed mid-check loses nothing (the local pool
starts a fresh worker and reports the error; dask re-runs the task on another worker), and the
session records each candidate once, when it takes the result. Results are taken in proposal
order by the session, which alone gates and commits.

`warm(contract)` checks the contract's seed once in every worker before the session starts: a
worker's first check otherwise pays its checker child's start, the target's imports and its caches
(≈ 1–2 s on this machine), which for dask happened inside the session (measured: 60 chunks with 2
workers at 7.4 chunks/s against the local pool's 9.9, whose children fork from the session's
already-warm forkserver). A dask task that fails or is lost for good comes back as an error
outcome, so the session re-checks the candidate itself instead of stopping.

    executor_for("local", workers=2, timeout_s=600)        # N ProcessRunner workers (default)
    executor_for("dask://127.0.0.1:8786", 0, 600)          # a running dask scheduler (extra `dask`)
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Mapping, Protocol

from mathloop.contract.model import Contract
from mathloop.search.runner import CheckOutcome, ProcessRunner, check_payload


class Pending(Protocol):
    """A check in flight; `result()` waits for its CheckOutcome."""

    def result(self, timeout: float | None = None) -> CheckOutcome: ...


class Executor(Protocol):
    """Runs checks concurrently; `submit` returns a future of the CheckOutcome.

    `in_flight`: the proposals per round the session should keep submitted so that no worker waits
    (at least 2x the workers; more where a task's round trip is long against a check).
    """

    name: str
    workers: int
    in_flight: int

    def submit(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> Pending: ...

    def warm(self, contract: Contract) -> int: ...

    def set_deadline(self, at: float | None) -> None:
        """Cut every check still running at `time.monotonic()` value `at` (the session's --time-limit)."""

    def close(self) -> None: ...


class LocalPool:
    """`workers` persistent checker processes (runner.ProcessRunner: own process group, timeout kills the tree)."""

    def __init__(self, workers: int, timeout_s: float) -> None:
        self.workers = max(1, workers)
        self.in_flight = 2 * self.workers  # a round trip is ~0.5 ms against a check's 30-100 ms
        self.name = f"local pool ({self.workers} worker{'s' if self.workers != 1 else ''})"
        self._idle: queue.Queue[ProcessRunner] = queue.Queue()
        for _ in range(self.workers):
            self._idle.put(ProcessRunner(timeout_s))
        self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix="mathloop-check")

    def _run(self, contract: Contract, parent_state, payload) -> CheckOutcome:
        runner = self._idle.get()
        try:
            return runner.check(contract, parent_state, payload)
        finally:
            self._idle.put(runner)

    def submit(self, contract: Contract, parent_state, payload) -> Future:
        return self._threads.submit(self._run, contract, parent_state, payload)

    def warm(self, contract: Contract) -> int:
        """Check the seed once in every worker (in parallel); return how many workers answered."""
        runners = [self._idle.get() for _ in range(self.workers)]
        try:
            outs = list(self._threads.map(lambda r: r.check(contract, None, dict(contract.seed)), runners))
        finally:
            for r in runners:
                self._idle.put(r)
        return sum(o.error is None for o in outs)

    def set_deadline(self, at: float | None) -> None:
        """Cut every check still running at `at` (each worker's runner kills its tree there)."""
        runners = [self._idle.get() for _ in range(self.workers)]  # none is mid-check between rounds
        for r in runners:
            r.deadline = at
            self._idle.put(r)

    def close(self) -> None:
        self._threads.shutdown(wait=True, cancel_futures=True)
        while not self._idle.empty():
            self._idle.get().close()


_WORKER_RUNNER: dict[float, ProcessRunner] = {}


def _outcome_bytes(contract: Contract, parent_state, payload) -> bytes:
    return pickle.dumps(check_payload(contract, parent_state, payload), protocol=pickle.HIGHEST_PROTOCOL)


def check_in_child(contract: Contract, parent_state, payload, timeout_s: float, left_s: float | None = None) -> bytes:
    """Run one check in a hardened child of the current (dask worker) process; the dask task function.

    Returns the pickled CheckOutcome: the worker passes the bytes on without unpickling and
    re-pickling the evidence (≈ 45 kB per zeros chunk), and the session unpickles them once.
    Dask's worker processes are daemonic unless started with DASK_DISTRIBUTED__WORKER__DAEMON=False
    (config `distributed.worker.daemon`); a daemonic process may not have children, so there the
    check runs in the worker itself (dask's own task handling then bounds it, without our timeout).
    `left_s`: the session's time left when the task was submitted (clocks differ between hosts, so a
    duration, not a time); a check still running then is cut, as the local runner cuts it.
    """
    if multiprocessing.current_process().daemon:
        return _outcome_bytes(contract, parent_state, payload)
    runner = _WORKER_RUNNER.get(timeout_s)
    if runner is None:
        runner = _WORKER_RUNNER[timeout_s] = ProcessRunner(timeout_s)
    runner.deadline = None if left_s is None else time.monotonic() + left_s  # this host's clock from here
    out = runner.call(_outcome_bytes, (contract, parent_state, payload))
    if out.error is not None or out.raised is not None:  # timed out / died (the tree is killed), or the check raised
        return pickle.dumps(CheckOutcome(error=out.error or f"checker raised {type(out.raised).__name__}: {out.raised}"))
    return out.value


def warm_in_child(contract: Contract, timeout_s: float) -> bool:
    """Check the contract's seed in this (dask worker) process's checker child; True when it answered."""
    return pickle.loads(check_in_child(contract, None, dict(contract.seed), timeout_s)).error is None


def close_worker_runners() -> int:
    """Stop this (dask worker) process's checker children; returns how many were running."""
    n = len(_WORKER_RUNNER)
    for runner in _WORKER_RUNNER.values():
        runner.close()
    _WORKER_RUNNER.clear()
    return n


class DaskCheck:
    """One check as a dask task; `result()` is its CheckOutcome, an error outcome when the task failed for good
    (KilledWorker, cancelled, a worker out of reach), so that the session re-checks it itself."""

    def __init__(self, task) -> None:
        self.task = task  # holding the dask future keeps its task alive

    def result(self, timeout: float | None = None) -> CheckOutcome:
        try:
            blob = self.task.result(timeout)
        except Exception as e:
            return CheckOutcome(error=f"dask task failed: {type(e).__name__}: {e}"[:500])
        return pickle.loads(blob)


class DaskExecutor:
    """Checks as tasks on a dask.distributed scheduler; a lost worker's tasks are re-run elsewhere by dask."""

    def __init__(self, address: str, timeout_s: float, connect_timeout_s: float = 20) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError("--executor dask:// needs the `dask` extra: pip install 'mathloop[dask]'") from None
        self.address = address
        self.timeout_s = timeout_s
        self.client = Client(address, timeout=connect_timeout_s, set_as_default=False)
        self.deadline: float | None = None
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        # A dask round trip is ~11 ms here (scheduler, worker, checker child and back) against a check's
        # 30-100 ms: with 2x the workers in flight they idle between tasks. 4x measured (zeros, 2 workers,
        # 200 chunks, load ~4): 10.7-11.9 chunks/s against 8.8-9.1 with 2x.
        self.in_flight = 4 * self.workers
        self.name = f"dask {address} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def submit(self, contract: Contract, parent_state, payload) -> "DaskCheck":
        left = None if self.deadline is None else self.deadline - time.monotonic()
        return DaskCheck(self.client.submit(check_in_child, contract, parent_state, payload, self.timeout_s, left,
                                            pure=False, retries=2))

    def warm(self, contract: Contract) -> int:
        """Check the seed once in every connected worker's checker child; return how many answered."""
        return sum(bool(v) for v in self.client.run(warm_in_child, contract, self.timeout_s).values())

    def set_deadline(self, at: float | None) -> None:
        """Cut checks still running at `at`: each task carries the time left when it is submitted."""
        self.deadline = at

    def close(self) -> None:
        try:
            self.client.run(close_worker_runners)  # the checker children must not outlive the session
        except Exception:  # a worker already gone has nothing left to stop
            pass
        self.client.close()


def executor_for(spec: str, workers: int, timeout_s: float) -> Executor:
    """Return the executor named by --executor ("local" or "dask://HOST:PORT"). Raises ValueError on a bad spec."""
    if spec == "local":
        return LocalPool(workers, timeout_s)
    if spec.startswith("dask://"):
        hostport = spec.removeprefix("dask://")
        if ":" not in hostport or not hostport.rsplit(":", 1)[1].isdigit():
            raise ValueError(f"--executor: expected dask://HOST:PORT, got {spec!r}")
        return DaskExecutor(f"tcp://{hostport}", timeout_s)
    raise ValueError(f"--executor: unknown executor {spec!r} (local or dask://HOST:PORT)")
