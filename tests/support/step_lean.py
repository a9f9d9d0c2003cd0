"""Kernel-check step-function Lean claims in one standalone file (support modules as the target ships them)."""

from __future__ import annotations

from typing import Sequence

from mathloop.domain import Verdict
from mathloop.lean.check import check_source
from mathloop.lean.render import REC_DEPTH, without_imports
from mathloop.lean.support_modules import package_modules, select
from mathloop.targets.sidon_autocorrelation.lean_claims import SUPPORT


def kernel_verdict(defs, claims, modules: Sequence[str] = SUPPORT) -> Verdict:
    """Return the kernel's verdict on one standalone file: the support `modules` (default Exact and
    StepFunctions), the data, claims and proofs."""
    support = select(modules, package_modules("mathloop.targets.sidon_autocorrelation"))
    blocks = [d.text() for d in defs] + [c.statement_text() for c in claims] + [c.proof_text() for c in claims]
    source = "\n\n".join([*(without_imports(t) for t in support.values()), REC_DEPTH,
                          "namespace StepTest", "open Mathloop", "noncomputable section", *blocks, "end",
                          "end StepTest"]) + "\n"
    return check_source(source).verdict
