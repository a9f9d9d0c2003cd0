"""The bubblewrap command line of one program run: namespaces, the read-only view, the program's own directory."""

from __future__ import annotations

import json
import os
import secrets
from importlib.resources import files

from mathloop.sandbox.limits import SandboxLimits
from mathloop.sandbox.view import PROGRAM, SITE, WORKDIR, RuntimeView

# A user id of the sandbox's own when mathloop runs as root (RLIMIT_NPROC does not bind uid 0): drawn per run from a
# range no system account uses, so that no other process shares its process count.
UID_RANGE = (1 << 24, 1 << 30)


def program_env() -> dict[str, str]:
    """Return the program's whole environment (nothing of the caller's: no key, no path, no proxy)."""
    return {"HOME": WORKDIR, "TMPDIR": WORKDIR, "PATH": "/nonexistent", "PYTHONPATH": SITE,
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "PYTHONUTF8": "1", "LANG": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def rlimits(limits: SandboxLimits) -> dict[str, tuple[int, int]]:
    """Return the resource limits set in the sandbox before the program starts, by `resource` constant name."""
    return {
        "RLIMIT_CPU": (limits.cpu_s, limits.cpu_s + 1),
        "RLIMIT_AS": (limits.memory_mb << 20, limits.memory_mb << 20),
        "RLIMIT_NPROC": (limits.processes, limits.processes),
        "RLIMIT_NOFILE": (limits.open_files, limits.open_files),
        "RLIMIT_FSIZE": (limits.disk_bytes, limits.disk_bytes),
        "RLIMIT_CORE": (0, 0),
        "RLIMIT_MEMLOCK": (0, 0),
        "RLIMIT_MSGQUEUE": (0, 0),
    }


def bwrap_argv(bwrap: str, view: RuntimeView, program_file: str, limits: SandboxLimits, *, as_root: bool) -> list[str]:
    """Return the argv that runs `program_file` (a host file, bound read-only at PROGRAM) in a fresh sandbox.

    As root, bubblewrap makes the namespaces itself and the launcher drops to a fresh user id (keeping only the right
    to do so); otherwise it makes a user namespace first and forbids the program another one.
    """
    argv = [bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv", "--hostname", "sandbox"]
    if as_root:
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user", "--disable-userns"]
    for target, link in view.symlinks:
        argv += ["--symlink", target, link]
    for d in _ancestors([inside for _, inside in view.binds] + [PROGRAM]):  # else they copy the host's modes (/root: 0700)
        argv += ["--perms", "0755", "--dir", d]
    for host, inside in view.binds:
        argv += ["--ro-bind", host, inside]
    for path in view.hidden:
        argv += ["--size", "4096", "--tmpfs", path]
    argv += ["--dev", "/dev", "--proc", "/proc",
             "--perms", "1777", "--size", str(limits.disk_bytes), "--tmpfs", WORKDIR,
             "--ro-bind", program_file, PROGRAM, "--remount-ro", "/", "--chdir", WORKDIR]
    cfg = {"rlimits": rlimits(limits), "uid": secrets.SystemRandom().randrange(*UID_RANGE) if as_root else None,
           "argv": [view.executable, "-S", "-s", "-B", PROGRAM], "env": program_env()}
    launcher = files("mathloop.sandbox").joinpath("launcher.py").read_text(encoding="utf-8")
    return argv + ["--", view.executable, "-I", "-S", "-c", launcher, json.dumps(cfg)]


def _ancestors(paths: list[str]) -> list[str]:
    """Return every proper ancestor directory of `paths` (shallowest first, without /).

    >>> _ancestors(["/a/b/c", "/a/d"])
    ['/a', '/a/b']
    """
    out: set[str] = set()
    for p in paths:
        parent = os.path.dirname(p)
        while parent not in ("/", ""):
            out.add(parent)
            parent = os.path.dirname(parent)
    return sorted(out, key=lambda d: (d.count("/"), d))


def running_as_root() -> bool:
    """Return whether this process runs as root (bubblewrap then needs no user namespace)."""
    return os.geteuid() == 0
