"""Checks as tasks on a dask.distributed cluster, answered in canonical JSON bytes; nothing a worker sends is unpickled.

A check is a pure function of (contract, parent_state, payload), so it may run anywhere and be re-run. A task
runs the check in a checker child of the worker (check/runner.py) and returns the child's JSON bytes
unread. dask's protocol would unpickle a result, an exception, a result's type or a warning a worker sends
(NOTES.md "dask and pickle"): the Client gets `deserializers=["msgpack"]`, and while an executor is open the
client side of dask in this process refuses every pickle load (check/dask_refusals.py), so a hostile reply
becomes an `error` outcome that the session re-checks itself, never code run here, reported in one line on
stderr. A refusal can break the client's stream to the scheduler: the executor then sends no more tasks (the
session checks every candidate itself), and nothing waits past the session's deadline, closing included.
The session must therefore not host the scheduler.

    DaskExecutor("tcp://127.0.0.1:8786", timeout_s=600)              # loopback: answers re-checked before commit
    DaskExecutor("tls://host:8786", 600, security=Security(...))     # authenticated: a --recheck share re-checked
"""

from __future__ import annotations

import ipaddress
import logging
import multiprocessing
import socket
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping

from mathloop.check.dask_refusals import PickleRefused, allow_pickle_again, is_refusal, refusals, refuse_pickle_from_dask
from mathloop.check.outcome import CheckOutcome, outcome_from_bytes, outcome_to_bytes
from mathloop.check.runner import ProcessRunner, check_payload
from mathloop.contract.model import Contract

if TYPE_CHECKING:
    from distributed import Future

__all__ = ["DaskCheck", "DaskExecutor", "NoWorker", "PickleRefused", "check_on_worker", "close_worker_runners",
           "is_loopback", "warm_on_worker"]

_WORKER_RUNNER: dict[float, ProcessRunner] = {}
_log = logging.getLogger(__name__)  # one line per refused result; no handler set: Python prints the bare message
POLL_S = 0.2        # how often a waiting check looks at the deadline and at refusals
STALLED_S = 1.0     # a future still unresolved this long after a refusal waits on a broken stream
CUT_GRACE_S = 1.0   # past the deadline a task's own cut answer may still be on its way
CLOSE_S = 3.0       # each step of closing the client waits at most this long


def check_on_worker(contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any, timeout_s: float, left_s: float | None = None) -> bytes:
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
    return bool(infos) and all(ipaddress.ip_address(str(i[4][0]).split("%")[0]).is_loopback for i in infos)


class DaskCheck:
    """One check as a dask task; `result()` is its CheckOutcome, an error outcome when the task failed, was lost,
    was refused, or sent anything but outcome bytes (the session then re-checks the candidate itself), and an
    `interrupted` one when the session's deadline passed first."""

    def __init__(self, executor: "DaskExecutor", task: Future[bytes]) -> None:
        self.executor, self.task = executor, task  # holding the dask future keeps its task alive
        self.refused_before = refusals()[0]

    def result(self, timeout: float | None = None) -> CheckOutcome:
        ex = self.executor
        end = time.monotonic() + (timeout if timeout is not None else 2 * ex.timeout_s + 60)
        deadline = getattr(ex, "deadline", None)
        if deadline is not None:
            end = min(end, deadline + CUT_GRACE_S)
        while True:
            try:
                blob = self.task.result(max(0.01, min(POLL_S, end - time.monotonic())))
                out = outcome_from_bytes(blob, "dask worker")  # inside the try: a reply the parser chokes on is an error
                break
            except TimeoutError:
                now = time.monotonic()
                count, last = refusals()
                if count > self.refused_before and now - last >= STALLED_S:  # its stream broke at the refusal
                    return self._refused("no reply since a refused message broke the stream to the scheduler")
                if now < end:
                    continue
                if deadline is not None and now >= deadline:
                    return CheckOutcome(error="cut at the session's time limit", interrupted=True, worker=ex.name)
                return CheckOutcome(error="dask task failed: no reply in time", worker=ex.name)
            except Exception as e:  # a refused pickle, a lost worker, a bad reply: no answer, never code run here
                if is_refusal(e):
                    return self._refused("its reply carried a pickled object")
                return CheckOutcome(error=f"dask task failed: {type(e).__name__}: {str(e)[:300]}", worker=ex.name)
        return out.by(f"{ex.name} worker {self.worker()}")

    def _refused(self, why: str) -> CheckOutcome:
        """Return the error outcome of a refused reply, said in one line on stderr; the executor sends no more."""
        mark = getattr(self.executor, "refused", None)
        if mark is not None:
            mark(why)
        _log.warning("dask: refused a check's reply (%s); nothing was unpickled; this session checks that candidate "
                     "itself and sends the cluster no more tasks", why)
        return CheckOutcome(error=f"dask task failed: refused: {why}", worker=self.executor.name)

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
        self.broken: str | None = None  # why no more tasks go to this cluster (a refused message)
        self.quarantined: set[str] = set()  # worker addresses whose answers disagreed with the session's re-check
        try:
            self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        except Exception:
            self.workers = 1
        # A dask round trip is ~11 ms here against a check's 30-100 ms: 4x the workers in flight keep them busy
        # (zeros, 2 workers, 200 chunks: 10.7-11.9 chunks/s against 8.8-9.1 with 2x).
        self.in_flight = 4 * self.workers
        self.name = f"dask {address} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def submit(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> "DaskCheck | NoWorker":
        if self.broken is not None:
            return NoWorker(f"{self.name}: no more tasks: {self.broken}")
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

    def refused(self, why: str) -> None:
        """Send this cluster no more tasks: a refused message may have broken the client's stream."""
        self.broken = self.broken or f"a reply was refused ({why})"

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
        """Stop the workers' checker children and close the client, each step bounded (CLOSE_S), never later: a
        client left `closing` would wait again in its __del__ at exit (40 s)."""
        client = self.client
        if self.broken is None:  # over a broken stream the request would only wait
            _bounded(lambda: client.run(close_worker_runners), CLOSE_S)  # checker children must not outlive us
        _bounded(lambda: client.close(timeout=CLOSE_S), CLOSE_S + 1)
        if client.status != "closed":  # timed out or failed: stop its event loop and mark it closed for good
            client.status = "closed"
            runner = getattr(client, "_loop_runner", None)
            if runner is not None:
                _bounded(runner.stop, CLOSE_S)
        allow_pickle_again()


def _bounded(step: Callable[[], Any], seconds: float) -> None:
    """Run `step` in a daemon thread and wait at most `seconds` for it; its errors are ignored (best effort)."""
    def run() -> None:
        try:
            step()
        except Exception:  # a worker already gone, a broken stream: nothing more to do there
            pass

    t = threading.Thread(target=run, name="mathloop-dask-close", daemon=True)
    t.start()
    t.join(seconds)
