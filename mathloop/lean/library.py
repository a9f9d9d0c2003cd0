"""Support modules (`Mathloop.Exact`, a target's own, ...) compiled once per Lean into the per-user cache.

A commit's check then imports them instead of re-elaborating ~300 lines each time. The caller gives
the modules' texts (mathloop's own shared text and the target package's, never an export's copy);
the cache key is (which Lean: kind, version, commit, prelude sha256; every module's name and text),
so a change of either rebuilds. Built atomically under a file lock; every module passes the refusal
scan and the name scan first (no module may reuse a prelude name or a name of a module it imports).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping

from filelock import FileLock

from mathloop.lean.bundled import cache_root
from mathloop.lean.process import LeanCancelled, LeanCrash, run_process
from mathloop.lean.names import declared_in, prelude_names, shadowing
from mathloop.lean.source import scan
from mathloop.lean.support_modules import SupportError, imports, ordered, path_of, shared_modules
from mathloop.lean.toolchain import Toolchain
from mathloop.outputs import atomic_dir


class LibraryError(RuntimeError):
    """The support modules do not compile with this Lean (a bug in them, or an incompatible Lean)."""


def _key(tc: Toolchain, modules: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for part in (tc.kind, tc.version, tc.commit, tc.prelude_sha256, " ".join(tc.command)):
        h.update(part.encode() + b"\0")
    for m, text in modules.items():
        h.update(m.encode() + b"\0" + text.encode() + b"\0")
    return h.hexdigest()[:24]


def refusals(modules: Mapping[str, str]) -> list[str]:
    """Return why any of the modules may not be compiled (the refusal scan, then the name scan)."""
    out = []
    for m, text in modules.items():
        protected = prelude_names() | declared_in(modules[i] for i in imports(text) if i in modules)
        found = scan(text) + shadowing(text, protected)
        if found:
            out.append(f"{path_of(m)}: refused by the scan: {found[0]}")
    return out


def support_path(tc: Toolchain, modules: Mapping[str, str] | None = None, timeout_s: float = 600) -> Path:
    """Return the directory holding the compiled `modules` (default: mathloop's shared ones) for this Lean.

    Built on first use, in import order.

    Raises:
        LibraryError: a support module is refused by the scan, imports an unknown module, or does not compile.
    """
    try:
        modules = ordered(shared_modules() if modules is None else modules)
    except SupportError as e:
        raise LibraryError(str(e)) from None
    bad = refusals(modules)
    if bad:
        raise LibraryError(bad[0])
    out = cache_root() / "support" / _key(tc, modules)
    if (out / ".complete").is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(out.parent / ".lock"):  # concurrent processes build each support library once
        if (out / ".complete").is_file():
            return out
        with atomic_dir(out, mode=0o700) as root:  # an earlier build that did not complete is replaced
            for m, text in modules.items():  # in dependency order: Exact first
                rel = path_of(m)
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
                try:
                    res = run_process(tc.argv("-o", str(root / rel.replace(".lean", ".olean")), "-R", str(root), rel),
                                      cwd=root, timeout_s=timeout_s, env=tc.env(root))
                except LeanCancelled:
                    raise  # stopped by this process: the build is simply not done
                except LeanCrash as e:
                    raise LibraryError(f"{rel}: Lean did not answer: {e}") from None
                if res.returncode != 0:
                    raise LibraryError(f"{rel} does not compile: {(res.stdout + res.stderr).strip()[:400]}")
            (root / ".complete").write_text("ok\n")
    return out
