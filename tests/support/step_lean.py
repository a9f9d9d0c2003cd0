"""Kernel-check step-function Lean claims without the Lean layer's support registry (until it is wired)."""

from __future__ import annotations

from mathloop.domain import Verdict
from mathloop.lean.check import check_source
from mathloop.lean.render import REC_DEPTH, support_text
from mathloop.targets.sidon_autocorrelation.lean_claims import support_text as step_support_text


def _body(text: str) -> str:
    return "\n".join(l for l in text.splitlines() if not l.startswith("import ")).strip() + "\n"


def kernel_verdict(defs, claims) -> Verdict:
    """Return the kernel's verdict on one standalone file: Exact, StepFunctions, the data, claims and proofs."""
    blocks = [d.text() for d in defs] + [c.statement_text() for c in claims] + [c.proof_text() for c in claims]
    source = "\n\n".join([_body(support_text("Mathloop.Exact")), _body(step_support_text()), REC_DEPTH,
                          "namespace StepTest", "open Mathloop", "noncomputable section", *blocks, "end",
                          "end StepTest"]) + "\n"
    return check_source(source).verdict
