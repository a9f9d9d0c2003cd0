"""The limits of one sandboxed program run: CPU, wall clock, memory, processes, files, output."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

MIB = 1 << 20


@dataclass(frozen=True)
class SandboxLimits:
    """What one program run may use; every limit is enforced by the kernel or by the parent, never by the program.

    Attributes:
        wall_s: wall-clock seconds before the parent kills the sandbox's whole process tree (also cut at the session's
            deadline when the caller passes one).
        cpu_s: CPU seconds per process (RLIMIT_CPU: SIGXCPU, then SIGKILL one second later).
        memory_mb: address space per process (RLIMIT_AS).
        processes: processes and threads of the sandbox's user (RLIMIT_NPROC; threads count, so BLAS runs single-threaded).
        open_files: file descriptors per process (RLIMIT_NOFILE).
        output_bytes: bytes of standard output read back; one byte more and the run is stopped and refused.
        disk_bytes: size of the program's own temporary directory (a tmpfs) and of any one file (RLIMIT_FSIZE).
        stderr_bytes: bytes of standard error kept (the last ones: a traceback ends there); the rest is drained.
    """

    wall_s: float = 30.0
    cpu_s: int = 30
    memory_mb: int = 1024
    processes: int = 8
    open_files: int = 64
    output_bytes: int = 16 * MIB
    disk_bytes: int = 64 * MIB
    stderr_bytes: int = 4096

    def __post_init__(self) -> None:
        if not self.wall_s > 0:
            raise ValueError(f"wall_s: must be > 0, got {self.wall_s}")
        for name in ("cpu_s", "memory_mb", "processes", "open_files", "output_bytes", "disk_bytes", "stderr_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name}: must be a positive integer, got {value!r}")
        if self.memory_mb < 64:
            raise ValueError(f"memory_mb: at least 64 (a Python interpreter needs about 20), got {self.memory_mb}")
        if self.open_files < 16:
            raise ValueError(f"open_files: at least 16 (the interpreter's own), got {self.open_files}")

    def to_json(self) -> dict[str, Any]:
        """Return the limits as plain JSON data (stored with every program run)."""
        return asdict(self)
