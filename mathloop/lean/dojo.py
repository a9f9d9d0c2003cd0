"""Optional LeanDojo path: let a proposer drive a lemma obligation tactic by tactic (state -> tactic -> state).

Never required: `lean_dojo` is imported lazily inside functions (it runs `git` and reads `.env` at
import time), and where it or a toolchain is missing, `availability()` says exactly what is missing
and `DojoSession` raises DojoUnavailable. Tactics are untrusted model output: each one goes through
the same refusal scan as whole files before it reaches Lean.

Tested here: lean-dojo 4.20.0 installs into a Python 3.11 venv in ~80 s (it pulls ray); its API
names (LeanGitRepo.from_path, Theorem(repo, file_path, full_name), Dojo(thm) as (dojo, state),
dojo.run_tac(state, tactic) -> TacticState | ProofFinished | LeanError | ProofGivenUp) were read
from the installed package. No Lean toolchain exists here, so no Dojo session has ever run here.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathloop.lean.source import scan


class DojoUnavailable(RuntimeError):
    """LeanDojo cannot run here; `missing` lists what is needed."""

    def __init__(self, missing: list[str]) -> None:
        super().__init__("LeanDojo unavailable: " + "; ".join(missing))
        self.missing = missing


def availability() -> dict[str, Any]:
    """Return {"available": bool, "missing": [...]} without importing lean_dojo."""
    from mathloop.lean.toolchain import discover

    missing = []
    if sys.version_info >= (3, 13):
        missing.append("Python < 3.13 (lean-dojo 4.20 requires it)")
    if importlib.util.find_spec("lean_dojo") is None:
        missing.append("the `lean-dojo` package (pip install lean-dojo; ~430 MB with ray; optional, not a default dependency)")
    tc = discover()
    if tc.kind != "toolchain":  # the bundled kernel has no Lake and no standard library
        missing.append("a full Lean 4 toolchain with Lake (elan; see `mathloop doctor`)")
    return {"available": not missing, "missing": missing,
            "needs": "a git repository with a committed Lake project holding the lemma; "
                     "DISABLE_REMOTE_CACHE=1 offline (trace() otherwise tries a remote cache first)"}


@dataclass(frozen=True)
class DojoStep:
    """The result of one tactic: the new goal state, a finished proof, or an error (all values)."""

    tactic: str
    state: str | None = None
    finished: bool = False
    error: str | None = None


class DojoSession:
    """A LeanDojo interaction with one theorem of a local git repository (use as a context manager).

    Example (where lean-dojo and a toolchain exist):
        with DojoSession(repo_dir, "Lemmas/Foo.lean", "Lemmas.foo") as s:
            step = s.run("decide +kernel")
    """

    def __init__(self, repo_dir: Path | str, file_path: str, theorem: str, timeout_s: int = 600) -> None:
        self.repo_dir, self.file_path, self.theorem, self.timeout_s = Path(repo_dir), file_path, theorem, timeout_s
        self._cm: Any = None
        self._dojo: Any = None
        self._state: Any = None

    def __enter__(self) -> "DojoSession":
        info = availability()
        if not info["available"]:
            raise DojoUnavailable(info["missing"])
        os.environ.setdefault("DISABLE_REMOTE_CACHE", "1")
        import lean_dojo  # lazy: side effects at import (git, .env)

        repo = lean_dojo.LeanGitRepo.from_path(self.repo_dir)
        thm = lean_dojo.Theorem(repo, Path(self.file_path), self.theorem)
        self._cm = lean_dojo.Dojo(thm, timeout=self.timeout_s)
        self._dojo, self._state = self._cm.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._cm is not None:
            self._cm.__exit__(*exc)

    @property
    def goal(self) -> str | None:
        """Return the current goal state as Lean prints it (None once finished)."""
        return getattr(self._state, "pp", None)

    def run(self, tactic: str) -> DojoStep:
        """Return the outcome of one tactic on the current state (refused tactics never reach Lean)."""
        refusals = scan(tactic)
        if refusals:
            return DojoStep(tactic, error=f"refused: {refusals[0]}")
        result = self._dojo.run_tac(self._state, tactic)
        kind = type(result).__name__
        if kind == "TacticState":
            self._state = result
            return DojoStep(tactic, state=result.pp)
        if kind == "ProofFinished":
            return DojoStep(tactic, finished=True)
        return DojoStep(tactic, error=getattr(result, "error", kind))
