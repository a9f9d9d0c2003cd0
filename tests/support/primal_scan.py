"""A second code path for a `pair-correlation-rh` candidate (Fractions and python-flint balls; no mathloop code).

The checker decides r >= 0 exactly (Chebyshev-to-monomial conversion, square-free part, Descartes
bisection) and computes B with its own per-piece moment formula. Here the same facts come another way:

* the tail (r-hat <= 0 for alpha >= 1) and the mass in Fractions, straight from the definition;
* J = c_0 + 2 int_0^1 alpha r-hat by the two-point rule for alpha times a linear function,
  int_a^b alpha y = (b - a) (a (2 y_a + y_b) + b (y_a + 2 y_b)) / 6 (exact), with r-hat(1) interpolated;
* min P over [0, pi], P(theta) = c_0 + 2 sum c_j cos(j theta) = Re Q(e^{i theta}) with Q(z) = c_0 + 2 sum c_j z^j
  (neither Chebyshev nor monomial form in cos theta), enclosed rigorously by `certified_minimum`: a branch and
  bound over cells of [0, pi] in Arb balls (python-flint), each cell's lower bound from P, P', P'' at its
  midpoint and the bound |P'''| <= 2 sum j^3 |c_j| on the Taylor remainder; cells are bisected until the
  enclosure of the minimum is tight, and cells that cannot hold the minimiser are dropped, which localises it.

So this path proves, independently of the checker, that P >= lower > 0 everywhere (or that P < 0 somewhere:
upper < 0), and where P is smallest. Its first version sampled P in floats and refined the lowest sampled
minima: at (1/80, 5) it reported 1.29e-8 at theta = 2.8662 and missed the true minimum 1.0009e-10 at
theta = 0.398180, a dip narrower than its sample spacing.

The branch and bound needs too many cells past ~600 nodes; there `positive_by_roots` decides the sign instead:

* p(x) = c_0 + 2 sum c_j T_j(x) (x = cos theta) built by adding python-flint's Chebyshev polynomials T_j
  (the checker converts by Clenshaw's recurrence), cleared to integers;
* all its complex roots isolated in Arb (python-flint's `complex_roots`, not a Descartes count): real roots come
  with exactly zero imaginary part, and a root whose imaginary ball excludes 0 is not real. If no real root lies
  in [-1, 1] and p(0) > 0 exactly, P > 0 on [0, pi]; a real root of odd multiplicity inside (-1, 1) means P < 0
  somewhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any



def parse(payload: dict[str, Any]) -> tuple[Fraction, Fraction, list[Fraction]]:
    """Return (h, A, node values c_0 .. c_{A/h - 1}) as Fractions."""
    return Fraction(payload["h"]), Fraction(payload["A"]), [Fraction(v) for v in payload["nodes"]]


def rhat(h: Fraction, nodes: list[Fraction], alpha: Fraction) -> Fraction:
    """Return r-hat(alpha) for alpha >= 0 (linear between nodes, 0 from A on)."""
    j, rest = divmod(alpha, h)
    j = int(j)
    left = nodes[j] if j < len(nodes) else Fraction(0)
    right = nodes[j + 1] if j + 1 < len(nodes) else Fraction(0)
    return left + (right - left) * rest / h


def exact_conditions(h: Fraction, nodes: list[Fraction]) -> list[str]:
    """Return the violated exact conditions: r-hat <= 0 from alpha = 1 on, mass > 0 (empty when all hold)."""
    bad = [f"r-hat({j * h}) > 0" for j in range(len(nodes)) if j * h >= 1 and nodes[j] > 0]
    bad += ["r-hat(1) > 0"] if rhat(h, nodes, Fraction(1)) > 0 else []
    bad += ["mass <= 0"] if h * (nodes[0] + 2 * sum(nodes[1:])) <= 0 else []
    return bad


def bound(h: Fraction, nodes: list[Fraction]) -> Fraction:
    """Return B = 2 - J / int r-hat exactly, by the two-point rule per piece of [0, 1]."""
    mass = h * (nodes[0] + 2 * sum(nodes[1:]))
    cuts = [j * h for j in range(int(1 / h) + 1)]
    if cuts[-1] != 1:
        cuts.append(Fraction(1))
    moment = Fraction(0)
    for a, b in zip(cuts, cuts[1:]):
        ya, yb = rhat(h, nodes, a), rhat(h, nodes, b)
        moment += (b - a) * (a * (2 * ya + yb) + b * (ya + 2 * yb)) / 6
    return 2 - (nodes[0] + 2 * moment) / mass


@dataclass(frozen=True)
class RootVerdict:
    """The sign of P on [0, pi] from p's isolated roots: 'positive', 'negative' or 'unknown' (with the reason)."""

    status: str
    reason: str
    degree: int
    nearest: float  # the smallest |Im| of a root whose real part lies in [-1, 1] (how close P comes to touching 0)


