"""Gram points g_n (theta(g_n) = n*pi, n >= -1) as rigorous enclosures, and their parity rule.

g_{-1} = 9.6669..., g_0 = 17.8455...; a Gram point is good when (-1)^n Z(g_n) > 0.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx


def expected_sign(n: int) -> int:
    """Return (-1)^n as an int, the sign Z(g_n) has when g_n is a good Gram point.

    >>> expected_sign(-1), expected_sign(0), expected_sign(126)
    (-1, 1, 1)
    """
    return 1 if n % 2 == 0 else -1


def gram_ball(n: int, prec: int) -> arb:
    """Return Arb's enclosure of g_n at `prec` bits (requires n >= -1)."""
    if n < -1:
        raise ValueError(f"Gram points are defined for n >= -1, got {n}")
    with ctx.workprec(prec):
        return arb.gram_point(n)


def arb_endpoint_fraction(x: arb) -> Fraction:
    """Return the exact rational value of an exact (radius 0) Arb number such as x.lower()."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def gram_floor(n: int, digits: int) -> Fraction:
    """Return floor(g_n * 10^digits) / 10^digits computed from a certified lower bound: a rational < g_n.

    The working precision covers the integer part plus `digits` decimals with margin, so the
    result is within 2*10^-digits of g_n.
    """
    prec = 64 + int(digits * 3.33) + max(8, (abs(n) + 2).bit_length())
    with ctx.workprec(prec):  # lower() rounds to the working precision
        low = arb_endpoint_fraction(gram_ball(n, prec).lower())
    scale = 10**digits
    return Fraction(math.floor(low * scale), scale)


def gram_prec(n: int, digits: int) -> int:
    """Return the working precision gram_floor/gram_ceil use for g_n at `digits` decimals."""
    return 64 + int(digits * 3.33) + max(8, (abs(n) + 2).bit_length())


def gram_bounds(n: int, digits: int, ball: arb | None = None) -> tuple[Fraction, Fraction]:
    """Return (gram_floor(n, digits), gram_ceil(n, digits)) from one ball at gram_prec (given or computed)."""
    prec = gram_prec(n, digits)
    with ctx.workprec(prec):
        b = gram_ball(n, prec) if ball is None else ball
        low, high = arb_endpoint_fraction(b.lower()), arb_endpoint_fraction(b.upper())
    scale = 10**digits
    return Fraction(math.floor(low * scale), scale), Fraction(math.ceil(high * scale), scale)


def gram_ceil(n: int, digits: int) -> Fraction:
    """Return ceil(g_n * 10^digits) / 10^digits computed from a certified upper bound: a rational > g_n."""
    prec = 64 + int(digits * 3.33) + max(8, (abs(n) + 2).bit_length())
    with ctx.workprec(prec):
        high = arb_endpoint_fraction(gram_ball(n, prec).upper())
    scale = 10**digits
    return Fraction(math.ceil(high * scale), scale)


def gram_mid_float(n: int) -> float:
    """Return g_n as a float (non-rigorous; for proposing and display)."""
    return float(gram_ball(n, 64).mid())


def gram_decimal(n: int, digits: int = 12) -> str:
    """Return a short decimal approximation of g_n for display (not a certified value)."""
    return gram_ball(n, 64 + 4 * digits).mid().str(digits, radius=False)
