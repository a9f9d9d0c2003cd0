"""Independent cross-checks of a positivity verdict: mpmath at two precisions, and a float sample.

Neither is ever a proof; a disagreement with the Arb verdict means a bug, and becomes `error`.
The mpmath path sums the cosines directly (not through the Chebyshev-to-monomial conversion).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import mpmath
import numpy as np

from mathloop.targets.base import CheckerCrash
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate

DPS = (30, 45)
MAX_SAMPLES = 200_000


def f_mpmath(c: DualCandidate, t: Fraction, dps: int) -> mpmath.mpf:
    """Return f(t) = 1 + h sinc^2(pi t) P(2 pi t) + 2 sum w cos(2 pi (a/h) t) in mpmath at `dps` digits."""
    with mpmath.workdps(dps):
        tt = mpmath.mpf(t.numerator) / t.denominator
        h = mpmath.mpf(c.h.numerator) / c.h.denominator
        P = mpmath.mpf(c.nodes[0].numerator) / c.nodes[0].denominator
        for j, v in enumerate(c.nodes[1:], start=1):
            if v:
                P += 2 * (mpmath.mpf(v.numerator) / v.denominator) * mpmath.cospi(2 * j * tt)
        s = mpmath.sincpi(tt) ** 2
        out = 1 + h * s * P
        for m in c.masses:
            b = m.at / c.h
            out += 2 * (mpmath.mpf(m.weight.numerator) / m.weight.denominator) * mpmath.cospi(2 * (mpmath.mpf(b.numerator) / b.denominator) * tt)
        return +out


def scale(c: DualCandidate) -> float:
    """Return 1 + h S + 2W, the size of the terms of f (tolerances are relative to it)."""
    s = abs(c.nodes[0]) + 2 * sum(abs(v) for v in c.nodes[1:])
    return float(1 + c.h * s + 2 * sum(m.weight for m in c.masses))


def check_points(c: DualCandidate, points: Sequence[Fraction], floor: Fraction) -> None:
    """Raise CheckerCrash unless mpmath at both precisions agrees and stays >= the certified floor."""
    tol = 1e-20 * scale(c)
    for t in points:
        a, b = (f_mpmath(c, t, d) for d in DPS)
        if abs(a - b) > tol:
            raise CheckerCrash(f"dual_positivity: mpmath at {DPS} dps disagrees at t = {t}: {mpmath.nstr(a - b, 5)}")
        if b < mpmath.mpf(floor.numerator) / floor.denominator - tol:
            raise CheckerCrash(f"dual_positivity: mpmath f({t}) = {mpmath.nstr(b, 12)} is below the certified cell bound")


def sample_minimum(c: DualCandidate, end: Fraction) -> tuple[float, float]:
    """Return (t, f(t)) at the smallest float sample of f on an equispaced grid of [0, end]."""
    M = len(c.nodes) - 1 + sum(int(m.at / c.h) + 1 for m in c.masses)
    n = int(min(MAX_SAMPLES, 16 * M * float(end) + 1))
    t = np.linspace(0.0, float(end), max(n, 2))
    k = np.array([float(v) for v in c.nodes])
    j = np.arange(len(k))
    eps = np.where(j == 0, 1.0, 2.0)
    vals = np.empty_like(t)
    for lo in range(0, len(t), 2000):
        tt = t[lo:lo + 2000]
        v = 1.0 + float(c.h) * np.sinc(tt) ** 2 * (np.cos(2 * np.pi * np.outer(tt, j)) @ (eps * k))
        for m in c.masses:
            v += 2 * float(m.weight) * np.cos(2 * np.pi * float(m.at / c.h) * tt)
        vals[lo:lo + 2000] = v
    i = int(np.argmin(vals))
    return float(t[i]), float(vals[i])
