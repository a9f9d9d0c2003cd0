"""What a sandboxed program sees: the Python runtime, the system's shared libraries and the allowed packages, read-only.

Nothing else of the host is in the sandbox's file system: no mathloop source, no home, no working tree, no store, no
site-packages beyond the allowed packages (each bound alone under SITE), no /etc, no shell or other binaries.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
import sysconfig
from dataclasses import dataclass

from mathloop.sandbox.errors import SandboxUnavailable

SITE = "/opt/mathloop-sandbox/site"     # the allowed packages, on the program's PYTHONPATH
PROGRAM = "/opt/mathloop-sandbox/program.py"
WORKDIR = "/tmp"                         # the program's own empty directory (a sized tmpfs): cwd, HOME, TMPDIR
DEFAULT_PACKAGES = ("numpy", "scipy")


@dataclass(frozen=True)
class RuntimeView:
    """The read-only parts of the host a program sees.

    Attributes:
        executable: the real path of the Python interpreter (the same path inside the sandbox).
        binds: (host path, sandbox path) pairs, each bound read-only.
        symlinks: (target, link) pairs recreated inside (e.g. /lib -> usr/lib on a merged-/usr system).
        hidden: sandbox paths covered by an empty tmpfs (the runtime's own site-packages).
        packages: the importable packages bound under SITE, by import name.
    """

    executable: str
    binds: tuple[tuple[str, str], ...]
    symlinks: tuple[tuple[str, str], ...]
    hidden: tuple[str, ...]
    packages: tuple[str, ...]


def _system_libraries() -> tuple[list[str], list[tuple[str, str]]]:
    """Return (library directories to bind, top-level symlinks to recreate) for the dynamic loader and libc."""
    arch = sysconfig.get_config_var("MULTIARCH") or f"{platform.machine()}-linux-gnu"
    links = [(os.readlink(top), top) for top in ("/lib", "/lib64") if os.path.islink(top)]
    dirs: list[str] = []
    for d in (f"/usr/lib/{arch}", f"/lib/{arch}", "/usr/lib64", "/lib64"):
        real = os.path.realpath(d)
        if os.path.isdir(real) and real not in dirs:
            dirs.append(real)
    return dirs, links


def _package_paths(name: str) -> list[str]:
    """Return the host paths that make `name` importable (its directory or module file, and `<dir>.libs` beside it)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None and not spec.submodule_search_locations:
        raise SandboxUnavailable(f"allowed package {name!r} is not installed in this interpreter")
    if spec.submodule_search_locations:
        path = os.path.realpath(list(spec.submodule_search_locations)[0])
        out = [path]
        if os.path.isdir(path + ".libs"):  # auditwheel's bundled shared libraries (numpy.libs, scipy.libs)
            out.append(path + ".libs")
        return out
    return [os.path.realpath(spec.origin)]


def runtime_view(packages: tuple[str, ...] = DEFAULT_PACKAGES) -> RuntimeView:
    """Return the read-only view for this interpreter's runtime and the named packages.

    Raises:
        SandboxUnavailable: not Linux, no shared runtime found, or an allowed package is not installed.
    """
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"program sandboxes need Linux namespaces (this is {sys.platform})")
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    if not os.path.isfile(exe) or not os.path.isdir(stdlib):
        raise SandboxUnavailable(f"the Python runtime was not found (interpreter {exe}, standard library {stdlib})")
    libs, links = _system_libraries()
    binds = [(d, d) for d in libs] + [(exe, exe), (stdlib, stdlib)]
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libdir, name = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
        shared = os.path.join(str(libdir), str(name))
        if os.path.exists(shared) and not any(shared.startswith(d + os.sep) for d in libs):
            binds.append((os.path.realpath(shared), shared))
    hidden = sorted({os.path.realpath(p) for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])
                     if os.path.realpath(p).startswith(stdlib + os.sep) and os.path.isdir(p)})
    for name in packages:
        for host in _package_paths(name):
            binds.append((host, f"{SITE}/{os.path.basename(host)}"))
    return RuntimeView(exe, tuple(binds), tuple(links), tuple(hidden), tuple(packages))
