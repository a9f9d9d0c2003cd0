"""The exact conditions (i), (ii), support and masses of a dual, and the exact range reduction for (iii).

Each check returns (ok, reason); everything is exact rational arithmetic on the parsed candidate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from mathloop.domain import fraction_str
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate

PI_SQUARED_BELOW = Fraction(986, 100)  # pi > 3.1415 gives pi^2 > 9.8690 > 9.86
TAIL_DENOMINATOR = 1000


def on_the_line(c: DualCandidate) -> tuple[bool, str]:
    """Return whether k_j = j h - L for every j h <= 1 (condition (i)), with the first violation."""
    for j in range(c.N + 1):
        want = j * c.h - c.L
        if c.nodes[j] != want:
            return False, f"node j = {j} (alpha = {fraction_str(j * c.h)}) is {fraction_str(c.nodes[j])}, not alpha - L = {fraction_str(want)}"
    return True, f"k_j = j h - L for j = 0 .. {c.N} (k = |alpha| - L on [-1, 1])"


def above_floor(c: DualCandidate) -> tuple[bool, str]:
    """Return whether k_j >= -L for every j h >= 1 (condition (ii); k is linear between nodes)."""
    for j in range(c.N, len(c.nodes)):
        if c.nodes[j] < -c.L:
            return False, f"node j = {j} (alpha = {fraction_str(j * c.h)}) is {fraction_str(c.nodes[j])} < -L = {fraction_str(-c.L)}"
    return True, f"k_j >= -L for j = {c.N} .. {len(c.nodes) - 1}"


def supported(c: DualCandidate) -> tuple[bool, str]:
    """Return whether the last node k(A) is 0 (k supported in [-A, A], the formula for k-check)."""
    if c.nodes[-1] != 0:
        return False, f"last node k(A) = {fraction_str(c.nodes[-1])} must be 0 (k is supported in [-A, A])"
    return True, "k(A) = 0"


def masses_ok(c: DualCandidate) -> tuple[bool, str]:
    """Return whether every mass sits at >= 1 with weight >= 0 (what weak duality needs of a mass)."""
    for i, m in enumerate(c.masses):
        if m.at < 1:
            return False, f"masses[{i}].at = {fraction_str(m.at)} < 1 (r-hat <= 0 is only known for |alpha| >= 1)"
        if m.weight < 0:
            return False, f"masses[{i}].weight = {fraction_str(m.weight)} < 0"
    W = fraction_str(mass_sum(c))
    if light_masses(c):
        return True, f"{len(c.masses)} mass(es) at >= 1, weights >= 0, sum {W} < 1/2"
    return True, f"{len(c.masses)} mass(es) at >= 1, weights >= 0, sum {W} >= 1/2 (a(t) >= 0: the mass-floor check)"


def mass_sum(c: DualCandidate) -> Fraction:
    """Return W = sum of the masses' weights."""
    return sum((m.weight for m in c.masses), Fraction(0))


def light_masses(c: DualCandidate) -> bool:
    """Return whether 2W < 1, so a(t) = 1 + 2 sum w_i cos(2 pi b_i t) >= 1 - 2W > 0 exactly (no Arb check needed)."""
    return 2 * mass_sum(c) < 1


@dataclass(frozen=True)
class Range:
    """The exact range [0, end] (in t = h x) on which f >= 0 implies (iii) everywhere."""

    end: Fraction
    method: str
    period: int
    tail: Fraction | None

    def artifact(self) -> dict[str, object]:
        return {"end": self.end, "method": self.method, "period": self.period, "tail_end": self.tail,
                "pi_squared_below": PI_SQUARED_BELOW}


def abs_sum(c: DualCandidate) -> Fraction:
    """Return S = |k_0| + 2 sum_{j>=1} |k_j| (so |P| <= S)."""
    return abs(c.nodes[0]) + 2 * sum((abs(v) for v in c.nodes[1:]), Fraction(0))


def tail_end(c: DualCandidate) -> Fraction | None:
    """Return a rational T with T^2 (1 - 2W) pi^2 >= h S (beyond T: f >= 1 - 2W - h S/(pi t)^2 >= 0), or None if 2W >= 1."""
    gap = 1 - 2 * mass_sum(c)
    if gap <= 0:
        return None
    need = c.h * abs_sum(c) / (gap * PI_SQUARED_BELOW) * TAIL_DENOMINATOR**2
    n = math.isqrt(need.numerator // need.denominator) + 1
    T = Fraction(n, TAIL_DENOMINATOR)
    assert T * T * gap * PI_SQUARED_BELOW >= c.h * abs_sum(c)
    return T


def period(c: DualCandidate) -> int:
    """Return the common period (in t) of sin^2(pi t) P(2 pi t) and the masses' cosines."""
    p = 1
    for m in c.masses:
        d = (m.at / c.h).denominator
        p = p * d // math.gcd(p, d)
    return p


def reduced_range(c: DualCandidate) -> Range:
    """Return the smaller of the two exact reductions (see the package docstring). Requires masses_ok.

    With 2W >= 1 only the period reduction applies, and it holds only once a(t) >= 0 is certified on
    [0, period/2] (the `mass_floor` check; a is even and periodic).
    """
    per, tail = period(c), tail_end(c)
    if tail is None or per <= tail:
        why = "a >= 0" if tail is not None else "a >= 0 (certified by the mass-floor check)"
        return Range(Fraction(per), f"period: t^2 f = t^2 a(t) + c(t) with {why} and a, c periodic", per, tail)
    return Range(tail, "tail: |h sinc^2 P| <= h S / (pi t)^2 <= 1 - 2W beyond the end", per, tail)
