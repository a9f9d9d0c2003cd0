"""Rigorous f(t) > 0 on [0, T] for a dual through its kinks: cost per cell follows the knots, not A/h.

With the second differences d_j = k_{j+1} - 2 k_j + k_{j-1} of the even node sequence (k_{M+1} = 0), k'' is
sum_j (d_j/h) delta_{jh}, so k-check(x) = -h D(2 pi t)/(4 pi^2 t^2) (t = h x), D(theta) = sum_j eps_j d_j cos(j theta)
(eps_0 = 1, else 2), and, since sum_{j in Z} d_j = 0 (k has compact support),

    f(t) = a(t) - h D(2 pi t)/(4 pi^2 t^2) = a(t) + h sum_{j>=1} j^2 d_j sinc^2(pi j t),           (*)

a(t) = 1 + 2 sum_i w_i cos(2 pi b_i t), b_i = a_i/h. Only the j where k bends enter (0, 1/h, the knots, A/h).
Method (Arb balls, python-flint, fixed precision, no monomial conversion): on a cell [m - r, m + r], Taylor's
theorem to third order gives

    f(m + tau) >= f(m) + min_{|tau|<=r}(f'(m) tau + f''(m) tau^2/2) - |f'''(m)| r^3/6 - F4 r^4/24,

with f .. f''' at m from the first form of (*) (sparse cosine sums: one sin_cos_pi per kink or mass) and F4 >=
sup over the cell of |f''''|, the smaller of two bounds: the node form's global one (`node_fourth_bound`,
sharp near t = 0) and, from the second form, masses plus per kink h j^2 |d_j| (pi j)^4 B(pi j lo), where
B(y) = min(16/15, 8/y^2 + 32/y^3 + 72/y^4 + 96/y^5 + 120/y^6) bounds |d^4/dy^4 sinc^2(y)| for y >= the
cell's y (16/15 from sinc^2(y) = int (1 - |u|) cos(2 u y) du; the rest is Leibniz on sin^2(y) y^-2 and
decreases in y), pi in [3, 22/7]. The local bound decays like t^-2, which makes coarse cells enough away from
t = 0; the third-order term uses the actual f'''(m), far below any sup bound. A cell counts only when the
lower bound is certainly > 0; else it is bisected; a midpoint with f certainly < 0 refutes (iii) there; cells
narrower than 2^-44 or more than `max_cells` of them give UNKNOWN.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from typing import Any

import flint
from flint import arb, fmpq

from mathloop.targets.pair_correlation_rh_ceiling.arb_positivity import (DualReport, _quadratic_floor, cover,
                                                                         to_fraction)
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate

METHOD = "arb-kink-taylor3-cells"
PREC = 192  # fixed: the sums stay tight at any A/h; the t^-2 cancellation near 0 costs < 60 bits for t > 2^-25
PI_UPPER = Fraction(22, 7)
PI_LOWER = Fraction(3)
LEIBNIZ = (8, 32, 72, 96, 120)  # coefficients of y^-2 .. y^-6 in the bound on the 4th derivative of sinc^2(y)
SINC2_D4 = Fraction(16, 15)  # its global bound: int (1 - |u|) (2u)^4 du
SPLIT_Y = 6  # kinks with 3 j lo >= SPLIT_Y take the Leibniz bound (below 16/15 there); any split is rigorous


def _q(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def kinks(c: DualCandidate) -> dict[int, Fraction]:
    """Return the nonzero second differences d_j (j >= 0) of the even node sequence, exactly."""
    k = c.nodes
    M = len(k) - 1
    at = lambda j: k[abs(j)] if abs(j) <= M else Fraction(0)  # noqa: E731
    out: dict[int, Fraction] = {}
    prev, cur = at(-1), at(0)
    for j in range(M + 2):  # j = M + 1 bends only if k_M != 0 (then the support check refutes anyway)
        nxt = at(j + 1)
        d = nxt - 2 * cur + prev
        if d:
            out[j] = d
        prev, cur = cur, nxt
    return out


def mass_fourth_bound(c: DualCandidate) -> Fraction:
    """Return sum 2 |w_i| (2 pi b_i)^4 >= sup |a''''| (pi <= 22/7)."""
    return sum((2 * abs(m.weight) * (2 * PI_UPPER * m.at / c.h) ** 4 for m in c.masses), Fraction(0))


def node_fourth_bound(c: DualCandidate) -> Fraction:
    """Return F4 >= sup_t |f''''(t)| from the node form 1 + h sinc^2(pi t) P(2 pi t) + masses (sharp near t = 0).

    |d^i/dt^i sinc^2(pi t)| <= (2 pi)^i 2/((i+1)(i+2)) (sinc^2(pi t) = int (1 - |u|) cos(2 pi u t) du) and
    |d^k/dt^k P(2 pi t)| <= (2 pi)^k (|k_0| [k = 0] + 2 sum j^k |k_j|), pi <= 22/7; then Leibniz.
    """
    two_pi = 2 * PI_UPPER
    s = [(abs(c.nodes[0]) if k == 0 else 0) + 2 * sum((Fraction(j) ** k * abs(v) for j, v in enumerate(c.nodes) if j),
                                                      Fraction(0)) for k in range(5)]
    binom = (1, 4, 6, 4, 1)
    total = c.h * sum(binom[i] * two_pi**i * Fraction(2, (i + 1) * (i + 2)) * two_pi ** (4 - i) * s[4 - i]
                      for i in range(5))
    return total + mass_fourth_bound(c)


Term = tuple[fmpq, arb, arb, arb, arb]


class KinkFunction:
    """f, f', f'', f''' at rational points as Arb balls, and a local F4 per cell (module doc)."""

    def __init__(self, c: DualCandidate) -> None:
        self.d = kinks(c)
        old = flint.ctx.prec
        flint.ctx.prec = PREC
        try:
            self._build(c)
        finally:
            flint.ctx.prec = old

    def _build(self, c: DualCandidate) -> None:
        # kinks: frequencies j (coefficients eps_j d_j); masses: frequencies b_i = a_i/h (coefficients 2 w_i)
        self.knot_terms = self._terms([(Fraction(j), (1 if j == 0 else 2) * v) for j, v in sorted(self.d.items())])
        self.mass_terms = self._terms([(m.at / c.h, 2 * m.weight) for m in c.masses])
        self.kappa = arb(_q(c.h)) / (4 * arb.pi() ** 2)
        self.mass4 = arb(_q(mass_fourth_bound(c)))
        self.node4 = arb(_q(node_fourth_bound(c)))
        # per kink j >= 1 (sorted): h j^2 |d_j| (pi j)^4 times 16/15 (prefix sums) or the Leibniz terms (suffix sums)
        js = sorted(j for j in self.d if j >= 1)
        self.js = js
        base = [c.h * j**2 * abs(self.d[j]) * (PI_UPPER * j) ** 4 for j in js]
        prefix = [Fraction(0)]
        for b in base:
            prefix.append(prefix[-1] + SINC2_D4 * b)
        self.prefix = [arb(_q(x)) for x in prefix]
        self.suffix: list[list[arb]] = []
        for p, coef in enumerate(LEIBNIZ, start=2):
            acc, col = Fraction(0), [Fraction(0)] * (len(js) + 1)
            for i in range(len(js) - 1, -1, -1):
                acc += base[i] * coef / (PI_LOWER * js[i]) ** p
                col[i] = acc
            self.suffix.append([arb(_q(x)) for x in col])

    @staticmethod
    def _terms(freq_coef: list[tuple[Fraction, Fraction]]) -> list[Term]:
        """Return [(2 nu, c, c w, c w^2, c w^3)], w = 2 pi nu: the term c cos(w t) and its derivatives' factors."""
        out = []
        for nu, cf in freq_coef:
            c0 = arb(_q(cf))
            w = 2 * arb.pi() * arb(_q(nu))
            out.append((_q(2 * nu), c0, c0 * w, c0 * w * w, c0 * w * w * w))
        return out

    @staticmethod
    def _sums(terms: list[Term], t: fmpq) -> tuple[arb, arb, arb, arb]:
        """Return sum c cos(w t) and its first three derivatives at t.

        One sin_cos_pi per term: a repeated complex ball product would grow the radius by up to sqrt 2 per step.
        """
        s0, s1, s2, s3 = arb(0), arb(0), arb(0), arb(0)
        for two_nu, c0, c1, c2, c3 in terms:
            sn, cs = arb(two_nu * t).sin_cos_pi()
            s0 += c0 * cs
            s1 -= c1 * sn
            s2 -= c2 * cs
            s3 += c3 * sn
        return s0, s1, s2, s3

    def at(self, t: Fraction) -> tuple[arb, arb, arb, arb]:
        """Return f(t) and its first three derivatives as balls, t > 0; call inside `flint.ctx` precision PREC."""
        tq = _q(t)
        g0, g1, g2, g3 = self._sums(self.knot_terms, tq)
        m0, m1, m2, m3 = self._sums(self.mass_terms, tq)
        tb = arb(tq)
        u0 = 1 / (tb * tb)  # t^-2 and its derivatives
        u1 = -2 * u0 / tb
        u2 = 6 * u0 * u0
        u3 = -4 * u2 / tb
        k = self.kappa
        f0 = 1 + m0 - k * g0 * u0
        f1 = m1 - k * (g1 * u0 + g0 * u1)
        f2 = m2 - k * (g2 * u0 + 2 * g1 * u1 + g0 * u2)
        f3 = m3 - k * (g3 * u0 + 3 * g2 * u1 + 3 * g1 * u2 + g0 * u3)
        return f0, f1, f2, f3

    def fourth(self, lo: Fraction) -> arb:
        """Return a ball whose upper end bounds sup |f''''| on [lo, oo) (module doc)."""
        if lo <= 0:
            return self.node4
        i = bisect.bisect_left(self.js, math.ceil(Fraction(SPLIT_Y) / (PI_LOWER * lo)))
        inv = 1 / arb(_q(lo))
        out = self.mass4 + self.prefix[i]
        pw = inv * inv
        for col in self.suffix:
            out += col[i] * pw
            pw *= inv
        return out if out.upper() < self.node4.upper() else self.node4


