"""Run one program in a fresh sandbox: only its standard output (size-capped) and a stderr tail come back.

The sandbox is a bubblewrap child in its own session and process group, started with a parent-death signal; bubblewrap
kills the program's pid namespace when it dies. The parent reads stdout up to the output limit, keeps the last bytes of
stderr, and kills the whole group at the wall-clock limit, when the output limit is passed, or when the caller's
deadline comes first. Nothing the program returns is unpickled or executed: it is bytes.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from mathloop.children import child_preexec, kill_group
from mathloop.sandbox.bwrap import bwrap_argv, running_as_root
from mathloop.sandbox.errors import SandboxUnavailable
from mathloop.sandbox.limits import SandboxLimits
from mathloop.sandbox.view import DEFAULT_PACKAGES, RuntimeView, runtime_view

_CHUNK = 1 << 16
CUT_AT_DEADLINE = "stopped at the session's time limit"


@dataclass(frozen=True)
class ProgramRun:
    """What one sandboxed run gave back.

    Attributes:
        stdout: the program's standard output (at most the output limit; empty when the run was stopped for it).
        stderr_tail: the last bytes of standard error, decoded with replacement (for the refusal reason).
        exit_code: the exit status (128 + n after signal n), None when the parent killed the sandbox.
        seconds: wall-clock seconds from start to the end of the sandbox.
        stopped: why the parent stopped the run (wall-clock limit, output limit, deadline), or None.
        limits: the limits it ran under.
    """

    stdout: bytes
    stderr_tail: str
    exit_code: int | None
    seconds: float
    stopped: str | None
    limits: SandboxLimits = field(default_factory=SandboxLimits)

    @property
    def ok(self) -> bool:
        """Return whether the program ran to the end and exited 0 (its output may still be anything)."""
        return self.stopped is None and self.exit_code == 0

    def failure(self) -> str | None:
        """Return one line saying why the run gave no usable output, or None when it exited 0."""
        if self.stopped is not None:
            return self.stopped
        if self.exit_code != 0:
            last = next((ln.strip() for ln in reversed(self.stderr_tail.splitlines()) if ln.strip()), "")
            how = (f"killed by signal {self.exit_code - 128}" if self.exit_code is not None and self.exit_code > 128
                   else f"exited with status {self.exit_code}")
            return f"program {how}" + (f": {last[:300]}" if last else "")
        return None

    def to_json(self) -> dict[str, Any]:
        """Return what the store keeps of the run (the output itself is the candidate, stored as its payload)."""
        return {"exit_code": self.exit_code, "seconds": round(self.seconds, 3), "stopped": self.stopped,
                "stdout_bytes": len(self.stdout), "stderr_tail": self.stderr_tail, "limits": self.limits.to_json()}


class Sandbox:
    """Runs untrusted Python programs, one fresh sandbox each (see the module docstring).

    Args:
        packages: import names the program may use besides the standard library (bound read-only).
        bwrap: the bubblewrap executable (default: `bwrap` on PATH).

    Raises:
        SandboxUnavailable: bubblewrap is missing, or the runtime or a package cannot be found.
    """

    def __init__(self, packages: tuple[str, ...] = DEFAULT_PACKAGES, bwrap: str | None = None) -> None:
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailable("bubblewrap (`bwrap`) is not on PATH (Debian/Ubuntu: apt-get install bubblewrap)")
        if not os.access(found, os.X_OK):
            raise SandboxUnavailable(f"bubblewrap {found} is not an executable file")
        self.bwrap = found
        self.view: RuntimeView = runtime_view(packages)
        self.as_root = running_as_root()

    @property
    def packages(self) -> tuple[str, ...]:
        return self.view.packages

    def describe(self) -> dict[str, Any]:
        """Return what the store keeps about the sandbox (mechanism, packages): provenance of every program run."""
        return {"mechanism": "bubblewrap", "user": "own uid" if self.as_root else "user namespace",
                "network": "none (own namespace)", "packages": list(self.packages)}

    def run(self, source: str, limits: SandboxLimits | None = None, *, deadline: float | None = None) -> ProgramRun:
        """Return the run of `source` (Python text) in a fresh sandbox; `deadline` (time.monotonic()) cuts it earlier."""
        limits = limits or SandboxLimits()
        with tempfile.TemporaryDirectory(prefix="mathloop-program-") as tmp:
            path = os.path.join(tmp, "program.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
            os.chmod(path, 0o644)
            return self._run(bwrap_argv(self.bwrap, self.view, path, limits, as_root=self.as_root), limits, deadline)

    def _run(self, argv: list[str], limits: SandboxLimits, deadline: float | None) -> ProgramRun:
        start = time.monotonic()
        end, why = start + limits.wall_s, f"stopped at the wall-clock limit ({limits.wall_s:g} s)"
        if deadline is not None and deadline < end:
            end, why = deadline, CUT_AT_DEADLINE
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, close_fds=True, env={"PATH": "/usr/bin:/bin"},
                                preexec_fn=child_preexec())  # noqa: PLW1509 - the parent-death signal
        out, err = bytearray(), bytearray()
        stopped: str | None = None
        sel = selectors.DefaultSelector()
        try:
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            sel.register(proc.stderr, selectors.EVENT_READ, "err")
            while sel.get_map() and stopped is None:
                left = end - time.monotonic()
                if left <= 0:
                    stopped = why
                    break
                for key, _ in sel.select(timeout=min(left, 1.0)):
                    block = os.read(key.fd, _CHUNK)
                    if not block:
                        sel.unregister(key.fileobj)
                    elif key.data == "out":
                        out += block
                        if len(out) > limits.output_bytes:
                            stopped = f"stopped: output larger than the {limits.output_bytes}-byte limit"
                            break
                    else:
                        err += block
                        del err[:-limits.stderr_bytes]
            if stopped is None:
                try:
                    proc.wait(timeout=max(0.0, end - time.monotonic()))
                except subprocess.TimeoutExpired:
                    stopped = why
        finally:
            sel.close()
            kill_group(proc.pid, signal.SIGKILL)  # the program's whole tree, whether or not it ended by itself
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        seconds = time.monotonic() - start
        code = None if stopped is not None else (proc.returncode if proc.returncode >= 0 else 128 - proc.returncode)
        return ProgramRun(bytes(out) if stopped is None else b"", bytes(err).decode("utf-8", "replace"), code, seconds,
                          stopped, limits)
