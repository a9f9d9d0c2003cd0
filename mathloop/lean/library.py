"""The support modules (`Mathloop.Exact`, ...) compiled once per Lean into the per-user cache.

A commit's check then imports them instead of re-elaborating ~300 lines each time. The cache key is
(which Lean: kind, version, commit, prelude sha256; sha256 of every support module), so a change of
either rebuilds. Built atomically under a file lock; the modules pass the refusal scan first.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from mathloop.lean.bundled import _Lock, cache_root
from mathloop.lean.process import LeanCrash, run_process
from mathloop.lean.render import SUPPORT_MODULES, support_text
from mathloop.lean.source import scan
from mathloop.lean.toolchain import Toolchain


class LibraryError(RuntimeError):
    """The support modules do not compile with this Lean (a bug in them, or an incompatible Lean)."""


def _key(tc: Toolchain) -> str:
    h = hashlib.sha256()
    for part in (tc.kind, tc.version, tc.commit, tc.prelude_sha256, " ".join(tc.command)):
        h.update(part.encode() + b"\0")
    for m in SUPPORT_MODULES:
        h.update(m.encode() + b"\0" + support_text(m).encode() + b"\0")
    return h.hexdigest()[:24]


def support_path(tc: Toolchain, timeout_s: float = 600) -> Path:
    """Return the directory holding `Mathloop/*.olean` for this Lean (built on first use).

    Raises:
        LibraryError: a support module is refused by the scan or does not compile.
    """
    out = cache_root() / "support" / _key(tc)
    if (out / ".complete").is_file():
        return out
    with _Lock(cache_root() / "support" / ".lock"):
        if (out / ".complete").is_file():
            return out
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=out.parent, prefix=".build-") as tmp:
            root = Path(tmp)
            for m in SUPPORT_MODULES:  # in dependency order: Exact first
                rel = m.replace(".", "/") + ".lean"
                text = support_text(m)
                if scan(text):
                    raise LibraryError(f"{rel}: refused by the scan: {scan(text)[0]}")
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
                try:
                    res = run_process(tc.argv("-o", str(root / rel.replace(".lean", ".olean")), "-R", str(root), rel),
                                      cwd=root, timeout_s=timeout_s, env=tc.env(root))
                except LeanCrash as e:
                    raise LibraryError(f"{rel}: Lean did not answer: {e}") from None
                if res.returncode != 0:
                    raise LibraryError(f"{rel} does not compile: {(res.stdout + res.stderr).strip()[:400]}")
            (root / ".complete").write_text("ok\n")
            if out.exists():  # an earlier build that did not complete
                shutil.rmtree(out)
            os.replace(root, out)
            root.mkdir()  # so that TemporaryDirectory's cleanup finds its directory
    return out
