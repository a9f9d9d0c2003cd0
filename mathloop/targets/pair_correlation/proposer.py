"""Local proposer for `pair-correlation`: exact per-degree optima, rationalised, raised in degree.

For each number of even terms (degree 0, 2, 4, ...) the maximiser of B is computed exactly
(optimum.optimal_coefficients) and rounded to a growing number of significant digits. The
proposer offers the first rounding, in order of (degree, digits), that it has checked itself to
keep g >= 0 exactly and to beat the head by the contract's minimum improvement; it skips payloads
already in the memory. Its own checks are only a filter: the target's checker decides.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from mathloop.domain import fraction_str
from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import Malformed
from mathloop.targets.pair_correlation.functional import functional
from mathloop.targets.pair_correlation.optimum import optimal_coefficients, round_significant
from mathloop.targets.positivity import certify_nonnegative

DIGIT_SCHEDULE = (3, 6, 9, 12, 16, 20, 25, 30, 40)


@lru_cache(maxsize=64)
def _optimum(terms: int) -> tuple[Fraction, ...]:
    return tuple(optimal_coefficients(terms))


def rounded(terms: int, digits: int) -> dict[str, list[str]]:
    """Return the payload of the degree-(2 terms - 2) optimum rounded to `digits` significant digits."""
    return {"g": [fraction_str(round_significant(c, digits)) for c in _optimum(terms)]}


def polished(terms: int, max_digits: int) -> dict[str, list[str]]:
    """Return the rounded optimum with as many digits as the schedule and the limit allow."""
    fits = [d for d in DIGIT_SCHEDULE if 3 * d <= max_digits] or [DIGIT_SCHEDULE[0]]
    return rounded(terms, fits[-1])


class PolynomialProposer(Proposer):
    """Deterministic: the same head and memory give the same proposals (the seed is not needed)."""

    name = "local"

    def __init__(self, target: Any, seed: int) -> None:
        self.target = target
        self.seed = seed

    def _improves(self, payload: dict[str, list[str]], floor: Fraction | None) -> bool:
        try:
            cand = self.target.parse(payload)
        except Malformed:
            return False
        try:
            b = functional(cand.a).B
        except ZeroDivisionError:
            return False
        if floor is not None and b < floor:
            return False
        return certify_nonnegative(list(cand.a), Fraction(0), Fraction(1, 4)).status == "nonnegative"

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return up to ctx.samples improving candidates, lowest degree and fewest digits first."""
        spec = ctx.contract.bound_spec("proportion")
        head = ctx.head.bounds.get("proportion") if ctx.head else None
        floor = None if head is None else head + spec.min_improvement
        out: list[Proposal] = []
        seen = set(ctx.seen)
        for terms in range(1, self.target.max_terms + 1):
            for digits in DIGIT_SCHEDULE:
                payload = rounded(terms, digits)
                sha = payload_sha(payload)
                if sha in seen or not self._improves(payload, floor):
                    continue
                seen.add(sha)
                out.append(Proposal(payload, self.name, {"terms": terms, "digits": digits}))
                if len(out) >= ctx.samples:
                    return out
                break  # the next sample comes from a higher degree
        return out
