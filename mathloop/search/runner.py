"""Run a target's check on a candidate, in-process or in a killable worker process with a timeout.

This is the one place where a checker's failure to answer (timeout, crash, bug) becomes a
value: CheckOutcome.error. Refusals are not failures; they come back inside the Evidence.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import traceback
from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from mathloop.children import Lifeline, die_with_parent, kill_group, start_reaper
from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.targets import build_target
from mathloop.targets.base import CheckerCrash, Malformed


@dataclass(frozen=True)
class CheckOutcome:
    """Exactly one of: evidence, malformed (the payload's fault), error (the checker's)."""

    evidence: Evidence | None = None
    malformed: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class CallOutcome:
    """What a function run in the worker gave: its value, the exception it raised, or why it gave nothing."""

    value: Any = None
    raised: BaseException | None = None
    error: str | None = None


_CALL = "mathloop/call"


def _call(fn, args) -> CallOutcome:
    try:
        return CallOutcome(value=fn(*args))
    except Exception as e:  # returned as a value: the caller decides what an exception means
        return CallOutcome(raised=e)


def check_payload(contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
    """Parse and check one payload; turn every failure to answer into CheckOutcome.error."""
    try:
        target = _target_for(contract)
    except Exception as e:  # e.g. a target this process cannot import: no verdict, and the session goes on
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return CheckOutcome(error=f"target could not be built: {tb}")
    try:
        candidate = target.parse(payload)
    except Malformed as e:
        return CheckOutcome(malformed=str(e))
    except Exception as e:  # a parser bug on odd input: an error record, never a crashed session
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return CheckOutcome(error=f"parser crashed: {tb}")
    try:
        return CheckOutcome(evidence=target.check(parent_state, candidate))
    except CheckerCrash as e:
        return CheckOutcome(error=f"checker could not answer: {e}")
    except Exception as e:  # a checker bug must never become a verdict, nor stop the session
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return CheckOutcome(error=f"checker crashed: {tb}")


_TARGETS: dict[str, Any] = {}


def _target_for(contract: Contract):
    t = _TARGETS.get(contract.sha256)
    if t is None:
        t = _TARGETS[contract.sha256] = build_target(contract)
    return t


class CheckRunner(Protocol):
    """Runs checks. `check` never raises for checker failures; `close` releases workers."""

    def check(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome: ...

    def close(self) -> None: ...


class InProcessRunner:
    """Checks in the calling process: fastest, but a hung checker hangs the session. For tests and audit."""

    def check(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        return check_payload(contract, parent_state, payload)

    def close(self) -> None:
        pass


def _worker(conn, lifeline) -> None:
    os.setsid()  # own process group, so that a timeout kills the checker's children too
    start_reaper(lifeline)  # when the session dies, however it dies, our whole group is killed
    die_with_parent()  # and we go at once when our parent (the forkserver or the session) exits
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        if job[0] == _CALL:
            conn.send(_call(job[1], job[2]))
        else:
            conn.send(check_payload(*job))


def cut_at_time_limit(after_s: float) -> str:
    """Return the error recorded for a check cut at the session's --time-limit after `after_s` seconds."""
    return f"check stopped at the session's time limit after {after_s:.1f} s (process tree killed)"


class ProcessRunner:
    """Checks in one persistent worker process; a check past `timeout_s` kills the worker's whole
    process group and is reported as an error, and the next check starts a fresh worker.

    The worker and everything it starts die with the session (mathloop/children.py): a lifeline
    pipe only the session holds, a parent-death signal, and the worker's own process group.
    """

    def __init__(self, timeout_s: float, start_method: str = "forkserver") -> None:
        # forkserver by default: forking a process that runs a live progress thread can deadlock.
        self.timeout_s = timeout_s
        # A session's --time-limit as a time.monotonic() instant: a check still running then is cut
        # there (an `error`), so that the session's clean stop is never a whole check timeout late.
        self.deadline: float | None = None
        self._ctx = mp.get_context(start_method)
        self._proc = None
        self._conn = None
        self._lifeline: Lifeline | None = None

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._lifeline = Lifeline()
        self._proc = self._ctx.Process(target=_worker, args=(child, self._lifeline.reader), daemon=False,
                                       name="mathloop-checker")
        self._proc.start()
        child.close()
        self._lifeline.after_start()
        self._conn = parent

    def _kill(self) -> None:
        if self._proc is not None and self._proc.pid is not None:
            kill_group(self._proc.pid)  # the worker leads its own group (setsid)
            try:
                self._proc.kill()  # in case it had not reached setsid yet
            except (ProcessLookupError, OSError):
                pass
            self._proc.join(timeout=5)
        self._release()

    def _release(self) -> None:
        if self._lifeline is not None:
            self._lifeline.close()
        self._proc = self._conn = self._lifeline = None

    def check(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        return self._bounded((contract, parent_state, payload), self.timeout_s, CheckOutcome)

    def call(self, fn, args: tuple, timeout_s: float | None = None) -> CallOutcome:
        """Run the picklable top-level `fn(*args)` in the worker under the same kill-the-tree timeout."""
        return self._bounded((_CALL, fn, args), self.timeout_s if timeout_s is None else timeout_s, CallOutcome)

    def _bounded(self, job: tuple, timeout_s: float, outcome):
        """Run `job` under `timeout_s`, or only until `deadline` when that comes first (the error then says so)."""
        left = None if self.deadline is None else max(self.deadline - time.monotonic(), 1.0)
        if left is None or left >= timeout_s:
            return self._job(job, timeout_s, outcome)
        out = self._job(job, left, outcome)
        if out.error is not None and out.error.startswith("checker timed out"):
            return outcome(error=cut_at_time_limit(left))
        return out

    def _job(self, job: tuple, timeout_s: float, outcome):
        if self._proc is None or not self._proc.is_alive():
            self._start()
        try:
            self._conn.send(job)
            if not self._conn.poll(timeout_s):
                self._kill()
                return outcome(error=f"checker timed out after {timeout_s:g} s (process tree killed)")
            try:
                return self._conn.recv()
            except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
                raise
            except Exception as e:  # the reply arrived but cannot be unpickled here (e.g. an exception type)
                self._kill()
                return outcome(error=f"checker's reply could not be read: {type(e).__name__}: {str(e)[:200]}")
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError) as e:
            code = self._proc.exitcode if self._proc else None
            self._kill()
            return outcome(error=f"checker process died (exit code {code}): {type(e).__name__}")

    def close(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            try:
                self._conn.send(None)
                self._proc.join(timeout=2)
            except (BrokenPipeError, OSError):
                pass
        if self._proc is not None and self._proc.is_alive():
            self._kill()
        self._release()