def certify_kinks_positive(c: DualCandidate, end: Fraction, *, max_cells: int,
                           what: str = "1 + k-check") -> DualReport:
    """Return the rigorous verdict on f > 0 over [0, end] from the kinks (module doc); never PROVED when undecided."""
    fn = KinkFunction(c)
    base: dict[str, Any] = {"method": METHOD, "range": [Fraction(0), end], "variable": "t = h x", "precision_bits": PREC,
                            "kinks": len(fn.d), "masses": len(c.masses),
                            "fourth_derivative_bound_at_0": to_fraction(fn.node4.upper()),
                            "fourth_derivative": "min(node form, masses + kinks with min(16/15, 8/y^2 + 32/y^3 + 72/y^4 "
                                                 "+ 96/y^5 + 120/y^6) at y = 3 j lo), pi <= 22/7"}
    top = max([len(c.nodes)] + [int(m.at / c.h) + 1 for m in c.masses])

    def cell(lo: Fraction, hi: Fraction) -> tuple[arb, arb]:
        f0, f1, f2, f3 = fn.at((lo + hi) / 2)
        rb = arb(_q((hi - lo) / 2))
        r3 = rb * rb * rb
        return f0, f0 + _quadratic_floor(f1, f2, rb) - arb(f3.abs_upper()) * r3 / 6 - fn.fourth(lo) * r3 * rb / 24

    return cover(c, end, top, cell, PREC, base, max_cells=max_cells, what=what, per_frequency=2,
                 counted=f" over {len(fn.d)} kinks")
