"""Lean status of one commit: render it, check it with a real Lean if one exists, or mark it pending.

This is the one place where the Lean checker's failures to answer (LeanCrash, RenderError) become
the status `error`; everything else is a value. Never "checked" without a real Lean's acceptance.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathloop.domain import Evidence, Verdict
from mathloop.export.lean_render import RenderedCommit, RenderError, render_commit
from mathloop.verify.lean import LeanCrash, Toolchain, check_source, discover, project_dir

STATUSES = ("checked", "pending", "refuted", "not-applicable", "error")
DEFAULT_TIMEOUT_S = 600


@dataclass(frozen=True)
class LeanCommitStatus:
    """Whether a commit's rendered Lean was accepted by a real Lean.

    Attributes:
        status: checked | pending (no toolchain) | refuted | not-applicable (no rendering) | error.
        lean_version: the Lean that answered (None if none ran).
        file_sha256: sha256 of the rendered artifact (RenderedCommit.sha256) this status is about.
        axioms: every axiom the theorems depend on (sorted union).
        messages: Lean's messages, refusal reasons, or why it is pending/error.
        seconds: Lean's wall-clock time (None if none ran).
    """

    status: str
    lean_version: str | None = None
    file_sha256: str | None = None
    axioms: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()
    seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "lean_version": self.lean_version, "file_sha256": self.file_sha256,
                "axioms": list(self.axioms), "messages": list(self.messages), "seconds": self.seconds}


def support_source(project: Path | None = None) -> str:
    """Return the text of the support library `Mathloop/Basic.lean`."""
    return ((project or project_dir()) / "Mathloop" / "Basic.lean").read_text(encoding="utf-8")


def check_file_source(rendered: RenderedCommit, project: Path | None = None) -> str:
    """Return one self-contained file: the support library, the statements, then the proofs.

    Same declarations as the exported modules, without imports, so that any Lean (even without
    Lake or a build) can check it.
    """
    def body(text: str) -> str:
        return "\n".join(l for l in text.splitlines() if not l.startswith("import ")).strip() + "\n"
    return "\n".join([support_source(project).strip() + "\n", body(rendered.statement), body(rendered.proof)])


def check_commit(contract: Any, commit_hash: str, evidence: Evidence, *, toolchain: Toolchain | None = None,
                 timeout_s: float | None = None) -> LeanCommitStatus:
    """Return the Lean status of a commit (renders it, then checks it where a toolchain exists)."""
    try:
        rendered = render_commit(contract, commit_hash, evidence)
    except RenderError as e:
        return LeanCommitStatus("error", messages=(f"rendering failed: {e}",))
    if rendered is None:
        return LeanCommitStatus("not-applicable", messages=(f"target {getattr(contract, 'target', '?')} has no Lean rendering",))
    tc = toolchain if toolchain is not None else discover()
    if not tc.available:
        return LeanCommitStatus("pending", file_sha256=rendered.sha256, messages=(tc.reason,))
    limit = timeout_s or int(getattr(contract, "limits", {}).get("lean_timeout_s", DEFAULT_TIMEOUT_S))
    try:
        res = check_source(check_file_source(rendered), rendered.theorems, toolchain=tc, timeout_s=limit)
    except LeanCrash as e:
        tail = (e.stderr or e.stdout or "").strip().splitlines()[-5:]
        return LeanCommitStatus("error", tc.version, rendered.sha256, messages=(str(e), *tail))
    axioms = tuple(sorted({a for _, axs in res.axioms for a in axs}))
    status = {Verdict.PROVED: "checked", Verdict.REFUTED: "refuted"}.get(res.verdict, "pending")
    return LeanCommitStatus(status, res.lean_version or tc.version, rendered.sha256, axioms,
                            (res.reason, *res.messages), res.seconds)


def doctor_report() -> dict[str, Any]:
    """Return the toolchain state, what was tried, and how to install one on a machine with internet."""
    from mathloop.verify import lean_dojo

    tc = discover()
    pinned = (project_dir() / "lean-toolchain").read_text(encoding="utf-8").strip()
    return {
        "available": tc.available,
        "kind": tc.kind,
        "executable": tc.executable or None,
        "version": tc.version or None,
        "reason": tc.reason or None,
        "tried": list(tc.tried),
        "pinned_toolchain": pinned,
        "project": str(project_dir()),
        "install": [
            "curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh -s -- -y "
            f"--default-toolchain {pinned}",
            "or, with elan already installed: elan toolchain install " + pinned + " && elan default " + pinned,
            "then: mathloop doctor (should report the version) and mathloop lean-check TARGET",
            "or point MATHLOOP_LEAN at a `lake` or `lean` executable",
        ],
        "lean_dojo": lean_dojo.availability(),
    }
