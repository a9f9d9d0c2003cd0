"""Check commits off the search loop's critical path: a background thread renders, runs Lean, attests.

The loop only hands over (commit, evidence) and goes on; the commit is `pending` until its attestation
is recorded. `wait()` blocks until every submitted commit has an outcome (a progress callback sees it).
`cancel()` (Ctrl-C, the time limit) stops the checks: what it cut short is recorded nowhere, since a kill
the session caused itself is not a verdict, and those commits stay `pending` for `lean-check` or the next run.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable

from sqlalchemy.engine import Engine

from mathloop.domain import Evidence
from mathloop.lean import attest
from mathloop.lean.commit import Outcome, check_commit
from mathloop.lean.process import kill_active
from mathloop.lean.toolchain import Toolchain, discover

_STOP = object()
STOPPED = "the session stopped Lean before it answered: still pending"


class LeanWorker:
    """A background Lean checker for one session's commits (use as a context manager)."""

    def __init__(self, engine: Engine, contract_sha: str, target: Any,
                 toolchain: Callable[[], Toolchain] = discover) -> None:
        self.engine, self.contract_sha, self.target, self._toolchain = engine, contract_sha, target, toolchain
        self._q: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._cancelled = threading.Event()
        self._recording = threading.Lock()  # an attestation is written whole before cancel() returns, or not at all
        self.submitted = 0
        self.outcomes: dict[str, Outcome] = {}
        self._thread = threading.Thread(target=self._run, name="mathloop-lean", daemon=True)
        self._thread.start()

    def submit(self, commit_hash: str, evidence: Evidence) -> None:
        """Queue one commit for checking (returns at once)."""
        with self._lock:
            self.submitted += 1
        self._q.put((commit_hash, evidence))

    def _check(self, tc: Toolchain, h: str, ev: Evidence) -> Outcome:
        out = check_commit(self.target, h, ev, toolchain=tc)
        if out.attestation is None:
            return out
        with self._recording:
            if self._cancelled.is_set():  # the answer may come from a process cancel() killed: not a verdict
                return Outcome("pending", None, (STOPPED,))
            attest.record(self.engine, self.contract_sha, out.attestation)
        return out

    def _run(self) -> None:
        tc: Toolchain | None = None
        while (job := self._q.get()) is not _STOP:
            h, ev = job
            if self._cancelled.is_set():
                out = Outcome("pending", None, (STOPPED,))
            else:
                try:
                    tc = tc or self._toolchain()
                    out = self._check(tc, h, ev)
                except Exception as e:  # never fatal to the search: the commit stays pending, with the reason
                    out = Outcome("pending", None, (f"{type(e).__name__}: {e}",))
            if out.status == "pending" and self._cancelled.is_set():  # whatever it says, the session cut it
                out = Outcome("pending", None, (STOPPED,))
            with self._done:
                self.outcomes[h] = out
                self._done.notify_all()

    @property
    def finished(self) -> int:
        with self._lock:
            return len(self.outcomes)

    def wait(self, progress: Callable[[int, int], None] | None = None, timeout_s: float | None = None) -> bool:
        """Return True once every submitted commit has an outcome (False if `timeout_s` passed first)."""
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

    def cancel(self, join_s: float = 10) -> int:
        """Stop checking now: kill the running Lean, drop the queue, record nothing more; return how many
        submitted commits got no Lean result (they stay `pending`)."""
        with self._recording:
            self._cancelled.set()
        while True:
            try:
                self._q.get_nowait()
            except queue.Empty:
                break
        self._q.put(_STOP)
        end = time.monotonic() + join_s
        while self._thread.is_alive() and time.monotonic() < end:
            kill_active()  # again and again: the thread may start one more process before it sees the flag
            self._thread.join(timeout=0.05)
        return self.pending()

    def pending(self) -> int:
        """Return how many submitted commits have no Lean result (yet, or for good after cancel())."""
        with self._lock:
            return self.submitted - sum(o.status != "pending" for o in self.outcomes.values())

    def close(self, kill: bool = False) -> None:
        """Stop the thread after the queued work (call wait() first); `kill`: cancel() instead."""
        if kill:
            self.cancel()
            return
        self._q.put(_STOP)
        self._thread.join(timeout=10)

    def __enter__(self) -> "LeanWorker":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
