"""Run a Lean process: its own session, a wall-clock timeout that kills the whole tree, a memory limit.

When the process cannot answer (timeout, crash, cannot start) this raises LeanCrash carrying its
output; a normal exit returns the output as a value whatever the exit code (Lean exits 1 when the
file has errors, and that is an answer).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from mathloop.children import child_preexec


class LeanCrash(RuntimeError):
    """Lean could not answer (crash, killed, could not start); carries what it printed.

    Attributes:
        stdout / stderr: the captured output (possibly partial).
        returncode: the exit status, or None if it never exited on its own.
    """

    def __init__(self, reason: str, stdout: str = "", stderr: str = "", returncode: int | None = None) -> None:
        super().__init__(reason)
        self.stdout, self.stderr, self.returncode = stdout, stderr, returncode


class LeanTimeout(LeanCrash):
    """The wall-clock limit passed; the whole process group was killed."""


class LeanCancelled(LeanCrash):
    """This process ended the run itself (`kill_active`: the session stopped or was interrupted).

    Not an answer about anything, not even that Lean is unavailable: callers record nothing and let it
    propagate (toolchain discovery does not cache it; a commit stays `pending`).
    """


@dataclass(frozen=True)
class ProcessOutput:
    """What a finished process printed, its exit code and the wall-clock seconds it took."""

    stdout: str
    stderr: str
    returncode: int
    seconds: float


_ACTIVE: set[int] = set()  # process groups of Lean runs in progress (this process's own)
_CANCELLED: set[int] = set()  # those of them that kill_active ended: their death is ours, not Lean's
_ACTIVE_LOCK = threading.Lock()


def kill_active() -> None:
    """Kill every Lean process group this process has started and that is still running.

    Each of those runs then raises LeanCancelled (unless it had already exited on its own).
    """
    with _ACTIVE_LOCK:
        groups = list(_ACTIVE)
        _CANCELLED.update(groups)
    for pgid in groups:
        _kill_group(pgid)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_process(cmd: Sequence[str], *, cwd: Path, timeout_s: float, memory_mb: int | None = 8192,
                env: Mapping[str, str] | None = None) -> ProcessOutput:
    """Return the output of `cmd` run to completion in a new session under the limits.

    Raises:
        LeanTimeout: the wall-clock limit passed (the process group was killed).
        LeanCancelled: kill_active ended it (this process stopped its own checks).
        LeanCrash: the process could not be started, or died from a signal.
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(list(cmd), cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=child_preexec(memory_mb),
                                env=dict(env) if env is not None else None)
    except OSError as e:
        raise LeanCrash(f"cannot start {cmd[0]}: {e.strerror or e}") from None
    with _ACTIVE_LOCK:
        _ACTIVE.add(proc.pid)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a grandchild escaped the group and holds the pipes
            proc.kill()
            out, err = b"", b""
        raise LeanTimeout(f"timed out after {timeout_s:g} s (process group killed)",
                          _text(out), _text(err), proc.returncode) from None
    finally:
        _kill_group(proc.pid)  # nothing the checker started may outlive it
        with _ACTIVE_LOCK:
            _ACTIVE.discard(proc.pid)
            cancelled = proc.pid in _CANCELLED
            _CANCELLED.discard(proc.pid)
    seconds = time.monotonic() - start
    if cancelled and proc.returncode != 0:
        raise LeanCancelled(f"{Path(cmd[0]).name} stopped by this process before it answered", _text(out), _text(err),
                            proc.returncode)
    if proc.returncode < 0:
        raise LeanCrash(f"{Path(cmd[0]).name} killed by signal {-proc.returncode}", _text(out), _text(err),
                        proc.returncode)
    return ProcessOutput(_text(out), _text(err), proc.returncode, seconds)


def _text(b: bytes | None) -> str:
    return (b or b"").decode("utf-8", errors="replace")