def integer_chebyshev(nodes: list[Fraction]) -> Any:
    """Return D p(x) as a flint.fmpz_poly, p = c_0 + 2 sum c_j T_j, D > 0 the nodes' common denominator."""
    from flint import fmpz_poly

    den = math.lcm(*(v.denominator for v in nodes))
    ints = [int(v * den) for v in nodes]
    p = fmpz_poly([ints[0]])
    for j, c in enumerate(ints[1:], start=1):
        if c:
            p += 2 * c * fmpz_poly.chebyshev_t(j)
    return p


def positive_by_roots(payload: dict[str, Any]) -> RootVerdict:
    """Return the sign of P on [0, pi] decided by isolating every complex root of p (module doc)."""
    _, _, nodes = parse(payload)
    p = integer_chebyshev(nodes)
    roots = p.complex_roots()
    if sum(m for _, m in roots) != p.degree():
        return RootVerdict("unknown", "the roots found do not add up to the degree", p.degree(), math.nan)
    nearest = math.inf
    for r, m in roots:
        re_lo, re_hi = _exact(r.real.lower()), _exact(r.real.upper())
        if re_hi < -1 or re_lo > 1:
            continue
        if r.imag.is_exact() and r.imag.is_zero():  # a real root
            if -1 < re_lo and re_hi < 1 and m % 2:
                return RootVerdict("negative", f"p changes sign at the real root {r.real.str(10)} in (-1, 1)",
                                   p.degree(), 0.0)
            return RootVerdict("unknown", f"a real root {r.real.str(10)} (multiplicity {m}) meets [-1, 1]",
                               p.degree(), 0.0)
        if r.imag.contains(0):
            return RootVerdict("unknown", f"the root {r.str(10)} is not isolated from the real axis", p.degree(),
                               0.0)
        nearest = min(nearest, float(abs(r.imag).lower()))
    if p(0) <= 0:  # no real root in [-1, 1]: p has one sign there, that of p(0)
        return RootVerdict("negative", "p(0) <= 0 and p has no real root in [-1, 1]", p.degree(), nearest)
    return RootVerdict("positive", "no real root of p in [-1, 1] and p(0) > 0", p.degree(), nearest)


def p_exact(nodes: list[Fraction], at_pi: bool) -> Fraction:
    """Return P(0) or P(pi) exactly."""
    return nodes[0] + 2 * sum(c * (-1 if at_pi and j % 2 else 1) for j, c in enumerate(nodes) if j)




@dataclass(frozen=True)
class Minimum:
    """A certified enclosure of min P over [0, pi].

    Attributes:
        lower: P(theta) >= lower for every theta in [0, pi] (exact rational, from Arb lower bounds).
        upper: P(at) <= upper at the point `at` (so min P <= upper).
        at: the exact point where P was evaluated to at most `upper`.
        where: disjoint theta intervals (exact, outward) outside of which P > upper: the minimiser lies in one.
        cells: how many cells were evaluated.
    """

    lower: Fraction
    upper: Fraction
    at: Fraction
    where: tuple[tuple[Fraction, Fraction], ...]
    cells: int


