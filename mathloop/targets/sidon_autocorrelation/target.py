"""Target `sidon-autocorrelation`: C1a <= 2n·max_k c_k / (Σh)², certified exactly (see value.py)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar, Mapping

from mathloop.contract.rules import Required
from mathloop.domain import Direction, Evidence, Kind, Trust
from mathloop.propose.base import Proposer
from mathloop.targets.form import ProposalForm
from mathloop.targets.sidon_autocorrelation.form import SidonForm
from mathloop.targets.sidon_autocorrelation.heights import Steps, sign_failure
from mathloop.targets.sidon_autocorrelation.step_target import INPUT, StepFunctionTarget
from mathloop.targets.sidon_autocorrelation.value import autoconvolution_value


class SidonAutocorrelation(StepFunctionTarget):
    """Upper bounds on C1a from non-negative step functions with n equal steps on [−1/4, 1/4]."""

    name: ClassVar[str] = "sidon-autocorrelation"
    # in obligations/; the fine lineage has the minimum improvement 1e-10 (the records now move by less than 1e-6)
    contract_files: ClassVar[tuple[str, ...]] = ("sidon-autocorrelation.toml", "sidon-autocorrelation-fine.toml")
    version: ClassVar[str] = "1"
    admissible_check: ClassVar[str] = "nonnegative"
    value_check: ClassVar[str] = "autoconvolution"
    bound_name: ClassVar[str] = "C1a"
    records_package: ClassVar[str | None] = "mathloop.targets.sidon_autocorrelation"  # its data/records.toml
    checks: ClassVar[Mapping[str, Trust]] = {INPUT: Trust.EXACT, "nonnegative": Trust.EXACT,
                                             "autoconvolution": Trust.EXACT}
    # The ratio bounds C1a only for f >= 0 with ∫f > 0, by the definition of C1a.
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required("definition", Kind.HYPOTHESIS),
        Required("heights", Kind.INPUT, INPUT),
        Required("nonnegative", Kind.CHECK, "nonnegative"),
        Required("c1a-upper-bound", Kind.BOUND, "autoconvolution", "C1a", Direction.MINIMIZE),
    )

    def admissibility(self, steps: Steps) -> str | None:
        """Return why the heights are not a non-negative function with positive integral, or None."""
        return sign_failure(steps)

    def proposal_form(self) -> ProposalForm:
        """Return the positive-heights form (f >= 0 with ∫f > 0 for every reply; see form.py)."""
        return SidonForm(self.limits.max_steps, self.parse).form()

    def evaluate(self, steps: Steps) -> tuple[Fraction, dict[str, Any]]:
        """Return 2n·max c / (Σa)² and {n, denominator, total, peak, peak_index} (integers as strings)."""
        v = autoconvolution_value(steps.ints)
        return v.value, {"n": steps.n, "denominator": str(steps.denominator), "total": str(v.total),
                         "peak": str(v.peak), "peak_index": v.peak_index}

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded optimiser over the heights (see proposer.py)."""
        from mathloop.targets.sidon_autocorrelation.proposer import SidonProposer

        return SidonProposer(self, seed)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's plain-style Lean rendering (see lean_claims), or None without a value."""
        from mathloop.targets.sidon_autocorrelation.lean_claims import render_commit

        return render_commit(self, commit_hash, evidence)
