"""Target `sqrt2-below`: a rational x is a certified lower bound of sqrt(2) when x >= 0 and x^2 <= 2."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract import Floor, Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import Target
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.payload import PayloadSpec, Rational


class Sqrt2Below(Target):
    """Certifies x <= sqrt(2) by the exact integer inequality p^2 <= 2 q^2 (x = p/q >= 0)."""

    name = "sqrt2-below"
    version = "1"
    checks = {"nonnegative": Trust.EXACT, "square": Trust.EXACT, "bound": Trust.EXACT}
    # x <= sqrt(2) follows from x >= 0 and x^2 <= 2 by monotonicity of squaring: no contract may drop these.
    required_obligations = (
        Required("monotone-square", Kind.HYPOTHESIS),
        Required("nonnegative", Kind.CHECK, "nonnegative"),
        Required("square-below-two", Kind.CHECK, "square"),
        Required("sqrt2-bound", Kind.BOUND, "bound", "x", Direction.MAXIMIZE),
    )
    limit_floors = (Floor("bounds.x.class_maximum", Fraction(14142136, 10**7), at_most=True,
                          why="1.4142136^2 > 2, so no certified x can exceed it"),)

    @property
    def spec(self) -> PayloadSpec:
        """Return the payload spec {"x": "p/q"}; the contract's max_digits bounds its size."""
        digits = int(self.contract.limits.get("max_digits", 80))
        return PayloadSpec((("x", Rational(max_chars=digits + 8, max_digits=digits)),))

    def candidate_schema(self) -> dict[str, Any]:
        return self.spec.schema()

    def parse(self, payload: Any) -> Fraction:
        """Return x. Raises Malformed("<field>: reason")."""
        return self.spec.parse(payload)["x"]

    def check(self, parent_state: Mapping[str, Any] | None, x: Fraction) -> Evidence:
        """Return the evidence for x (a full state: the parent is not needed)."""
        p, q = x.numerator, x.denominator
        square_ok = p * p <= 2 * q * q
        outcomes = {
            "nonnegative": Outcome(Verdict.PROVED, Trust.EXACT) if x >= 0 else
            Outcome(Verdict.REFUTED, Trust.EXACT, (f"x = {fraction_str(x)} < 0",)),
            "square": Outcome(Verdict.PROVED, Trust.EXACT, (f"p^2 = {p * p} <= 2 q^2 = {2 * q * q}",)) if square_ok else
            Outcome(Verdict.REFUTED, Trust.EXACT, (f"p^2 = {p * p} > 2 q^2 = {2 * q * q}: x > sqrt(2)",)),
            "bound": Outcome(Verdict.PROVED, Trust.EXACT),
        }
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, value=x,
                        state={"x": fraction_str(x)}, artifacts={"certificate": {"p": str(p), "q": str(q)}},
                        precision={"square": "exact integers"}, timings={})

    def local_proposer(self, seed: int) -> Proposer:
        """Return the Pell-convergent proposer (deterministic; `seed` is not needed)."""
        from mathloop_sqrt2.proposer import PellProposer

        return PellProposer()

    def state_summary(self, state: Mapping[str, Any]) -> str:
        return f"x = {state.get('x')}"
