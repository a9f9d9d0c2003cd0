"""Run a target's check on a candidate, in-process or in a killable checker child with a timeout.

This is the one place where a checker's failure to answer (timeout, crash, bug) becomes a value:
CheckOutcome.error. Refusals are not failures; they come back inside the Evidence. A child is a clean
interpreter (check/child.py) that answers in canonical JSON; its start-up (interpreter, imports, the
target's own imports) is waited for separately and never counted in a check's timeout.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

from mathloop.bounded import StrictJSONError, strict_loads
from mathloop.check.frames import FrameClosed, FrameTimeout, FrameTooLarge, read_frame, write_frame
from mathloop.check.outcome import MAX_OUTCOME_BYTES, CheckOutcome, outcome_from_bytes
from mathloop.children import Lifeline, die_with_parent, kill_group
from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.targets import build_target
from mathloop.targets.base import Target
from mathloop.targets.errors import CertificateError, CheckerCrash, Malformed

STARTUP_S = 120.0  # a fresh interpreter plus a target's imports; ~1-2 s here, far more on a loaded machine


@dataclass(frozen=True)
class CallOutcome:
    """What a function run in the child gave: its JSON value, the exception it raised, or why it gave nothing."""

    value: Any = None
    raised: BaseException | None = None
    error: str | None = None


class RemoteError(Exception):
    """An exception a child raised, carried back by name and message only."""


_KNOWN_RAISED = {c.__name__: c for c in (CertificateError, CheckerCrash, Malformed)}


def check_payload(contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
    """Parse and check one payload; turn every failure to answer into CheckOutcome.error."""
    try:
        target = _target_for(contract)
    except Exception as e:  # e.g. a target this process cannot import: no verdict, and the session goes on
        return CheckOutcome(error=f"target could not be built: {_one_line(e)}")
    try:
        candidate = target.parse(payload)
    except Malformed as e:
        return CheckOutcome(malformed=str(e))
    except Exception as e:  # a parser bug on odd input: an error record, never a crashed session
        return CheckOutcome(error=f"parser crashed: {_one_line(e)}")
    try:
        evidence = target.check(parent_state, candidate)
    except CheckerCrash as e:
        return CheckOutcome(error=f"checker could not answer: {e}")
    except Exception as e:  # a checker bug must never become a verdict, nor stop the session
        return CheckOutcome(error=f"checker crashed: {_one_line(e)}")
    if not isinstance(evidence, Evidence):  # a plug-in returning a dict: refused here, whoever reads it
        return CheckOutcome(error=f"checker returned {type(evidence).__name__}, not Evidence")
    return CheckOutcome(evidence=evidence)


def _one_line(e: BaseException) -> str:
    return traceback.format_exception_only(type(e), e)[-1].strip()


_TARGETS: dict[str, Target] = {}


def _target_for(contract: Contract) -> Target:
    t = _TARGETS.get(contract.sha256)
    if t is None:
        t = _TARGETS[contract.sha256] = build_target(contract)
    return t


def prepare(contract: Contract) -> str | None:
    """Build the contract's target in this process (its imports and caches); return why not, or None."""
    try:
        _target_for(contract)
    except Exception as e:
        return f"target could not be built: {_one_line(e)}"
    return None


