"""Child processes that die with their parent: a parent-death signal, a lifeline pipe, own process groups.

Every process mathloop starts uses one of these, so that `kill -9` of `mathloop run` leaves
nothing behind:
- `die_with_parent()`: Linux PR_SET_PDEATHSIG (SIGKILL when the parent thread that started us
  exits); used in `child_preexec` for subprocesses (Lean) and by pool workers.
- `pool_lifeline()`: the initializer of pool workers: they die when the pool's owner dies, also when
  they were forked by a forkserver (which outlives its owner while any of its children lives).
- `Lifeline` + `start_reaper`: a pipe whose write end only the parent holds; a reaper process in the
  child's process group kills the whole group when it reads EOF (the parent died, however it died).
  Forked grandchildren never keep the write end open (closed after every fork).
- `fork_is_safe()`: forking a process with no other thread copies no held lock.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import signal
import sys
import threading
from typing import Callable

PR_SET_PDEATHSIG = 1

_write_ends: set[int] = set()  # lifeline write ends held by this process (parents only)


def _close_write_ends_after_fork() -> None:
    # A forked child must not hold its parent's lifelines open, or they would never read EOF.
    for fd in list(_write_ends):
        try:
            os.close(fd)
        except OSError:
            pass
    _write_ends.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_write_ends_after_fork)


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send `sig` to this process when its parent exits; return whether it is armed.

    Linux only (elsewhere False: the lifeline and process groups still apply). If the parent is
    already gone (reparented to init or a subreaper), exits at once.
    """
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent or parent == 1:  # the parent died before the signal was armed
        os._exit(1)
    return True


def child_preexec(memory_mb: int | None = None) -> Callable[[], None]:
    """Return a subprocess `preexec_fn`: die with the parent, and cap the address space at memory_mb."""
    def preexec() -> None:  # runs in the child between fork and exec
        die_with_parent()
        if memory_mb:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return preexec


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to a process group, ignoring one that is already gone."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class Lifeline:
    """A pipe from parent to child that breaks when the parent dies.

    The parent creates it before starting the child, passes `reader` (a multiprocessing
    Connection, which survives fork, forkserver and spawn) and keeps the write end; the child
    calls `start_reaper(reader)`. `close()` in the parent (after the child is gone) releases the write end.
    """

    def __init__(self) -> None:
        import multiprocessing.connection as mpc

        r, w = os.pipe()
        _write_ends.add(w)
        self._w: int | None = w
        self.reader = mpc.Connection(r, writable=False)

    def after_start(self) -> None:
        """Drop the parent's copy of the read end once the child holds its own."""
        self.reader.close()

    def close(self) -> None:
        if self._w is not None:
            _write_ends.discard(self._w)
            try:
                os.close(self._w)
            except OSError:
                pass
            self._w = None


def start_reaper(reader) -> int:
    """Fork a reaper into our process group; return its pid. When the lifeline reads EOF (the parent
    died, however it died) the reaper SIGKILLs the whole group: this process and all it started.

    A process, not a thread: it needs no GIL, so a checker stuck in C code cannot delay it, and it
    outlives this process if the kernel's parent-death signal kills us first. Call after setsid().
    """
    fd = reader.fileno()
    pid = os.fork()
    if pid == 0:  # the reaper: hold nothing but the lifeline (else the session would miss our EOFs)
        try:
            os.closerange(3, fd)
            os.closerange(fd + 1, _max_fd())
            while True:
                try:
                    if not os.read(fd, 4096):
                        break
                except InterruptedError:
                    continue
                except OSError:
                    break
        finally:
            kill_group(os.getpgrp())
            os._exit(0)
    reader.close()
    return pid


def _max_fd() -> int:
    try:
        return max(256, min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1 << 16))
    except (ValueError, OSError):
        return 1024


def _pool_worker_init(reader) -> None:
    # A pool worker started through a forkserver has the forkserver as its parent, and the forkserver
    # stays alive as long as any of its children does: a parent-death signal alone would wait forever.
    # So the worker also watches the pool owner's lifeline, and kills itself when it breaks.
    die_with_parent()

    def run() -> None:
        try:
            reader.recv_bytes()
        except (EOFError, OSError):
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=run, name="mathloop-lifeline", daemon=True).start()


def pool_lifeline() -> tuple[Callable, tuple, Lifeline]:
    """Return (initializer, initargs, lifeline) for a process pool whose workers die with this process.

    Pass the first two to the pool; keep the lifeline while the pool lives and `close()` it after
    shutting the pool down. Works with fork and forkserver pools.
    """
    lifeline = Lifeline()
    return _pool_worker_init, (lifeline.reader,), lifeline


def fork_is_safe() -> bool:
    """Return True when this process runs no other thread (forking then copies no held lock)."""
    return threading.active_count() == 1
