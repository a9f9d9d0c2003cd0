"""Rigorous certification that f(t) = 1 + h sinc^2(pi t) P(2 pi t) + 2 sum w_i cos(2 pi b_i t) > 0 on [0, T].

Method (Arb balls, python-flint). P(2 pi t) = q(cos 2 pi t) with q = k_0 + 2 sum k_j T_j converted
exactly to monomials (exact Fractions, then Arb at a precision covering the coefficients' size, so
the ball Horner evaluation at a point stays tight; ball evaluation over a whole cell is never used,
it overestimates badly). On a cell [m - r, m + r] Taylor's theorem gives, for |tau| <= r,

    f(m + tau) >= f(m) + min_{|tau|<=r} (f'(m) tau + f''(m) tau^2 / 2) - F3 r^3 / 6,

with f, f', f'' at the midpoint as Arb balls and F3 >= sup |f'''| an exact rational (from
|d^l/dt^l sinc(pi t)| <= pi^l/(l+1), since sinc(y) = int_0^1 cos(y v) dv, and |d^k/dt^k P(2 pi t)| <=
(2 pi)^k sum eps_j j^k |k_j|, pi <= 22/7). A cell counts only when that lower bound is certainly
> 0; otherwise it is bisected. A midpoint with f certainly < 0 refutes (iii) there (the witness
t is rational, x = t/h). Cells narrower than 2^-44, or more than `max_cells` of them: UNKNOWN.
Heavy masses (2W >= 1; often dozens) are summed as one complex ball polynomial (`harmonics`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import flint
from flint import acb, acb_poly, arb, arb_poly, fmpq

from mathloop.targets.pair_correlation_rh.cosine_positivity import chebyshev_to_monomial
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate
from mathloop.targets.pair_correlation_rh_ceiling.conditions import light_masses

METHOD = "arb-taylor2-cells"
PI_UPPER = Fraction(22, 7)
MIN_WIDTH = Fraction(1, 2**44)
GUARD_BITS = 128
LOWEST_KEPT = 12


@dataclass(frozen=True)
class DualReport:
    """Outcome of the positivity certification of 1 + k-check.

    Attributes:
        status: "positive" (certified), "negative" (refuted at `witness`) or "unknown".
        reason: one line saying what was established.
        certificate: JSON-able summary (method, range, cell count, depth, smallest lower bound, ...).
        witness: a rational t with f(t) certainly < 0 (refutations only).
        lowest: midpoints of the cells with the smallest certified lower bounds (for cross-checks).
    """

    status: str
    reason: str
    certificate: dict[str, Any] = field(default_factory=dict)
    witness: Fraction | None = None
    lowest: tuple[Fraction, ...] = ()


def to_fraction(x: arb) -> Fraction:
    """Return the exact value of an exact Arb number (e.g. a ball's lower() or upper())."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _q(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def third_derivative_bound(c: DualCandidate) -> Fraction:
    """Return an exact rational F3 >= sup_t |f'''(t)| (see module doc)."""
    pi = PI_UPPER
    nodes = c.nodes
    s = [abs(nodes[0]) * (1 if k == 0 else 0) + 2 * sum((Fraction(j) ** k * abs(v) for j, v in enumerate(nodes) if j), Fraction(0))
         for k in range(4)]
    dq = [(2 * pi) ** k * s[k] for k in range(4)]  # |Q^(k)|
    sig = [Fraction(1), pi, Fraction(7, 6) * pi**2, Fraction(3, 2) * pi**3]  # |s^(i)|, s = sinc^2(pi t)
    binom = (1, 3, 3, 1)
    total = c.h * sum(binom[i] * sig[i] * dq[3 - i] for i in range(4))
    for m in c.masses:
        total += 2 * m.weight * (2 * pi * m.at / c.h) ** 3
    return total


MAX_HARMONIC = 4096


def harmonics(c: DualCandidate) -> tuple[Fraction, list[Fraction]] | None:
    """Return (g, weights by n) with the masses' frequencies a_i/h = n_i g, for heavy masses (2W >= 1), else None.

    Then sum_i 2 w_i cos(2 pi (a_i/h) t) = 2 Re sum_n c_n z^n, z = e^{2 pi i g t}: one complex ball
    polynomial (|z| = 1, so Horner stays tight) instead of a sine and cosine per mass. Light masses
    keep the per-mass path, so stored evidence re-checks byte-identically. None also when the n_i
    would exceed MAX_HARMONIC (masses with nearly incommensurable positions).
    """
    if not c.masses or light_masses(c):
        return None
    b = [m.at / c.h for m in c.masses]
    den = math.lcm(*(x.denominator for x in b))
    g = Fraction(math.gcd(*(x.numerator * (den // x.denominator) for x in b)), den)
    n = [int(x / g) for x in b]
    if max(n) > MAX_HARMONIC:
        return None
    coeffs = [Fraction(0)] * (max(n) + 1)
    for k, m in zip(n, c.masses):
        coeffs[k] += m.weight
    return g, coeffs


class DualFunction:
    """f and its first two derivatives at rational points, as Arb balls (precision set by `evaluate`)."""

    def __init__(self, c: DualCandidate) -> None:
        mono = chebyshev_to_monomial(c.nodes)
        self.poly = flint.fmpq_poly([_q(a) for a in mono])
        size = sum(abs(a) for a in mono) + 1
        self.prec = max(64, math.ceil(math.log2(size.numerator + 1) - math.log2(size.denominator)) + 64) + GUARD_BITS
        self.h = _q(c.h)
        self.masses = [(_q(m.at / c.h), _q(m.weight)) for m in c.masses]
        self.harmonics = harmonics(c)
        self._built = False

    def _build(self) -> None:
        d1 = self.poly.derivative()
        self._p = [arb_poly([arb(a) for a in p.coeffs()]) for p in (self.poly, d1, d1.derivative())]
        self._pi = arb.pi()
        self._hb = arb(self.h)
        self._mb = [(arb(b), arb(w)) for b, w in self.masses]
        if self.harmonics is not None:
            g, coeffs = self.harmonics
            self._g = _q(g)
            self._om = 2 * self._pi * arb(self._g)
            self._hp = [acb_poly([acb(arb(_q(n**k * w))) for n, w in enumerate(coeffs)]) for k in range(3)]
        self._built = True

    def at(self, t: Fraction) -> tuple[arb, arb, arb]:
        """Return (f(t), f'(t), f''(t)) as balls; call inside `flint.ctx` precision `self.prec`, t > 0."""
        if not self._built:
            self._build()
        pi = self._pi
        tb = arb(_q(t))
        s2, c2 = (2 * tb).sin_cos_pi()  # sin, cos of 2 pi t
        q0, q1, q2 = (p(c2) for p in self._p)
        dc = -2 * pi * s2  # d/dt cos(2 pi t)
        Q0 = q0
        Q1 = q1 * dc
        Q2 = q2 * dc * dc - 4 * pi * pi * c2 * q1
        y = pi * tb
        sy, cy = tb.sin_cos_pi()
        g0 = tb.sinc_pi()
        g1 = (cy - g0) / y  # sinc'(y)
        g2 = -g0 - 2 * g1 / y  # sinc''(y), from y sinc = sin
        S0 = g0 * g0
        S1 = 2 * pi * g0 * g1
        S2 = 2 * pi * pi * (g1 * g1 + g0 * g2)
        hb = self._hb
        f0 = 1 + hb * S0 * Q0
        f1 = hb * (S1 * Q0 + S0 * Q1)
        f2 = hb * (S2 * Q0 + 2 * S1 * Q1 + S0 * Q2)
        if self.harmonics is not None:  # heavy masses: one polynomial in z = e^{2 pi i g t} (module doc)
            z = acb(2 * _q(t) * self._g).exp_pi_i()
            p0, p1, p2 = (p(z) for p in self._hp)
            om = self._om
            return f0 + 2 * p0.real, f1 - 2 * om * p1.imag, f2 - 2 * om * om * p2.real
        for b, w in self._mb:
            sb, cb = (2 * b * tb).sin_cos_pi()
            om = 2 * pi * b
            f0 += 2 * w * cb
            f1 -= 2 * w * om * sb
            f2 -= 2 * w * om * om * cb
        return f0, f1, f2


def _floor(x: Fraction, digits: int = 15) -> Fraction:
    """Return x rounded down to a multiple of 10^-digits (still a lower bound, and short)."""
    return Fraction(math.floor(x * 10**digits), 10**digits)


def _quadratic_floor(f1: arb, f2: arb, r: arb) -> arb:
    """Return a ball whose lower end bounds min_{|tau|<=r} (f1 tau + f2 tau^2/2) from below."""
    a = f1.abs_upper()  # f1 tau >= -a |tau|
    b = f2.lower()  # f2 tau^2 >= b tau^2 (a and b are exact)
    if b > 0:  # -a u + b u^2/2 on [0, r]: decreasing up to u = a/b, its global minimum -a^2/(2b)
        return -a * r + b * r * r / 2 if a >= b * r else -(a * a) / (2 * b)
    return -a * r + b * r * r / 2


def initial_frequency(c: DualCandidate) -> int:
    """Return the frequency scale that sets the initial cell count (any cover is rigorous; this sets the cost).

    Light masses (2W < 1) keep the sum over the masses, as before heavy masses existed, so that stored
    evidence re-checks byte-identically; heavy masses use the highest frequency, since f oscillates
    no faster than its highest cosine and cells are bisected where needed.
    """
    b = [int(m.at / c.h) + 1 for m in c.masses]
    if light_masses(c):
        return len(c.nodes) + sum(b)
    return max([len(c.nodes)] + b)


def certify_mass_floor(c: DualCandidate, end: Fraction, *, max_cells: int) -> DualReport:
    """Return the rigorous verdict on a(t) = 1 + 2 sum w_i cos(2 pi (a_i/h) t) > 0 over [0, end].

    a is f with the piecewise-linear part removed (all nodes 0), so the same cells, Taylor bound and
    third-derivative bound apply; the period reduction of (iii) needs a >= 0 when 2W >= 1.
    """
    bare = replace(c, nodes=(Fraction(0), Fraction(0)))
    return certify_dual_positive(bare, end, max_cells=max_cells, what="a(t) = 1 + 2 sum w cos(2 pi b t)")


def certify_dual_positive(c: DualCandidate, end: Fraction, *, max_cells: int, what: str = "1 + k-check") -> DualReport:
    """Return the rigorous verdict on f > 0 over [0, end] (module doc); never PROVED when undecided."""
    fn = DualFunction(c)
    f3 = third_derivative_bound(c)
    base: dict[str, Any] = {"method": METHOD, "range": [Fraction(0), end], "variable": "t = h x",
                            "third_derivative_bound": f3, "precision_bits": fn.prec}
    f3b = None

    def cell(lo: Fraction, hi: Fraction) -> tuple[arb, arb]:
        nonlocal f3b
        if f3b is None:
            f3b = arb(_q(f3))
        m, r = (lo + hi) / 2, (hi - lo) / 2
        f0, f1, f2 = fn.at(m)
        rb = arb(_q(r))
        return f0, f0 + _quadratic_floor(f1, f2, rb) - f3b * rb * rb * rb / 6

    return cover(c, end, initial_frequency(c), cell, fn.prec, base, max_cells=max_cells, what=what)


def cover(c: DualCandidate, end: Fraction, frequency: int, cell, prec: int, base: dict[str, Any], *, max_cells: int,
          what: str, per_frequency: int = 4, counted: str = "") -> DualReport:
    """Return the verdict of covering [0, end] by cells: `cell(lo, hi)` gives (f at the midpoint, a lower bound of f
    on the cell) as balls at precision `prec`; a bound certainly > 0 settles the cell, f(m) certainly < 0 refutes,
    anything else is bisected (UNKNOWN below width 2^-44 or past `max_cells`). Starts from per_frequency *
    frequency * end cells."""
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        n0 = max(8, math.ceil(per_frequency * frequency * end))
        if n0 > max_cells:
            return DualReport("unknown", f"the range [0, {end}] needs {n0} initial cells > limit {max_cells}", base)
        stack = [(end * (n0 - i - 1) / n0, end * (n0 - i) / n0, 0) for i in range(n0)]
        digest = hashlib.sha256()
        count = deepest = 0
        lowest: list[tuple[Fraction, Fraction]] = []
        worst: tuple[Fraction, Fraction, Fraction] | None = None
        while stack:
            lo, hi, depth = stack.pop()
            count += 1
            deepest = max(deepest, depth)
            if count > max_cells:
                return DualReport("unknown", f"cell limit {max_cells} reached before the range was covered", base)
            m = (lo + hi) / 2
            f0, bound = cell(lo, hi)
            if f0 < 0:
                return DualReport("negative", f"{what} < 0 at t = {m} (x = t/h = {m / c.h}): f in {f0.str(10)}",
                                  {**base, "witness_value_upper": to_fraction(f0.upper())}, m)
            if bound > 0:
                low = _floor(to_fraction(bound.lower()))
                digest.update(f"{lo},{hi};".encode())
                lowest.append((low, m))
                if len(lowest) > 4 * LOWEST_KEPT:
                    lowest = sorted(lowest)[:LOWEST_KEPT]
                if worst is None or low < worst[0]:
                    worst = (low, lo, hi)
                continue
            if hi - lo < MIN_WIDTH:
                return DualReport("unknown", f"undecided on the cell [{lo}, {hi}] of width < 2^-44 (f(m) = {f0.str(10)})", base)
            stack.append((m, hi, depth + 1))
            stack.append((lo, m, depth + 1))
    finally:
        flint.ctx.prec = old
    assert worst is not None
    cert = {**base, "cell_count": count, "max_depth": deepest, "min_lower_bound": worst[0],
            "min_cell": [worst[1], worst[2]], "cells_sha256": digest.hexdigest()}
    return DualReport("positive", f"{what} > 0 on [0, {end}]: {count} Arb cells{counted}, smallest lower bound "
                      f"{float(worst[0]):.3e}", cert, None, tuple(m for _, m in sorted(lowest)[:LOWEST_KEPT]))
