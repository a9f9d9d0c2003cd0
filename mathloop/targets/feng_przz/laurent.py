"""The leading-order arithmetic kernel of one pair of mollifier pieces, as exact Laurent terms.

Piece ℓ has coefficients (μ⋆Λ^{⋆(ℓ−1)})(n), the Dirichlet coefficients of (1/ζ)(−ζ'/ζ)^{ℓ−1}
= (−1)^{ℓ−1} ∂_{a_1}…∂_{a_{ℓ−1}} [∏ζ(s+a_i)/ζ(s)^ℓ] at a = 0. For pieces ℓ₁ (h side, Mellin
variable s) and ℓ₂ (k side, variable u) the double series
Σ c₁(h)c₂(k)(h,k)^{1+α+β}/(h^{1+β+s}k^{1+α+u}) is, to leading order in 1/log T (every ζ(1+x)
replaced by 1/x, the arithmetic factor by its value 1 at the origin), the rational function
    X^{ℓ₁} Y^{ℓ₂} Z^{−ℓ₁ℓ₂} ∏_i (Z+a_i)^{ℓ₂}/(X+a_i) ∏_j (Z+b_j)^{ℓ₁}/(Y+b_j) ∏_{i,j} 1/(Z+a_i+b_j)
with X = β+s, Y = α+u, Z = s+u. After the a- and b-derivatives at 0 it is a Laurent polynomial
Σ c·X^p Y^q Z^r: `laurent_terms_sympy` derives it with sympy on exact rationals (the reference, minutes
for ℓ = 4); `laurent_terms` gets the same coefficients from multilinear series products in Fractions
(milliseconds), and the tests hold the two equal (docs/przz.md, step 2).
"""

from __future__ import annotations

from fractions import Fraction
from collections import defaultdict
from functools import lru_cache

Laurent = dict[tuple[int, int, int], Fraction]  # (p, q, r) -> coefficient of X^p Y^q Z^r
MSeries = dict[int, Laurent]  # multilinear series in the shift variables: bitmask -> Laurent coefficient


def _mono(p: int, q: int, r: int, c) -> Laurent:
    return {(p, q, r): Fraction(c)}


def _mul(f: MSeries, g: MSeries) -> MSeries:
    """Return f·g keeping only multilinear terms (each shift variable to the first power)."""
    out: dict[int, Laurent] = defaultdict(lambda: defaultdict(Fraction))
    for m1, c1 in f.items():
        for m2, c2 in g.items():
            if m1 & m2:
                continue
            acc = out[m1 | m2]
            for (p1, q1, r1), v1 in c1.items():
                for (p2, q2, r2), v2 in c2.items():
                    acc[(p1 + p2, q1 + q2, r1 + r2)] += v1 * v2
    return {m: {k: v for k, v in c.items() if v} for m, c in out.items()}


@lru_cache(maxsize=None)
def laurent_terms(l1: int, l2: int) -> tuple[tuple[int, int, int, Fraction], ...]:
    """Return the same terms as `laurent_terms_sympy`, by multilinear series products (fast, exact).

    Only the coefficient of a_1⋯a_{ℓ₁−1}b_1⋯b_{ℓ₂−1} matters, so every factor is expanded to first
    order in each of its shift variables: (Z+a)^n = Z^n + n·Z^{n−1}a, 1/(X+a) = X^{−1} − X^{−2}a,
    1/(Z+a+b) = Z^{−1} − Z^{−2}(a+b) + 2Z^{−3}ab.

    >>> laurent_terms(2, 2) == laurent_terms_sympy(2, 2)
    True

    Raises:
        ValueError: a piece index below 1.
    """
    if l1 < 1 or l2 < 1:
        raise ValueError("piece indices start at 1")
    na = l1 - 1
    bit_a = [1 << i for i in range(na)]
    bit_b = [1 << (na + j) for j in range(l2 - 1)]
    series: MSeries = {0: _mono(l1, l2, -l1 * l2, 1)}
    for a in bit_a:
        series = _mul(series, {0: _mono(0, 0, l2, 1), a: _mono(0, 0, l2 - 1, l2)})
        series = _mul(series, {0: _mono(-1, 0, 0, 1), a: _mono(-2, 0, 0, -1)})
    for b in bit_b:
        series = _mul(series, {0: _mono(0, 0, l1, 1), b: _mono(0, 0, l1 - 1, l1)})
        series = _mul(series, {0: _mono(0, -1, 0, 1), b: _mono(0, -2, 0, -1)})
    for a in bit_a:
        for b in bit_b:
            series = _mul(
                series, {0: _mono(0, 0, -1, 1), a: _mono(0, 0, -2, -1), b: _mono(0, 0, -2, -1), a | b: _mono(0, 0, -3, 2)}
            )
    full = (1 << (na + l2 - 1)) - 1
    sign = (-1) ** (na + l2 - 1)
    terms = series.get(full, {})
    return tuple(sorted((p, q, r, sign * c) for (p, q, r), c in terms.items() if c))


def laurent_terms_sympy(l1: int, l2: int) -> tuple[tuple[int, int, int, Fraction], ...]:
    """Return the terms (p, q, r, c) of (−1)^{ℓ₁+ℓ₂}∂_a∂_b D at a = b = 0, D the kernel above.

    >>> laurent_terms_sympy(1, 1)
    ((1, 1, -1, Fraction(1, 1)),)
    >>> laurent_terms_sympy(1, 2)
    ((1, 0, -1, Fraction(1, 1)), (1, 1, -2, Fraction(-1, 1)))

    Raises:
        ValueError: a piece index below 1.
    """
    import sympy as sp  # the reference derivation; slow for ℓ ≥ 4 (minutes), so not on the hot path

    if l1 < 1 or l2 < 1:
        raise ValueError("piece indices start at 1")
    X, Y, Z = sp.symbols("X Y Z")
    a = sp.symbols(f"a0:{l1 - 1}") if l1 > 1 else ()
    b = sp.symbols(f"b0:{l2 - 1}") if l2 > 1 else ()
    D = X**l1 * Y**l2 * Z ** (-l1 * l2)
    for ai in a:
        D *= (Z + ai) ** l2 / (X + ai)
    for bj in b:
        D *= (Z + bj) ** l1 / (Y + bj)
    for ai in a:
        for bj in b:
            D /= Z + ai + bj
    for v in (*a, *b):
        D = sp.diff(D, v)
    D = sp.expand(D.subs({v: 0 for v in (*a, *b)}) * (-1) ** (len(a) + len(b)))
    out: dict[tuple[int, int, int], Fraction] = {}
    for term in sp.Add.make_args(D):
        c, rest = term.as_coeff_Mul()
        pw = rest.as_powers_dict()
        key = (int(pw.get(X, 0)), int(pw.get(Y, 0)), int(pw.get(Z, 0)))
        out[key] = out.get(key, Fraction(0)) + Fraction(int(sp.numer(c)), int(sp.denom(c)))
    return tuple(sorted((p, q, r, c) for (p, q, r), c in out.items() if c != 0))
