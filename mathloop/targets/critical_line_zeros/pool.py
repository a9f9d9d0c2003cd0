"""A lazily created, persistent process pool shared by the checker and the proposer.

Results are always collected in submission order, so output never depends on the worker
count. Inside a daemonic process (which may not have children) work runs serially.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence

from mathloop.children import fork_is_safe, pool_lifeline

_POOL: ProcessPoolExecutor | None = None
_POOL_SIZE = 0
_LIFELINE = None  # the pool workers' lifeline to this process (mathloop/children.py)


def default_workers() -> int:
    """Return the worker count: $MATHLOOP_WORKERS if set, else the number of usable cores."""
    env = os.environ.get("MATHLOOP_WORKERS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def _pool(workers: int) -> ProcessPoolExecutor:
    global _POOL, _POOL_SIZE, _LIFELINE
    if _POOL is None or _POOL_SIZE != workers:
        shutdown()
        # fork is cheapest, but forking a process that runs other threads (a live progress bar)
        # can copy held locks into the child; then a clean forkserver is used instead.
        method = "fork" if fork_is_safe() else "forkserver"
        # Pool workers die with the process that started them (kill -9 of the session included).
        init, initargs, _LIFELINE = pool_lifeline()
        _POOL = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                                    initializer=init, initargs=initargs)
        _POOL_SIZE = workers
    return _POOL


def shutdown() -> None:
    """Stop the shared pool (idempotent)."""
    global _POOL, _POOL_SIZE, _LIFELINE
    if _POOL is not None:
        _POOL.shutdown(wait=True, cancel_futures=True)
    if _LIFELINE is not None:
        _LIFELINE.close()
    _POOL, _POOL_SIZE, _LIFELINE = None, 0, None


atexit.register(shutdown)


def map_ordered(fn: Callable[[Any], Any], jobs: Sequence[Any], workers: int | None = None) -> list[Any]:
    """Return [fn(job) for job in jobs], computed on up to `workers` processes, in job order."""
    workers = default_workers() if workers is None else workers
    if workers <= 1 or len(jobs) <= 1 or multiprocessing.current_process().daemon:
        return [fn(j) for j in jobs]
    return list(_pool(workers).map(fn, jobs))


def split(items: Sequence[Any], parts: int) -> list[list[Any]]:
    """Return `items` cut into at most `parts` contiguous, near-equal, non-empty slices.

    >>> split([1, 2, 3, 4, 5], 2)
    [[1, 2, 3], [4, 5]]
    """
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out, i = [], 0
    for k in range(parts):
        n = size + (1 if k < extra else 0)
        out.append(list(items[i : i + n]))
        i += n
    return [s for s in out if s]
