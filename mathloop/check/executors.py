"""Where checks run in parallel: the one local pool of checker children, or a dask.distributed cluster.

    executor_for("local", workers=2, timeout_s=600)                  # N checker children (default)
    executor_for("dask://127.0.0.1:8786", 0, 600)                    # a scheduler on loopback (extra `dask`)
    executor_for("tls://host:8786", 0, tls=TLS(ca, cert, key))       # an authenticated cluster

A Checker owns its executor's timeout (and deadline): it sets both on the executor it is given, so that the
session's own checks and its executor's can never run under different timeouts.

LocalPool is the session's executor for `--workers N`, the reward environment's checker processes and `bench`'s:
`workers` persistent ProcessRunners, each check taking an idle one. Every child is started (and warmed with the
contract's seed) when asked, so checking later starts nothing new, except a fresh child after a timeout kill.
Pools still open at exit are closed before multiprocessing's own exit hooks run.
"""

from __future__ import annotations

import atexit
import multiprocessing.util  # noqa: F401  (registers its exit hook first, so that ours runs before it)
import queue
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol, TypeVar

from mathloop.check.outcome import CheckOutcome
from mathloop.check.runner import CallOutcome, ProcessRunner
from mathloop.contract.model import DEFAULT_CHECK_TIMEOUT_S, Contract

T = TypeVar("T")
R = TypeVar("R")


class Pending(Protocol):
    """A check in flight; `result()` waits for its CheckOutcome."""

    def result(self, timeout: float | None = None) -> CheckOutcome: ...


