"""The one pool of checker children: `workers` persistent ProcessRunners, each check taking an idle one.

The session's executor for `--workers N`, the reward environment's checker processes and `bench` all use
it. Every child is started (and warmed with the contract's seed) when asked, so checking later starts
nothing new, except a fresh child after a timeout kill. Pools still open at exit are closed before
multiprocessing's own exit hooks run.
"""

from __future__ import annotations

import atexit
import multiprocessing.util  # noqa: F401  (registers its exit hook first, so that ours runs before it)
import queue
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterable, Mapping, TypeVar

from mathloop.check.outcome import CheckOutcome
from mathloop.check.runner import ProcessRunner
from mathloop.contract.model import Contract

T = TypeVar("T")
R = TypeVar("R")

_live: "weakref.WeakSet[LocalPool]" = weakref.WeakSet()
_atexit: list[bool] = []


class LocalPool:
    """`workers` checker children on this host (runner.ProcessRunner: own process group, timeout kills the tree).

    Attributes:
        name: shown by `run` ("local pool (2 workers)"); in_flight: proposals per round that keep every
            child busy (a round trip is ~0.5 ms against a check's 30-100 ms: twice the workers).
        authenticated: True: these are the session's own children, whose answers need no re-check.
    """

    authenticated = True

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

    def _run(self, contract: Contract, parent_state, payload) -> CheckOutcome:
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

    def call(self, fn, args: tuple, timeout_s: float | None = None, contract: Contract | None = None):
        """Run `fn(*args)` in an idle child (runner.ProcessRunner.call)."""
        runner = self._idle.get()
        try:
            return runner.call(fn, args, timeout_s, contract)
        finally:
            self._idle.put(runner)

    def submit(self, contract: Contract, parent_state, payload) -> Future:
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
