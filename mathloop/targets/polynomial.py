"""The exact polynomial toolkit every target shares, on python-flint's `fmpq_poly` / `fmpz_poly`.

Polynomials cross module boundaries as coefficient tuples, lowest degree first, of Fractions
(`Poly`, no trailing zeros; the zero polynomial is ()) or of ints; the arithmetic itself is
flint's exact rational/integer polynomial arithmetic, written once here.
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


def to_fmpq_poly(p: Sequence[Fraction]) -> flint.fmpq_poly:
    """Return p as a flint rational polynomial."""
    return flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in map(Fraction, p)])


def from_flint(p) -> Poly:
    """Return the coefficients of a flint fmpz_poly/fmpq_poly as Fractions."""
    return trim([Fraction(int(c.p), int(c.q)) if isinstance(c, flint.fmpq) else Fraction(int(c)) for c in p.coeffs()])


def add(p: Sequence[Fraction], q: Sequence[Fraction]) -> Poly:
    """Return p + q.

    >>> add([Fraction(1), Fraction(2)], [Fraction(0), Fraction(-2)])
    (Fraction(1, 1),)
    """
    return from_flint(to_fmpq_poly(p) + to_fmpq_poly(q))


def scale(p: Sequence[Fraction], c: Fraction) -> Poly:
    """Return c * p."""
    return from_flint(to_fmpq_poly(p) * flint.fmpq(c.numerator, c.denominator))


def mul(p: Sequence[Fraction], q: Sequence[Fraction]) -> Poly:
    """Return p * q.

    >>> mul([Fraction(1), Fraction(1)], [Fraction(-1), Fraction(1)])
    (Fraction(-1, 1), Fraction(0, 1), Fraction(1, 1))
    """
    return from_flint(to_fmpq_poly(p) * to_fmpq_poly(q))


def derivative(p: Sequence[Fraction]) -> Poly:
    """Return p'.

    >>> derivative([Fraction(5), Fraction(0), Fraction(3)])
    (Fraction(0, 1), Fraction(6, 1))
    """
    return from_flint(to_fmpq_poly(p).derivative())


def antiderivative(p: Sequence[Fraction]) -> Poly:
    """Return the antiderivative of p vanishing at 0."""
    return from_flint(to_fmpq_poly(p).integral())


def evaluate(p: Sequence[Fraction], x: Fraction) -> Fraction:
    """Return p(x) exactly.

    >>> evaluate([Fraction(1), Fraction(-1)], Fraction(1, 3))
    Fraction(2, 3)
    """
    v = to_fmpq_poly(p)(flint.fmpq(x.numerator, x.denominator))
    return Fraction(int(v.p), int(v.q))


def integral_01(p: Sequence[Fraction]) -> Fraction:
    """Return the integral of p over [0, 1].

    >>> integral_01([Fraction(0), Fraction(0), Fraction(1)])
    Fraction(1, 3)
    """
    return evaluate(antiderivative(p), Fraction(1))


def reflect(p: Sequence[Fraction]) -> Poly:
    """Return the coefficients of p(1 − x), as many as p has (zeros kept at the top).

    >>> reflect((Fraction(1), Fraction(-1)))
    (Fraction(0, 1), Fraction(1, 1))
    """
    out = from_flint(to_fmpq_poly(p)(flint.fmpq_poly([1, -1])))
    return out + (Fraction(0),) * (len(p) - len(out))


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


def int_mul(p: Sequence[int], q: Sequence[int]) -> list[int]:
    """Return the product of two integer coefficient lists (no trailing zeros; zero is []).

    >>> int_mul([1, 1], [-1, 1])
    [-1, 0, 1]
    """
    return [int(c) for c in (flint.fmpz_poly(list(p)) * flint.fmpz_poly(list(q))).coeffs()]


def primitive_integer(p: Sequence[Fraction]) -> tuple[Fraction, flint.fmpz_poly]:
    """Return (c, P) with p = c * P, P a primitive integer polynomial with positive leading coefficient."""
    q = to_fmpq_poly(p)
    num = q.numer()
    cont = num.content()
    if num.leading_coefficient() < 0:
        cont = -cont
    prim = flint.fmpz_poly([int(c) // int(cont) for c in num.coeffs()])
    return Fraction(int(cont), int(q.denom())), prim