def _exact(x: Any) -> Fraction:
    """Return an exact arb (a dyadic, such as a ball's lower() or upper()) as a Fraction."""
    man, exp = x.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def certified_minimum(payload: dict[str, Any], *, cells_per_node: int = 8, rel_tol: float = 1e-3,
                      prec: int = 256, max_cells: int = 400_000) -> Minimum:
    """Return a certified enclosure of min P on [0, pi] and where it is (branch and bound in Arb balls).

    Each cell [a, b] (a = k pi / (K 2^l)) is bounded below by the least value on |t| <= R of the quadratic
    P(m) + P'(m) t + P''(m) t^2 / 2, minus M3 R^3 / 6: m is the cell's exact dyadic midpoint, R an upper bound
    of its half-width, M3 = 2 sum j^3 |c_j| >= |P'''|. Cells whose lower bound exceeds the best value found are
    dropped (they cannot hold the minimiser); the rest are bisected until the enclosure is at most
    rel_tol |upper| wide (or the cells reach level 60). Q(z) is evaluated at e^{i m} by Horner in complex balls,
    whose rectangular wrapping loses about 0.4 bit per degree: hence 256 bits by default.

    Raises:
        RuntimeError: more than max_cells cells would be needed (nothing is claimed then).
    """
    from flint import acb, acb_poly, arb, ctx

    _, _, nodes = parse(payload)
    n = len(nodes)
    with ctx.workprec(prec):
        Q = acb_poly([arb(nodes[0].numerator) / nodes[0].denominator]
                     + [2 * arb(v.numerator) / v.denominator for v in nodes[1:]])
        Q1 = Q.derivative()
        Q2 = Q1.derivative()
        m3 = arb(2 * sum(j**3 * abs(v) for j, v in enumerate(nodes)).__ceil__())  # an integer >= M3, exact
        pi = arb.pi()
        count = 0

        def cell(k: int, level: int) -> tuple[Fraction, Fraction, Fraction, Fraction, Fraction]:
            """Return (lower bound on the cell, upper bound of P(mid), mid, a lower, b upper)."""
            nonlocal count
            count += 1
            if count > max_cells:
                raise RuntimeError(f"certified_minimum: more than {max_cells} cells")
            parts = n * cells_per_node * 2**level
            a, b = pi * k / parts, pi * (k + 1) / parts
            mid = arb(((a + b) / 2).mid())
            R = arb(max((b - mid).upper(), (mid - a).upper()))
            z = (acb(0, 1) * mid).exp()
            q, q1, q2 = Q(z), Q1(z), Q2(z)
            p0 = q.real
            p1 = (acb(0, 1) * z * q1).real
            p2 = (-z * q1 - z * z * q2).real
            if p2.lower() > 0 and (abs(p1) - p2 * R).lower() <= 0:
                quad = p0 - p1 * p1 / (2 * p2)  # the parabola's least value on the whole line
            else:
                curve = p2 if p2.lower() > 0 else arb(min(p2.lower(), arb(0)))
                quad = p0 - abs(p1) * R + curve * R * R / 2  # its least value on |t| <= R, or less
            low = (quad - m3 * R * R * R / 6).lower()
            return _exact(low), _exact(p0.upper()), _exact(mid), _exact(a.lower()), _exact(b.upper())

        live = [(k, 0, *cell(k, 0)) for k in range(n * cells_per_node)]
        while True:
            upper, at = min((c[3], c[4]) for c in live)
            live = [c for c in live if c[2] <= upper]  # a cell above the best value cannot hold the minimiser
            tol = Fraction(rel_tol) * abs(upper)
            coarse = [c for c in live if upper - c[2] > tol and c[1] < 60]
            if not coarse:
                break
            live = [c for c in live if not (upper - c[2] > tol and c[1] < 60)]
            live += [(2 * k + d, level + 1, *cell(2 * k + d, level + 1)) for k, level, *_ in coarse for d in (0, 1)]
    where: list[tuple[Fraction, Fraction]] = []
    for c in sorted(live, key=lambda c: c[5]):
        if where and c[5] <= where[-1][1]:
            where[-1] = (where[-1][0], max(where[-1][1], c[6]))
        else:
            where.append((c[5], c[6]))
    return Minimum(min(c[2] for c in live), upper, at, tuple(where), count)
