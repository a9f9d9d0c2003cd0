"""Exact polynomial arithmetic on coefficient lists (lowest degree first) of Fractions.

Small degrees only (the functional needs products and moments of polynomials of degree <= ~50);
heavy root work goes through python-flint in `positivity`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import flint

Poly = tuple[Fraction, ...]


def trim(p: Sequence[Fraction]) -> Poly:
    """Return `p` without trailing zero coefficients (the zero polynomial is ())."""
    q = list(p)
    while q and q[-1] == 0:
        q.pop()
    return tuple(q)


def add(p: Sequence[Fraction], q: Sequence[Fraction]) -> Poly:
    """Return p + q."""
    n = max(len(p), len(q))
    return trim([(p[i] if i < len(p) else 0) + (q[i] if i < len(q) else 0) for i in range(n)])


def scale(p: Sequence[Fraction], c: Fraction) -> Poly:
    """Return c * p."""
    return trim([c * a for a in p])


def mul(p: Sequence[Fraction], q: Sequence[Fraction]) -> Poly:
    """Return p * q.

    >>> mul([Fraction(1), Fraction(1)], [Fraction(-1), Fraction(1)])
    (Fraction(-1, 1), Fraction(0, 1), Fraction(1, 1))
    """
    if not p or not q:
        return ()
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                out[i + j] += a * b
    return trim(out)


def antiderivative(p: Sequence[Fraction]) -> Poly:
    """Return the antiderivative of p vanishing at 0."""
    return trim([Fraction(0)] + [a / (i + 1) for i, a in enumerate(p)])


def evaluate(p: Sequence[Fraction], x: Fraction) -> Fraction:
    """Return p(x) exactly (Horner)."""
    acc = Fraction(0)
    for a in reversed(p):
        acc = acc * x + a
    return acc


def even_to_x(a: Sequence[Fraction]) -> Poly:
    """Return the coefficients in x of sum_k a_k x^(2k).

    >>> even_to_x([Fraction(1), Fraction(2)])
    (Fraction(1, 1), Fraction(0, 1), Fraction(2, 1))
    """
    out: list[Fraction] = []
    for k, c in enumerate(a):
        out.extend([Fraction(0)] * (2 * k - len(out)))
        out.append(Fraction(c))
    return trim(out)


def to_fmpq_poly(p: Sequence[Fraction]) -> flint.fmpq_poly:
    """Return p as a flint rational polynomial."""
    return flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in p])


def from_flint(p) -> Poly:
    """Return the coefficients of a flint fmpz_poly/fmpq_poly as Fractions."""
    return trim([Fraction(int(c.p), int(c.q)) if hasattr(c, "q") else Fraction(int(c)) for c in p.coeffs()])


def primitive_integer(p: Sequence[Fraction]) -> tuple[Fraction, flint.fmpz_poly]:
    """Return (c, P) with p = c * P, P a primitive integer polynomial with positive leading coefficient."""
    q = to_fmpq_poly(p)
    num = q.numer()
    cont = num.content()
    if num.leading_coefficient() < 0:
        cont = -cont
    prim = flint.fmpz_poly([int(c) // int(cont) for c in num.coeffs()])
    return Fraction(int(cont), int(q.denom())), prim
