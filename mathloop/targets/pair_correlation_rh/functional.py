"""The RH-class functional of a piecewise-linear even r-hat on the grid hZ, in exact rationals.

r-hat(j h) = nodes[j] for j = 0 .. N-1 (N = A/h), r-hat(+-A) = 0, linear in between, even. Then

    int r-hat = h (c_0 + 2 sum_{j>=1} c_j)            (exact for piecewise-linear functions)
    J = r-hat(0) + int_{-1}^{1} |alpha| r-hat(alpha) d alpha = c_0 + 2 int_0^1 alpha r-hat,
    B = 2 - J / int r-hat                               (scale invariant)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import mpmath


@dataclass(frozen=True)
class RhFunctional:
    """The exact pieces of the bound.

    Attributes:
        mass: int r-hat over R (= r(0)).
        first_moment: int_{-1}^{1} |alpha| r-hat(alpha) d alpha.
        J: r-hat(0) + first_moment.
    """

    h: Fraction
    A: Fraction
    mass: Fraction
    first_moment: Fraction
    J: Fraction

    @property
    def B(self) -> Fraction:
        return 2 - self.J / self.mass

    def artifact(self) -> dict[str, Any]:
        return {
            "h": self.h,
            "A": self.A,
            "mass": self.mass,
            "first_moment": self.first_moment,
            "J": self.J,
            "B": self.B if self.mass != 0 else None,
            "identity": "mass = h*(c0 + 2*sum_{j>=1} c_j); J = c0 + 2*int_0^1 a*rhat(a) da; B = 2 - J/mass",
        }


def node_values(nodes: Sequence[Fraction]) -> list[Fraction]:
    """Return the node values with the closing zero at alpha = A appended."""
    return [*nodes, Fraction(0)]


def value_at(h: Fraction, nodes: Sequence[Fraction], alpha: Fraction) -> Fraction:
    """Return r-hat(alpha) exactly for alpha >= 0 (0 beyond A)."""
    c = node_values(nodes)
    j = int(alpha // h)
    if j >= len(c) - 1:
        return Fraction(0)
    t = (alpha - j * h) / h
    return c[j] + (c[j + 1] - c[j]) * t


def rh_functional(h: Fraction, A: Fraction, nodes: Sequence[Fraction]) -> RhFunctional:
    """Return the exact mass, first moment on [-1, 1], J and B for the given nodes."""
    c = node_values(nodes)
    mass = h * (c[0] + 2 * sum(c[1:], Fraction(0)))
    half_moment = Fraction(0)  # int_0^1 alpha r-hat
    for j in range(len(c) - 1):
        a = j * h
        if a >= 1:
            break
        b = min((j + 1) * h, Fraction(1))
        v = (c[j + 1] - c[j]) / h  # r-hat = u + v alpha on this segment
        u = c[j] - v * a
        half_moment += u * (b * b - a * a) / 2 + v * (b**3 - a**3) / 3
    first = 2 * half_moment
    return RhFunctional(h, A, mass, first, c[0] + first)


def b_by_quadrature(h: Fraction, nodes: Sequence[Fraction], dps: int) -> mpmath.mpf:
    """Return B by Simpson's rule per linear piece in mpmath (exact for quadratics; a cross-check)."""
    with mpmath.workdps(dps):
        H = mpmath.mpf(h.numerator) / h.denominator
        vals = [mpmath.mpf(x.numerator) / x.denominator for x in node_values(nodes)]

        def rhat(x):
            j = int(mpmath.floor(x / H))
            if j >= len(vals) - 1:
                return mpmath.mpf(0)
            t = x / H - j
            return vals[j] * (1 - t) + vals[j + 1] * t

        mass = H * (vals[0] + 2 * mpmath.fsum(vals[1:]))
        breaks = sorted({mpmath.mpf(0), mpmath.mpf(1)} | {H * k for k in range(len(vals)) if H * k < 1})
        mom = mpmath.mpf(0)
        for a, b in zip(breaks, breaks[1:]):
            m = (a + b) / 2  # alpha * r-hat is quadratic on each piece: Simpson is exact
            mom += (b - a) / 6 * (a * rhat(a) + 4 * m * rhat(m) + b * rhat(b))
        return 2 - (vals[0] + 2 * mom) / mass