class CheckRunner(Protocol):
    """Runs checks. `check` never raises for checker failures; `close` releases workers; a check still running at
    `deadline` (a time.monotonic() instant; None: none) is cut there."""

    deadline: float | None

    def check(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome: ...

    def close(self) -> None: ...


class InProcessRunner:
    """Checks in the calling process: fastest, but a hung checker hangs the session. For tests and audit."""

    deadline: float | None = None

    def check(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        return check_payload(contract, parent_state, payload)

    def close(self) -> None:
        pass


def cut_at_time_limit(after_s: float) -> str:
    """Return the error recorded for a check cut at the session's --time-limit after `after_s` seconds."""
    return f"check stopped at the session's time limit after {after_s:.1f} s (process tree killed)"


def _hello() -> bytes:
    from mathloop.targets.registry import registered

    try:
        reg = {k: (v.spec, v.distribution) for k, v in registered().items()}
    except Exception:  # the child loads the entry points itself
        reg = {}
    return pickle.dumps({"sys_path": list(sys.path), "registry": reg})


class ProcessRunner:
    """Checks in one persistent checker child; a check past `timeout_s` kills the child's whole process
    group and is reported as an error, and the next check starts a fresh child.

    The child and everything it starts die with the session (mathloop/children.py): a lifeline pipe
    only the session holds, a parent-death signal, and the child's own process group.
    `start_method` is accepted for older callers and ignored: a child is always a fresh interpreter.
    """

    def __init__(self, timeout_s: float, start_method: str | None = None, startup_s: float = STARTUP_S) -> None:
        self.timeout_s = timeout_s
        self.startup_s = startup_s
        # A session's --time-limit as a time.monotonic() instant: a check still running then is cut
        # there (interrupted), so that the session's clean stop is never a whole check timeout late.
        self.deadline: float | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._to: int | None = None  # the job pipe's write end, the outcome pipe's read end
        self._from: int | None = None
        self._lifeline: Lifeline | None = None
        self._prepared: set[str] = set()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> str | None:
        """Start a child and wait for it to be ready (not counted in any check's timeout); return why not."""
        job_r, job_w = os.pipe()
        out_r, out_w = os.pipe()
        self._lifeline = Lifeline()
        life = self._lifeline.reader.fileno()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "mathloop.check.child", str(job_r), str(out_w), str(life)],
                pass_fds=(job_r, out_w, life), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=die_with_parent, close_fds=True)
        except OSError as e:
            for fd in (job_r, job_w, out_r, out_w):
                os.close(fd)
            self._release()
            return f"checker child could not start: {e}"
        finally:
            if self._proc is not None:
                os.close(job_r)
                os.close(out_w)
                self._lifeline.after_start()
        os.set_blocking(job_w, False)
        self._to, self._from = job_w, out_r
        self._prepared = set()
        until = self._until(self.startup_s)
        try:
            write_frame(job_w, _hello(), until)
            reply = read_frame(out_r, 4096, until)
        except (FrameTimeout, FrameClosed, FrameTooLarge) as e:
            self._kill()
            return f"checker child did not start within {self.startup_s:g} s ({type(e).__name__})"
        if reply != b'{"ready":true}':
            self._kill()
            return "checker child sent an unexpected greeting"
        return None

    def _until(self, seconds: float) -> float:
        until = time.monotonic() + seconds
        return until if self.deadline is None else min(until, max(self.deadline, time.monotonic() + 1.0))

    def _kill(self) -> None:
        if self._proc is not None:
            kill_group(self._proc.pid)  # the child leads its own group (start_new_session)
            try:
                self._proc.kill()
            except (ProcessLookupError, OSError):
                pass
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self._release()

    def _release(self) -> None:
        for fd in (self._to, self._from):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self._lifeline is not None:
            self._lifeline.close()
        self._proc = self._to = self._from = self._lifeline = None

    def _ready(self, contract: Contract | None) -> str | None:
        """Return why no child is ready to check `contract` now (start-up and the target's imports are not
        counted in the check's timeout), or None."""
        if self._proc is None or self._proc.poll() is not None:
            if self._proc is not None:
                self._release()
            why = self._start()
            if why:
                return why
        if contract is None or contract.sha256 in self._prepared:
            return None
        reply = self._exchange(("prepare", contract), self._until(self.startup_s), 4096)
        if isinstance(reply, str):
            return reply
        try:
            data = strict_loads(reply.decode("utf-8"))
        except (StrictJSONError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict) or data.get("ready") is not True:
            return str(data.get("error"))[:500] if isinstance(data, dict) else "checker child sent an unreadable reply"
        self._prepared.add(contract.sha256)
        return None

    def _exchange(self, job: tuple[Any, ...], until: float, cap: int) -> bytes | str:
        """Return the child's reply bytes, or a string saying why there is none (the child is then killed)."""
        if self._to is None or self._from is None:  # _ready starts a child first
            return "checker child is not running"
        try:
            write_frame(self._to, pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL), until)
            return read_frame(self._from, cap, until)
        except FrameTimeout:
            self._kill()
            return "timeout"
        except (FrameClosed, FrameTooLarge) as e:
            code = self._proc.poll() if self._proc is not None else None
            self._kill()
            return f"checker process died (exit code {code}): {type(e).__name__}"

    def _bounded(self, job: tuple[Any, ...], contract: Contract | None, timeout_s: float, cap: int) -> bytes | CheckOutcome:
        """Run `job` under `timeout_s`, or only until the deadline when that comes first; return the reply bytes,
        or the error outcome."""
        started = time.monotonic()
        why = self._ready(contract)
        if why:
            if self.deadline is not None and time.monotonic() >= self.deadline:  # the start-up was cut, not the check
                return CheckOutcome(error=cut_at_time_limit(time.monotonic() - started) + " while its checker "
                                    "process started", interrupted=True)
            return CheckOutcome(error=why)
        now = time.monotonic()
        left = timeout_s if self.deadline is None else min(max(self.deadline - now, 1.0), timeout_s)
        reply = self._exchange(job, now + left, cap)
        if reply == "timeout":
            if left < timeout_s:  # cut at the session's deadline, not timed out
                return CheckOutcome(error=cut_at_time_limit(left), interrupted=True)
            return CheckOutcome(error=f"checker timed out after {timeout_s:g} s (process tree killed)")
        if isinstance(reply, str):
            return CheckOutcome(error=reply)
        return reply

    def check_bytes(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> bytes:
        """Return the child's canonical JSON outcome bytes, unread (what a dask worker passes on)."""
        from mathloop.check.outcome import outcome_to_bytes

        reply = self._bounded(("check", contract, parent_state, payload), contract, self.timeout_s, MAX_OUTCOME_BYTES)
        return reply if isinstance(reply, bytes) else outcome_to_bytes(reply)

    def check(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        """Return the outcome of one check in the child (errors are values, never raised)."""
        return outcome_from_bytes(self.check_bytes(contract, parent_state, payload), "checker child")

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout_s: float | None = None, contract: Contract | None = None) -> CallOutcome:
        """Run the importable top-level `fn(*args)` in the child under the same kill-the-tree timeout; its value
        comes back as JSON, an exception by type name and message."""
        reply = self._bounded(("call", fn, args), contract, self.timeout_s if timeout_s is None else timeout_s,
                              MAX_OUTCOME_BYTES)
        if isinstance(reply, CheckOutcome):
            return CallOutcome(error=reply.error)
        try:
            data = strict_loads(reply.decode("utf-8"))
        except (StrictJSONError, UnicodeDecodeError) as e:
            return CallOutcome(error=f"checker's reply could not be read: {str(e)[:200]}")
        if isinstance(data, dict) and set(data) == {"value"}:
            return CallOutcome(value=data["value"])
        if isinstance(data, dict) and isinstance(data.get("raised"), dict):
            r = data["raised"]
            cls = _KNOWN_RAISED.get(r.get("type"), RemoteError)
            return CallOutcome(raised=cls(str(r.get("message"))))
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            return CallOutcome(error=data["error"][:500])
        return CallOutcome(error="checker's reply could not be read")

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None and self._to is not None:
            try:
                write_frame(self._to, pickle.dumps(None), time.monotonic() + 2)
                self._proc.wait(timeout=2)
            except (FrameTimeout, FrameClosed, subprocess.TimeoutExpired):
                pass
        if self._proc is not None and self._proc.poll() is None:
            self._kill()
        self._release()


def read_certificate_json(path: Path | str) -> Any:
    """Return the strict JSON of a file named by a manifest (the bounded reader handed to the target).

    Raises:
        CertificateError: the file is too large, not a regular file, not UTF-8 or not strict JSON.
    """
    from mathloop.bounded import MAX_CANDIDATE_BYTES, InputError, read_json

    try:
        return read_json(path, MAX_CANDIDATE_BYTES, "file")
    except InputError as e:
        raise CertificateError(str(e).removeprefix("file ")) from None


def verify_chain(contract: Contract, manifest_path: Path) -> dict[str, Any] | None:
    """Run in a checker child: the target's re-verification of an exported chain, as JSON (None: no chains)."""
    chain = build_target(contract).verify_certificate_chain(manifest_path, read_certificate_json)
    if chain is None:
        return None
    return {"evidences": [e.to_json() for e in chain.evidences], "reasons": list(chain.reasons), "files": chain.files}
