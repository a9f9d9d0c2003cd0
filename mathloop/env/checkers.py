"""A pool of checker child processes (the runner's ProcessRunner), started eagerly, shared by environments."""

from __future__ import annotations

import atexit
import multiprocessing.util  # noqa: F401  (registers its exit hook first, so that ours runs before it)
import queue
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Mapping, TypeVar

from mathloop.contract import Contract
from mathloop.search.runner import CheckOutcome, ProcessRunner

T = TypeVar("T")
R = TypeVar("R")

_live: "weakref.WeakSet[CheckerPool]" = weakref.WeakSet()
_atexit_registered = False


def _close_all() -> None:
    for pool in list(_live):
        pool.close()


class CheckerPool:
    """`workers` persistent checker processes with the contract's timeout; each check takes an idle one.

    Every process is started (and so every file multiprocessing needs is created) in the
    constructor: checking later starts nothing new, except a fresh process after a timeout kill.
    """

    def __init__(self, contract: Contract, timeout_s: float, workers: int = 1, start_method: str | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers: must be >= 1, got {workers}")
        self.contract, self.timeout_s = contract, timeout_s
        kwargs = {} if start_method is None else {"start_method": start_method}
        self._runners = [ProcessRunner(timeout_s, **kwargs) for _ in range(workers)]
        self._idle: queue.SimpleQueue[ProcessRunner] = queue.SimpleQueue()
        for r in self._runners:
            self._idle.put(r)
        self.closed = False
        # Stops the processes when the pool becomes unreachable (an environment dropped without close()).
        self._finalizer = weakref.finalize(self, _close_runners, list(self._runners))
        _register(self)
        try:
            self.map(lambda _: self.check(None, dict(contract.seed)), range(workers))
        except BaseException:
            self.close()
            raise

    @property
    def size(self) -> int:
        return len(self._runners)

    def check(self, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        """Return the outcome of one check in an idle child process (errors are values, never raised)."""
        if self.closed:
            raise RuntimeError("checker pool is closed")
        runner = self._idle.get()
        try:
            return runner.check(self.contract, parent_state, payload)
        finally:
            self._idle.put(runner)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Return [fn(x) for x in items], run on up to `size` threads (one per child process)."""
        items = list(items)
        if len(items) <= 1 or self.size == 1:
            return [fn(x) for x in items]
        with ThreadPoolExecutor(max_workers=min(len(items), self.size)) as pool:
            return list(pool.map(fn, items))

    def close(self) -> None:
        """Stop every child process (idempotent)."""
        if self.closed:
            return
        self.closed = True
        self._finalizer()


def _close_runners(runners: list[ProcessRunner]) -> None:
    for r in runners:
        r.close()


def _register(pool: CheckerPool) -> None:
    """Close live pools at exit, before multiprocessing joins its (non-daemon) children."""
    global _atexit_registered
    _live.add(pool)
    if not _atexit_registered:
        atexit.register(_close_all)
        _atexit_registered = True
