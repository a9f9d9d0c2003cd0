"""Check commits off the search loop's critical path: a background thread renders, runs Lean, attests.

The loop only hands over (commit, evidence) and goes on; the commit is `pending` until its attestation
is recorded. `wait()` blocks until every submitted commit has an outcome (a progress callback sees it).
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable

from sqlalchemy.engine import Engine

from mathloop.domain import Evidence
from mathloop.lean.commit import Outcome, check_and_record
from mathloop.lean.process import kill_active
from mathloop.lean.toolchain import Toolchain, discover

_STOP = object()


class LeanWorker:
    """A background Lean checker for one session's commits (use as a context manager)."""

    def __init__(self, engine: Engine, contract_sha: str, target: Any,
                 toolchain: Callable[[], Toolchain] = discover) -> None:
        self.engine, self.contract_sha, self.target, self._toolchain = engine, contract_sha, target, toolchain
        self._q: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self.submitted = 0
        self.outcomes: dict[str, Outcome] = {}
        self._thread = threading.Thread(target=self._run, name="mathloop-lean", daemon=True)
        self._thread.start()

    def submit(self, commit_hash: str, evidence: Evidence) -> None:
        """Queue one commit for checking (returns at once)."""
        with self._lock:
            self.submitted += 1
        self._q.put((commit_hash, evidence))

    def _run(self) -> None:
        tc: Toolchain | None = None
        while (job := self._q.get()) is not _STOP:
            h, ev = job
            try:
                tc = tc or self._toolchain()
                out = check_and_record(self.engine, self.contract_sha, self.target, h, ev, toolchain=tc)
            except Exception as e:  # never fatal to the search: the commit stays pending, with the reason
                out = Outcome("pending", None, (f"{type(e).__name__}: {e}",))
            with self._done:
                self.outcomes[h] = out
                self._done.notify_all()

    @property
    def finished(self) -> int:
        with self._lock:
            return len(self.outcomes)

    def wait(self, progress: Callable[[int, int], None] | None = None, timeout_s: float | None = None) -> bool:
        """Return True once every submitted commit has an outcome (False if `timeout_s` passed first)."""
        import time

        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._done:
            while len(self.outcomes) < self.submitted:
                if progress:
                    progress(len(self.outcomes), self.submitted)
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._done.wait(timeout=0.5 if left is None else min(0.5, left))
        if progress:
            progress(len(self.outcomes), self.submitted)
        return True

    def close(self, kill: bool = False) -> None:
        """Stop the thread after the queued work (call wait() first); `kill` also ends a running Lean now."""
        if kill:
            while True:
                try:
                    self._q.get_nowait()
                except queue.Empty:
                    break
            kill_active()
        self._q.put(_STOP)
        self._thread.join(timeout=10)

    def __enter__(self) -> "LeanWorker":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
