"""Exact algebra of the main term: sums of c·x^i α^a β^b e^{κx + c₀} with rational c, κ, c₀.

R and θ are rationals, so every integral of polynomial × exponential that the main term needs
(docs/przz.md, steps 3–5) is a finite sum of rationals times e^{c₀} with rational c₀; nothing is
rounded. α = A + R and β = B + R are the shift variables around the evaluation point A = B = −R,
kept as truncated polynomials (degree ≤ deg Q in each) because c needs Q(−∂_A)Q(−∂_B) there.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from typing import Mapping, Sequence

# key (i, a, b, kappa, c0): x^i α^a β^b e^{kappa·x + c0}
XSeries = dict[tuple[int, int, int, Fraction, Fraction], Fraction]
# key (a, b, c0): α^a β^b e^{c0}
Series = dict[tuple[int, int, Fraction], Fraction]
ZERO = Fraction(0)


def _add(d: dict, key, value: Fraction) -> None:
    if value:
        v = d.get(key, ZERO) + value
        if v:
            d[key] = v
        else:
            d.pop(key, None)


def int_w_exp(n: int, lam: Fraction) -> list[tuple[int, Fraction, Fraction]]:
    """Return ∫₀^Y w^n e^{λw} dw as terms (e, κ, c): c·Y^e·e^{κY}.

    >>> int_w_exp(1, Fraction(0))
    [(2, Fraction(0, 1), Fraction(1, 2))]
    """
    if lam == 0:
        return [(n + 1, ZERO, Fraction(1, n + 1))]
    f = math.factorial(n)
    out = [(n - i, lam, Fraction((-1) ** i * f, math.factorial(n - i)) / lam ** (i + 1)) for i in range(n + 1)]
    out.append((0, ZERO, Fraction((-1) ** (n + 1) * f) / lam ** (n + 1)))
    return out


def int_x_exp(i: int, kappa: Fraction, theta: Fraction) -> list[tuple[Fraction, Fraction]]:
    """Return ∫₀^θ x^i e^{κx} dx as terms (c₀, c): c·e^{c₀}.

    >>> int_x_exp(0, Fraction(0), Fraction(1, 2))
    [(Fraction(0, 1), Fraction(1, 2))]
    """
    out: dict[Fraction, Fraction] = {}
    for e, k, c in int_w_exp(i, kappa):
        _add(out, k * theta, c * theta**e)
    return sorted(out.items())


def phi(P: Sequence[Fraction], p: int, shift: tuple[Fraction, int, int], theta: Fraction, deg: int) -> XSeries:
    """Return Φ(θ − x) for one side of a Laurent term, as an XSeries in x (docs/przz.md, step 4).

    p = 1: σ·P(Y/θ) + P'(Y/θ)/θ;  p = 0: P(Y/θ);  p = −k < 0: ∫₀^Y w^{k−1}/(k−1)! e^{−wσ} P((Y−w)/θ) dw,
    with Y = θ − x and σ = s₀ + s₁·v the side's shift (v = α when which == 0, β when which == 1).

    Raises:
        ValueError: p > 1 (the kernel never has it when every P vanishes at 0).
    """
    s0, which, s1 = shift
    inY: dict[tuple[int, int, Fraction], Fraction] = {}  # (e, m, kappa): Y^e v^m e^{kappa·Y}
    if p == 1:
        for j, pj in enumerate(P):
            _add(inY, (j, 0, ZERO), s0 * pj / theta**j)
            _add(inY, (j, 1, ZERO), s1 * pj / theta**j)
            if j:
                _add(inY, (j - 1, 0, ZERO), j * pj / theta**j)
    elif p == 0:
        for j, pj in enumerate(P):
            _add(inY, (j, 0, ZERO), pj / theta**j)
    elif p < 0:
        k = -p
        lam = -s0
        for m in range(deg + 1):
            em = Fraction((-s1) ** m, math.factorial(m) * math.factorial(k - 1))
            for j, pj in enumerate(P):
                for i in range(j + 1):  # (Y − w)^j = Σ C(j,i) Y^{j−i} (−w)^i
                    c = em * pj / theta**j * math.comb(j, i) * (-1) ** i
                    for e, kap, cc in int_w_exp(k - 1 + m + i, lam):
                        _add(inY, (j - i + e, m, kap), c * cc)
    else:
        raise ValueError(f"kernel exponent p = {p} > 1 is outside the derivation")
    out: XSeries = {}
    for (e, m, kap), c in inY.items():
        a, b = (m, 0) if which == 0 else (0, m)
        for i in range(e + 1):  # Y^e = (θ − x)^e
            _add(out, (i, a, b, -kap, kap * theta), c * math.comb(e, i) * theta ** (e - i) * (-1) ** i)
    return out


def mul_trunc(f: XSeries, g: XSeries, deg: int) -> XSeries:
    """Return f·g with terms of α- or β-degree above `deg` dropped."""
    out: XSeries = defaultdict(Fraction)
    for (i1, a1, b1, k1, c1), v1 in f.items():
        for (i2, a2, b2, k2, c2), v2 in g.items():
            if a1 + a2 <= deg and b1 + b2 <= deg:
                out[(i1 + i2, a1 + a2, b1 + b2, k1 + k2, c1 + c2)] += v1 * v2
    return {k: v for k, v in out.items() if v}


def integrate_x(f: XSeries, theta: Fraction) -> Series:
    """Return ∫₀^θ f dx."""
    out: Series = {}
    for (i, a, b, kap, c0), v in f.items():
        for e0, c in int_x_exp(i, kap, theta):
            _add(out, (a, b, c0 + e0), v * c)
    return out


def series_mul(f: Mapping, g: Mapping, deg: int) -> Series:
    """Return f·g for Series, truncated at degree `deg` in α and in β."""
    out: Series = defaultdict(Fraction)
    for (a1, b1, c1), v1 in f.items():
        for (a2, b2, c2), v2 in g.items():
            if a1 + a2 <= deg and b1 + b2 <= deg:
                out[(a1 + a2, b1 + b2, c1 + c2)] += v1 * v2
    return {k: v for k, v in out.items() if v}


def exp_neg_ab(R: Fraction, deg: int) -> Series:
    """Return e^{−A−B} = e^{2R}·e^{−α−β} as a truncated Series."""
    return {
        (a, b, 2 * R): Fraction((-1) ** (a + b), math.factorial(a) * math.factorial(b))
        for a in range(deg + 1)
        for b in range(deg + 1)
    }


def inv_a_plus_b(R: Fraction, deg: int) -> Series:
    """Return 1/(A+B) = 1/(α+β−2R) = −Σ_k (α+β)^k/(2R)^{k+1}, truncated."""
    out: Series = {}
    for a in range(deg + 1):
        for b in range(deg + 1):
            _add(out, (a, b, ZERO), -Fraction(math.comb(a + b, a)) / (2 * R) ** (a + b + 1))
    return out
