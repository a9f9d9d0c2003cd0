"""Checks as tasks on a dask.distributed cluster, answered in canonical JSON bytes; nothing a worker sends is unpickled.

A check is a pure function of (contract, parent_state, payload), so it may run anywhere and be re-run. A task
runs the check in a checker child of the worker (check/runner.py) and returns the child's JSON bytes
unread. dask's protocol would unpickle a result, an exception, a result's type or a warning a worker sends
(NOTES.md "dask and pickle"): the Client gets `deserializers=["msgpack"]`, and while an executor is open the
client side of dask in this process refuses every pickle load, so a hostile reply becomes an `error` outcome
that the session re-checks itself, never code run here. The session must therefore not host the scheduler.

    DaskExecutor("tcp://127.0.0.1:8786", timeout_s=600)              # loopback: answers re-checked before commit
    DaskExecutor("tls://host:8786", 600, security=Security(...))     # authenticated: a --recheck share re-checked
"""

from __future__ import annotations

import ipaddress
import multiprocessing
import pickle
import socket
import time
import types
from typing import Any

from mathloop.check.outcome import CheckOutcome, outcome_from_bytes, outcome_to_bytes
from mathloop.check.runner import ProcessRunner, check_payload
from mathloop.contract.model import Contract

_WORKER_RUNNER: dict[float, ProcessRunner] = {}
_GUARDS: list[dict] = []


class PickleRefused(RuntimeError):
    """A dask message from the cluster carried a pickled object; the session does not unpickle it."""


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise PickleRefused("a message from the dask cluster carried a pickled object: refused, not unpickled")


def refuse_pickle_from_dask() -> None:
    """Make the client side of dask in this process refuse every pickle load (until `allow_pickle_again`)."""
    import distributed.client as dclient
    import distributed.protocol.pickle as dpickle

    if not _GUARDS:
        _GUARDS.append({"dpickle.loads": dpickle.loads, "client.loads": dclient.loads, "client.pickle": dclient.pickle})
    dpickle.loads = _refuse
    dclient.loads = _refuse
    dclient.pickle = types.SimpleNamespace(loads=_refuse, dumps=pickle.dumps, HIGHEST_PROTOCOL=pickle.HIGHEST_PROTOCOL)


def allow_pickle_again() -> None:
    """Undo refuse_pickle_from_dask (the last executor of this process closed)."""
    import distributed.client as dclient
    import distributed.protocol.pickle as dpickle

    if _GUARDS:
        saved = _GUARDS.pop()
        dpickle.loads, dclient.loads, dclient.pickle = saved["dpickle.loads"], saved["client.loads"], saved["client.pickle"]


def check_on_worker(contract: Contract, parent_state, payload, timeout_s: float, left_s: float | None = None) -> bytes:
    """Run one check in a checker child of this dask worker; return the child's canonical JSON outcome bytes.

    Dask's worker processes are daemonic unless started with DASK_DISTRIBUTED__WORKER__DAEMON=False; a
    daemonic process may not have children, so there the check runs in the worker itself. `left_s`: the
    session's time left when the task was submitted (clocks differ between hosts, so a duration).
    """
    if multiprocessing.current_process().daemon:
        return outcome_to_bytes(check_payload(contract, parent_state, payload))
    runner = _WORKER_RUNNER.get(timeout_s)
    if runner is None:
        runner = _WORKER_RUNNER[timeout_s] = ProcessRunner(timeout_s)
    runner.deadline = None if left_s is None else time.monotonic() + left_s  # this host's clock from here
    return runner.check_bytes(contract, parent_state, payload)


def warm_on_worker(contract: Contract, timeout_s: float) -> bool:
    """Check the contract's seed in this worker's checker child; True when it answered."""
    return outcome_from_bytes(check_on_worker(contract, None, dict(contract.seed), timeout_s), "worker").error is None


def close_worker_runners() -> int:
    """Stop this worker process's checker children; returns how many were running."""
    n = len(_WORKER_RUNNER)
    for runner in _WORKER_RUNNER.values():
        runner.close()
    _WORKER_RUNNER.clear()
    return n


def is_loopback(host: str) -> bool:
    """Return True when every address `host` resolves to is a loopback address."""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0].split("%")[0]).is_loopback for i in infos)


