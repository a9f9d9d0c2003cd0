"""Where checks run in parallel: a local pool of hardened worker processes, or a dask.distributed cluster.

A check is a pure function of (contract, parent_state, payload) -> CheckOutcome (runner.check_payload),
so it may run anywhere and be re-run: a worker killed mid-check loses nothing (the local pool
starts a fresh worker and reports the error; dask re-runs the task on another worker), and the
session records each candidate once, when it takes the result. Results are taken in proposal
order by the session, which alone gates and commits.

    executor_for("local", workers=2, timeout_s=600)        # N ProcessRunner workers (default)
    executor_for("dask://127.0.0.1:8786", 0, 600)          # a running dask scheduler (extra `dask`)
"""

from __future__ import annotations

import multiprocessing
import queue
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Mapping, Protocol

from mathloop.contract.model import Contract
from mathloop.search.runner import CheckOutcome, ProcessRunner, check_payload


class Executor(Protocol):
    """Runs checks concurrently; `submit` returns a future of the CheckOutcome."""

    name: str
    workers: int

    def submit(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> Future: ...

    def close(self) -> None: ...


class LocalPool:
    """`workers` persistent checker processes (runner.ProcessRunner: own process group, timeout kills the tree)."""

    def __init__(self, workers: int, timeout_s: float) -> None:
        self.workers = max(1, workers)
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

    def close(self) -> None:
        self._threads.shutdown(wait=True, cancel_futures=True)
        while not self._idle.empty():
            self._idle.get().close()


_WORKER_RUNNER: dict[float, ProcessRunner] = {}


def check_in_child(contract: Contract, parent_state, payload, timeout_s: float) -> CheckOutcome:
    """Run one check in a hardened child of the current (dask worker) process; the dask task function.

    Dask's worker processes are daemonic unless started with DASK_DISTRIBUTED__WORKER__DAEMON=False
    (config `distributed.worker.daemon`); a daemonic process may not have children, so there the
    check runs in the worker itself (dask's own task handling then bounds it, without our timeout).
    """
    if multiprocessing.current_process().daemon:
        return check_payload(contract, parent_state, payload)
    runner = _WORKER_RUNNER.get(timeout_s)
    if runner is None:
        runner = _WORKER_RUNNER[timeout_s] = ProcessRunner(timeout_s)
    return runner.check(contract, parent_state, payload)


def close_worker_runners() -> int:
    """Stop this (dask worker) process's checker children; returns how many were running."""
    n = len(_WORKER_RUNNER)
    for runner in _WORKER_RUNNER.values():
        runner.close()
    _WORKER_RUNNER.clear()
    return n


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
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        self.name = f"dask {address} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def submit(self, contract: Contract, parent_state, payload) -> Future:
        return self.client.submit(check_in_child, contract, parent_state, payload, self.timeout_s, pure=False, retries=2)

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
