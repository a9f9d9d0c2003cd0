"""Target `erdos-minimum-overlap`: C1b <= the exact overlap of a normalised step function (see value.py)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from mathloop.contract.rules import Required
from mathloop.domain import Direction, Evidence, Kind, Trust, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.erdos_minimum_overlap.value import overlap_value
from mathloop.targets.sidon_autocorrelation.heights import Steps, sign_failure
from mathloop.targets.sidon_autocorrelation.step_target import INPUT, StepFunctionTarget

if TYPE_CHECKING:
    from mathloop.targets.form import ProposalForm


def overlap_failure(steps: Steps) -> str | None:
    """Return why the normalised heights f_i = n·h_i/(2Σh) are not in [0, 1], or None."""
    why = sign_failure(steps)
    if why is not None:
        return why
    n, total = steps.n, sum(steps.ints)
    for i, a in enumerate(steps.ints):
        if n * a > 2 * total:
            f = Fraction(n * a, 2 * total)
            return (f"heights[{i}]: the normalised height n·h/(2Σh) = {fraction_str(f)} exceeds 1 "
                    f"(then g = 1 − f < 0)")
    return None


class ErdosMinimumOverlap(StepFunctionTarget):
    """Upper bounds on C1b from step functions with n equal steps on [−1, 1], 0 <= f <= 1, ∫f = 1."""

    name: ClassVar[str] = "erdos-minimum-overlap"
    # in obligations/; the fine lineage has the minimum improvement 1e-10 (the record moves by ~1e-7 steps)
    contract_files: ClassVar[tuple[str, ...]] = ("erdos-minimum-overlap.toml", "erdos-minimum-overlap-fine.toml")
    version: ClassVar[str] = "1"
    admissible_check: ClassVar[str] = "admissible"
    value_check: ClassVar[str] = "overlap"
    bound_name: ClassVar[str] = "C1b"
    records_package: ClassVar[str | None] = "mathloop.targets.erdos_minimum_overlap"  # its data/records.toml
    checks: ClassVar[Mapping[str, Trust]] = {INPUT: Trust.EXACT, "admissible": Trust.EXACT, "overlap": Trust.EXACT}
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required("definition", Kind.HYPOTHESIS),
        Required("heights", Kind.INPUT, INPUT),
        Required("admissible", Kind.CHECK, "admissible"),
        Required("c1b-upper-bound", Kind.BOUND, "overlap", "C1b", Direction.MINIMIZE),
    )

    def admissibility(self, steps: Steps) -> str | None:
        """Return why the normalised step function is not admissible (0 <= f <= 1), or None."""
        return overlap_failure(steps)

    def proposal_form(self) -> "ProposalForm":
        """Return the values-in-[0, 1] form (moved to mean 1/2: 0 <= f <= 1, ∫f = 1 for every reply; see form.py)."""
        from mathloop.targets.erdos_minimum_overlap.form import OverlapForm

        return OverlapForm(self.limits.max_steps, self.parse).form()

    def evaluate(self, steps: Steps) -> tuple[Fraction, dict[str, Any]]:
        """Return the exact overlap and {n, denominator, total, peak, shift} (integers as strings)."""
        v = overlap_value(steps.ints)
        return v.value, {"n": steps.n, "denominator": str(steps.denominator), "total": str(v.total),
                         "peak": str(v.peak), "shift": v.shift}

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded optimiser over the heights (see proposer.py)."""
        from mathloop.targets.erdos_minimum_overlap.proposer import OverlapProposer

        return OverlapProposer(self, seed)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's plain-style Lean rendering (see lean_claims), or None without a value."""
        from mathloop.targets.erdos_minimum_overlap.lean_claims import render_commit

        return render_commit(self, commit_hash, evidence)
