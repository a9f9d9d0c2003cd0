"""Back-off by mixing, in knot form: lam c + (1 - lam) p for an LP dual c that dips slightly below 0 and a partner p.

Duals form a convex set and f, a are affine in the dual, so a mixture keeps (i), (ii) and the masses' rules
exactly, its L is the mixture of the L's, and f_mix = lam f_c + (1 - lam) f_p pointwise. Where f_c < 0 the mixture
is >= s for lam <= (f_p - s)/(f_p - f_c); `weight` takes the smallest such bound over a fine sample and over the
refined minima of the mixture, in floats (the checker decides). A mixture costs (1 - lam)(L_c - L_p) of L: about the
violation times dL/dmargin when p is the same LP at a larger margin, which is why the LP's violations are driven down
first (`lp_dense.VIOLATION`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate, Mass
from mathloop.targets.pair_correlation_rh_ceiling.knots import KnotDual
from mathloop.targets.pair_correlation_rh_ceiling.sample import FloatDual, Sample, local_minima, refine, sample_dual

SAFETY = 2e-8  # the floats' minimum of a proposed mixture (the Arb cells resolve ~10^-9; the cost in L is ~SAFETY)
REFINE_BELOW = 0.02
LAMBDA_DIGITS = 6  # lam is rounded down to a multiple of 10^-6 (short rationals; smaller lam is safer)


def as_float(c: DualCandidate) -> FloatDual:
    """Return the dual in floats (nodes, weights, mass positions on the grid)."""
    return FloatDual.of(c.N, np.array([float(v) for v in c.nodes]), np.array([float(m.weight) for m in c.masses]),
                        [int(m.at / c.h) for m in c.masses])


def mix(c: DualCandidate, p: DualCandidate, lam: Fraction) -> KnotDual:
    """Return lam c + (1 - lam) p in knot form (a knot wherever the mixture bends beyond alpha = 1; exact)."""
    if (c.h, c.A) != (p.h, p.A) or [m.at for m in c.masses] != [m.at for m in p.masses]:
        raise ValueError("a mixture needs the same h, A and mass positions")
    nodes = tuple(lam * x + (1 - lam) * y for x, y in zip(c.nodes, p.nodes))
    masses = tuple(Mass(m.at, lam * m.weight + (1 - lam) * n.weight) for m, n in zip(c.masses, p.masses))
    N, M = c.N, len(nodes) - 1
    kt = tuple((j, nodes[j]) for j in range(N + 1, M) if nodes[j + 1] - 2 * nodes[j] + nodes[j - 1])
    return KnotDual(c.h, c.A, lam * c.L + (1 - lam) * p.L, nodes, masses, kt)


@dataclass(frozen=True)
class Weight:
    """The largest mixing weight the floats allow, and the mixture's lowest float value of f or a there."""

    lam: Fraction
    low: float


def _bound(vc: np.ndarray, vp: np.ndarray, s: float) -> float:
    """Return the largest lam with lam vc + (1 - lam) vp >= s at every point (0 if the partner is not above s)."""
    bad = vc < s
    if not bad.any():
        return 1.0
    if (vp[bad] <= s).any():
        return 0.0
    return float(np.min((vp[bad] - s) / (vp[bad] - vc[bad])))


def weight(c: DualCandidate, p: DualCandidate, safety: float = SAFETY, points: int | None = None,
           c_float: FloatDual | None = None, p_float: FloatDual | None = None) -> Weight | None:
    """Return the mixing weight for lam c + (1 - lam) p (f >= safety on [0, 1], a >= safety on [0, 1/2]), or None."""
    fc, fp = c_float or as_float(c), p_float or as_float(p)
    K = points or 16 * max(fc.top, fp.top)
    sc, sp = sample_dual(fc, K), sample_dual(fp, K)
    heavy = len(fc.at) > 1
    half = sc.t <= 0.5
    lam = min(_bound(sc.f, sp.f, safety), _bound(sc.a[half], sp.a[half], safety) if heavy else 1.0)
    step = float(sc.t[1] - sc.t[0])
    low = -math.inf
    for _ in range(6):
        if lam <= 0:
            return None
        lam_f = math.floor(lam * 10**LAMBDA_DIGITS) / 10**LAMBDA_DIGITS
        mix_f = lambda tt: lam_f * fc.f_at(tt) + (1 - lam_f) * fp.f_at(tt)  # noqa: E731
        mix_a = lambda tt: lam_f * fc.a_at(tt) + (1 - lam_f) * fp.a_at(tt)  # noqa: E731
        t = refine(mix_f, sc.t[local_minima(sc.t, lam_f * sc.f + (1 - lam_f) * sp.f, REFINE_BELOW)], step, 0.0, 1.0)
        ta = (refine(mix_a, sc.t[half][local_minima(sc.t[half], lam_f * sc.a[half] + (1 - lam_f) * sp.a[half],
                                                      REFINE_BELOW)], step, 0.0, 0.5) if heavy else np.zeros(0))
        vc, vp, ac, ap = fc.f_at(t), fp.f_at(t), fc.a_at(ta), fp.a_at(ta)
        mixed = np.concatenate([lam_f * vc + (1 - lam_f) * vp, lam_f * ac + (1 - lam_f) * ap])
        whole = np.concatenate([lam_f * sc.f + (1 - lam_f) * sp.f, (lam_f * sc.a + (1 - lam_f) * sp.a)[half]])
        low = min(float(whole.min()), float(mixed.min()) if len(mixed) else math.inf)
        if low >= safety:
            return Weight(Fraction(math.floor(lam * 10**LAMBDA_DIGITS), 10**LAMBDA_DIGITS), low)
        lam = min(lam, _bound(vc, vp, safety), _bound(ac, ap, safety)) * (1 - 1e-9)
    return None


def float_minimum(c: DualCandidate, d: FloatDual | None = None) -> float:
    """Return the lowest float value of f on [0, 1] (and a on [0, 1/2]) over a fine sample and its refined minima."""
    from mathloop.targets.pair_correlation_rh_ceiling.sample import minima_below

    d = d or as_float(c)
    s: Sample = sample_dual(d, 16 * d.top)
    return minima_below(s, 0.0, len(d.at) > 1, REFINE_BELOW)[2]
