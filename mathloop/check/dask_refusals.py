"""What the client side of dask in this process may not do while an executor is open: unpickle, or print tracebacks.

dask's protocol would unpickle a result, an exception, a result's type or a warning a worker sends (NOTES.md
"dask and pickle"). While a DaskExecutor is open every pickle load of dask's client side raises PickleRefused
and is counted; distributed's own log records of such a refusal (a traceback each, on stderr) are dropped,
because the executor says it in one line per refused result (DaskCheck.result). A refused message can leave the
client's stream to the scheduler broken, so that the futures it was about never resolve: `refusals()` lets the
executor see that one happened.
"""

from __future__ import annotations

import logging
import pickle
import threading
import time
import types
from typing import Any

REFUSAL = "a message from the dask cluster carried a pickled object: refused, not unpickled"
MSGPACK_ONLY = "only able to deserialize data with ['msgpack']"  # distributed's words when deserializers refuse

_GUARDS: list[dict[str, Any]] = []
_lock = threading.Lock()
_count = [0, 0.0]  # refusals so far in this process, and the monotonic time of the last one


class PickleRefused(RuntimeError):
    """A dask message from the cluster carried a pickled object; the session does not unpickle it."""


def _refuse(*args: Any, **kwargs: Any) -> Any:
    with _lock:
        _count[0] += 1
        _count[1] = time.monotonic()
    raise PickleRefused(REFUSAL)


def refusals() -> tuple[int, float]:
    """Return (how many pickle loads were refused in this process, monotonic time of the last one)."""
    with _lock:
        return int(_count[0]), float(_count[1])


def is_refusal(e: BaseException | None) -> bool:
    """Return True when `e` (or what caused it) is a refused pickle or distributed's msgpack-only refusal."""
    seen = 0
    while e is not None and seen < 10:
        if isinstance(e, PickleRefused) or (isinstance(e, TypeError) and MSGPACK_ONLY in str(e)):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


class _DropRefusals(logging.Filter):
    """Drop distributed's log records about a refused message: the executor reports each in one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        text = record.getMessage() if isinstance(record.msg, str) else ""
        return not (is_refusal(exc) or REFUSAL in text or MSGPACK_ONLY in text or text == "Failed to deserialize")


_FILTER = _DropRefusals()


def _distributed_handlers() -> list[logging.Handler]:
    """Return the handlers of distributed's loggers (its config gives some of them their own) and the root's."""
    names = ["", *(n for n in list(logging.root.manager.loggerDict) if n == "distributed" or n.startswith("distributed."))]
    seen: list[logging.Handler] = []
    for name in names:
        for h in getattr(logging.getLogger(name), "handlers", []):
            if h not in seen:
                seen.append(h)
    return seen


def refuse_pickle_from_dask() -> None:
    """Make the client side of dask in this process refuse every pickle load (until `allow_pickle_again`), and
    keep distributed's tracebacks about those refusals off stderr."""
    import distributed.client as dclient
    import distributed.protocol.pickle as dpickle

    if not _GUARDS:
        _GUARDS.append({"dpickle.loads": dpickle.loads, "client.loads": getattr(dclient, "loads"),
                        "client.pickle": getattr(dclient, "pickle")})
    # distributed's own names, replaced in place (setattr: they are its imports, not its declared API)
    dpickle.loads = _refuse
    setattr(dclient, "loads", _refuse)
    setattr(dclient, "pickle", types.SimpleNamespace(loads=_refuse, dumps=pickle.dumps,
                                                     HIGHEST_PROTOCOL=pickle.HIGHEST_PROTOCOL))
    for h in _distributed_handlers():
        h.addFilter(_FILTER)
    if logging.lastResort is not None:
        logging.lastResort.addFilter(_FILTER)


def allow_pickle_again() -> None:
    """Undo refuse_pickle_from_dask (the last executor of this process closed)."""
    import distributed.client as dclient
    import distributed.protocol.pickle as dpickle

    if _GUARDS:
        saved = _GUARDS.pop()
        dpickle.loads = saved["dpickle.loads"]
        setattr(dclient, "loads", saved["client.loads"])
        setattr(dclient, "pickle", saved["client.pickle"])
    for h in _distributed_handlers():
        h.removeFilter(_FILTER)
    if logging.lastResort is not None:
        logging.lastResort.removeFilter(_FILTER)