class DaskCheck:
    """One check as a dask task; `result()` is its CheckOutcome, an error outcome when the task failed, was lost,
    or sent anything but outcome bytes (the session then re-checks the candidate itself)."""

    def __init__(self, executor: "DaskExecutor", task) -> None:
        self.executor, self.task = executor, task  # holding the dask future keeps its task alive

    def result(self, timeout: float | None = None) -> CheckOutcome:
        wait = timeout if timeout is not None else 2 * self.executor.timeout_s + 60  # a refused reply never resolves
        try:
            blob = self.task.result(wait)
            out = outcome_from_bytes(blob, "dask worker")  # inside the try: a reply the parser chokes on is an error
        except Exception as e:  # a refused pickle, a lost worker, a timeout, a bad reply: no answer, never code run here
            return CheckOutcome(error=f"dask task failed: {type(e).__name__}: {str(e)[:300]}", worker=self.executor.name)
        return out.by(f"{self.executor.name} worker {self.worker()}")

    def worker(self) -> str:
        """Return the address of the worker the scheduler says holds the result ("?" when it cannot say)."""
        try:
            who = self.executor.client.who_has(self.task)
            return ",".join(next(iter(who.values()), ())) or "?"
        except Exception:
            return "?"


class NoWorker:
    """A check with no worker to run it: its result is an error outcome at once (the session then checks it itself)."""

    def __init__(self, why: str) -> None:
        self.why = why

    def result(self, timeout: float | None = None) -> CheckOutcome:
        return CheckOutcome(error=self.why)


class DaskExecutor:
    """Checks as tasks on a dask.distributed scheduler; a lost worker's tasks are re-run elsewhere by dask.

    Attributes:
        authenticated: True for tls:// with a client certificate; else every answer that would move the head
            is re-checked in the session before it commits.
    """

    def __init__(self, address: str, timeout_s: float, connect_timeout_s: float = 20, security: Any = None) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError("--executor dask:// needs the `dask` extra: pip install 'mathloop[dask]'") from None
        self.address = address
        self.timeout_s = timeout_s
        self.authenticated = address.startswith("tls://") and security is not None
        refuse_pickle_from_dask()
        try:
            self.client = Client(address, timeout=connect_timeout_s, set_as_default=False, security=security,
                                 deserializers=["msgpack"])
        except BaseException:
            allow_pickle_again()
            raise
        self.deadline: float | None = None
        self.quarantined: set[str] = set()  # worker addresses whose answers disagreed with the session's re-check
        try:
            self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        except Exception:
            self.workers = 1
        # A dask round trip is ~11 ms here against a check's 30-100 ms: 4x the workers in flight keep them busy
        # (zeros, 2 workers, 200 chunks: 10.7-11.9 chunks/s against 8.8-9.1 with 2x).
        self.in_flight = 4 * self.workers
        self.name = f"dask {address} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def submit(self, contract: Contract, parent_state, payload) -> "DaskCheck | NoWorker":
        left = None if self.deadline is None else self.deadline - time.monotonic()
        where = {}
        if self.quarantined:  # a quarantined worker gets no more tasks (none left: the session checks itself)
            try:
                allowed = [w for w in self.client.scheduler_info().get("workers", {}) if w not in self.quarantined]
            except Exception:
                allowed = []
            if not allowed:  # a task restricted to no worker would wait for its whole timeout
                return NoWorker(f"{self.name}: every worker is quarantined")
            where = {"workers": allowed, "allow_other_workers": False}
        return DaskCheck(self, self.client.submit(check_on_worker, contract, parent_state, payload, self.timeout_s,
                                                  left, pure=False, retries=2, **where))

    def quarantine(self, worker: str) -> None:
        """Send `worker` (as DaskCheck.result names it) no more tasks."""
        self.quarantined.add(worker.rsplit(" worker ", 1)[-1])

    def warm(self, contract: Contract) -> int:
        """Check the seed once in every connected worker's checker child; return how many answered."""
        try:
            return sum(v is True for v in self.client.run(warm_on_worker, contract, self.timeout_s).values())
        except Exception:  # only a head start: a worker that fails here fails its checks too, as errors
            return 0

    def set_deadline(self, at: float | None) -> None:
        """Cut checks still running at `at`: each task carries the time left when it is submitted."""
        self.deadline = at

    def set_timeout(self, seconds: float) -> None:
        """Give every check submitted from now on `seconds` (each task carries it)."""
        self.timeout_s = seconds

    def close(self) -> None:
        try:
            self.client.run(close_worker_runners)  # the checker children must not outlive the session
        except Exception:  # a worker already gone (or one whose reply is refused) has nothing left to stop
            pass
        try:
            self.client.close(timeout=10)
        except Exception:  # a connection broken by a refused reply: the session's checks are all taken already
            pass
        finally:
            allow_pickle_again()