class Executor(Protocol):
    """Runs checks concurrently; `submit` returns a future of the CheckOutcome.

    `in_flight`: the proposals per round the session keeps submitted so that no worker waits.
    `authenticated`: whether its answers may commit without a re-check in the session.
    """

    name: str
    workers: int
    in_flight: int
    authenticated: bool

    def submit(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> Pending: ...

    def warm(self, contract: Contract) -> int: ...

    def set_deadline(self, at: float | None) -> None:
        """Cut every check still running at `time.monotonic()` value `at` (the session's --time-limit)."""

    def set_timeout(self, seconds: float) -> None:
        """Give every check from now on `seconds` (the Checker's timeout: the contract's, unless overridden)."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class TLS:
    """Certificate files for `--executor tls://…`: the cluster's CA and this client's certificate and key."""

    ca: Path
    cert: Path
    key: Path

    def security(self) -> Any:
        """Return the distributed.security.Security that requires TLS with this client certificate."""
        from distributed.security import Security

        for what, path in (("--tls-ca", self.ca), ("--tls-cert", self.cert), ("--tls-key", self.key)):
            if not Path(path).is_file():
                raise ValueError(f"{what}: {path}: no such file")
        return Security(tls_ca_file=str(self.ca), tls_client_cert=str(self.cert), tls_client_key=str(self.key),
                        require_encryption=True)


def _hostport(spec: str, scheme: str) -> tuple[str, str]:
    hostport = spec.removeprefix(scheme)
    if ":" not in hostport or not (port := hostport.rsplit(":", 1)[1]).isascii() or not port.isdigit():
        raise ValueError(f"--executor: expected {scheme}HOST:PORT, got {spec!r}")
    return hostport.rsplit(":", 1)[0].strip("[]"), hostport


def executor_for(spec: str, workers: int, timeout_s: float = DEFAULT_CHECK_TIMEOUT_S, *, tls: TLS | None = None,
                 insecure: bool = False) -> Executor:
    """Return the executor named by --executor ("local", "dask://HOST:PORT", "tcp://HOST:PORT" or "tls://HOST:PORT").

    Plain tcp is allowed only to a loopback address, or with `insecure` (--insecure-executor). Raises
    ValueError on a bad spec, missing certificates or a plain-tcp address off this host.
    """
    if spec == "local":
        return LocalPool(workers, timeout_s)
    from mathloop.check.dask import DaskExecutor, is_loopback

    if spec.startswith("tls://"):
        _hostport(spec, "tls://")
        if tls is None:
            raise ValueError("--executor tls://: needs --tls-ca, --tls-cert and --tls-key")
        return DaskExecutor(spec, timeout_s, security=tls.security())
    for scheme in ("dask://", "tcp://"):
        if spec.startswith(scheme):
            host, hostport = _hostport(spec, scheme)
            if not insecure and not is_loopback(host):
                raise ValueError(f"--executor: {spec} is plain tcp off this host: use tls:// with certificates, or "
                                 "--insecure-executor to accept unauthenticated workers (their answers are re-checked "
                                 "here before they commit)")
            return DaskExecutor(f"tcp://{hostport}", timeout_s)
    raise ValueError(f"--executor: unknown executor {spec!r} (local, dask://HOST:PORT or tls://HOST:PORT)")


_live: "weakref.WeakSet[LocalPool]" = weakref.WeakSet()
_atexit: list[bool] = []


class LocalPool:
    """`workers` checker children on this host (runner.ProcessRunner: own process group, timeout kills the tree).

    Attributes:
        name: shown by `run` ("local pool (2 workers)"); in_flight: proposals per round that keep every
            child busy (a round trip is ~0.5 ms against a check's 30-100 ms: twice the workers).
        authenticated: True: these are the session's own children, whose answers need no re-check.
        local: True: their `malformed` and `interrupted` answers are the session's own (Checker.take believes them).
    """

    authenticated = True
    local = True

    def __init__(self, workers: int, timeout_s: float, runner: Callable[[float], ProcessRunner] = ProcessRunner) -> None:
        self.workers = max(1, workers)
        self.timeout_s = timeout_s
        self.in_flight = 2 * self.workers
        self.name = f"local pool ({self.workers} worker{'s' if self.workers != 1 else ''})"
        self._runners = [runner(timeout_s) for _ in range(self.workers)]
        self._idle: queue.SimpleQueue[ProcessRunner] = queue.SimpleQueue()
        for r in self._runners:
            self._idle.put(r)
        self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix="mathloop-check")
        self.closed = False
        self._finalizer = weakref.finalize(self, _close_runners, list(self._runners))
        _live.add(self)
        if not _atexit:
            atexit.register(_close_all)
            _atexit.append(True)

    @property
    def size(self) -> int:
        return self.workers

    @property
    def deadline(self) -> float | None:
        return self._runners[0].deadline

    @deadline.setter
    def deadline(self, at: float | None) -> None:
        self.set_deadline(at)

    def pids(self) -> list[int]:
        """Return the process ids of the children running now."""
        return [r.pid for r in self._runners if r.pid is not None]

    def _run(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        runner = self._idle.get()
        try:
            return runner.check(contract, parent_state, payload).by(self.name)
        finally:
            self._idle.put(runner)

    def check(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        """Return the outcome of one check in an idle child (errors are values, never raised)."""
        if self.closed:
            raise RuntimeError("checker pool is closed")
        return self._run(contract, parent_state, payload)

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout_s: float | None = None,
             contract: Contract | None = None) -> CallOutcome:
        """Run `fn(*args)` in an idle child (runner.ProcessRunner.call)."""
        runner = self._idle.get()
        try:
            return runner.call(fn, args, timeout_s, contract)
        finally:
            self._idle.put(runner)

    def submit(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> Future[CheckOutcome]:
        """Return a future of one check's outcome."""
        return self._threads.submit(self._run, contract, parent_state, payload)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Return [fn(x) for x in items], run on up to `size` threads (one per child)."""
        items = list(items)
        if len(items) <= 1 or self.workers == 1:
            return [fn(x) for x in items]
        with ThreadPoolExecutor(max_workers=min(len(items), self.workers)) as pool:
            return list(pool.map(fn, items))

    def warm(self, contract: Contract) -> int:
        """Check the seed once in every child (in parallel); return how many answered."""
        runners = [self._idle.get() for _ in range(self.workers)]
        try:
            outs = list(self._threads.map(lambda r: r.check(contract, None, dict(contract.seed)), runners))
        finally:
            for r in runners:
                self._idle.put(r)
        return sum(o.error is None for o in outs)

    def set_deadline(self, at: float | None) -> None:
        """Cut every check still running at `at` (each child's runner kills its tree there)."""
        for r in self._runners:
            r.deadline = at

    def set_timeout(self, seconds: float) -> None:
        """Give every check from now on `seconds` (each child's runner kills its tree past it)."""
        self.timeout_s = seconds
        for r in self._runners:
            r.timeout_s = seconds

    def close(self) -> None:
        """Stop every child (idempotent)."""
        if self.closed:
            return
        self.closed = True
        self._threads.shutdown(wait=True, cancel_futures=True)
        self._finalizer()


def _close_runners(runners: list[ProcessRunner]) -> None:
    for r in runners:
        r.close()


def _close_all() -> None:
    for pool in list(_live):
        pool.close()
