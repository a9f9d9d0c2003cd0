"""The exact optimum of B over even polynomials of a given degree, and its rationalisation.

B(g) = 3/2 - Q(a) / (m . a)^2 with the positive-definite quadratic form Q(a) = int g^2 - 2 int H^2
(Q >= int g^2 / 2 because int H^2 <= int g^2 / 4), so the maximiser with m . a = 1 is a = K^-1 m.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from mathloop.targets.pair_correlation.functional import moment


def gram(terms: int) -> tuple[list[list[Fraction]], list[Fraction]]:
    """Return (K, m): Q(a) = a^T K a and C = m . a for g = sum_{k < terms} a_k x^(2k)."""
    K = [
        [moment(2 * k + 2 * l) - 2 * moment(2 * k + 2 * l + 2) / ((2 * k + 1) * (2 * l + 1)) for l in range(terms)]
        for k in range(terms)
    ]
    m = [moment(2 * k) for k in range(terms)]
    return K, m


def solve_exact(K: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> list[Fraction]:
    """Return x with K x = b (Gauss–Jordan in Fractions; K is non-singular here)."""
    n = len(b)
    rows = [list(K[i]) + [b[i]] for i in range(n)]
    for col in range(n):
        piv = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[piv] = rows[piv], rows[col]
        inv = 1 / rows[col][col]
        rows[col] = [v * inv for v in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [v - f * w for v, w in zip(rows[r], rows[col])]
    return [rows[i][n] for i in range(n)]


def optimal_coefficients(terms: int) -> list[Fraction]:
    """Return the exact maximiser of B with `terms` even coefficients, normalised to a_0 = 1.

    >>> optimal_coefficients(1)
    [Fraction(1, 1)]
    """
    K, m = gram(terms)
    a = solve_exact(K, m)
    return [x / a[0] for x in a]


def round_significant(x: Fraction, digits: int) -> Fraction:
    """Return x rounded to `digits` significant decimal digits (exactly, as a Fraction).

    >>> round_significant(Fraction(2, 3), 3)
    Fraction(667, 1000)
    """
    if x == 0:
        return x
    e = 0
    ax = abs(x)
    while ax >= 10:
        ax /= 10
        e += 1
    while ax < 1:
        ax *= 10
        e -= 1
    scale = Fraction(10) ** (digits - 1 - e)
    return Fraction(round(x * scale)) / scale
