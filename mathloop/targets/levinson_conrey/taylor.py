"""Rational Taylor enclosures of e^x for x >= 0, with the explicit remainder of issue 2.

For 0 <= x and n >= 0:   S_n(x) = Σ_{k<=n} x^k/k!  <=  e^x,
and for 0 <= x < n+2:    e^x  <=  S_n(x) + x^{n+1}/(n+1)! · (n+2)/(n+2−x)
(the tail Σ_{k>n} x^k/k! is at most its first term times the geometric series of ratio x/(n+2)).
"""

from __future__ import annotations

import math
from fractions import Fraction


def taylor_sum(x: Fraction, n: int) -> Fraction:
    """Return S_n(x) = Σ_{k<=n} x^k/k! exactly (Horner in integers: 1 + x(1 + x/2(1 + ...)).

    >>> taylor_sum(Fraction(1), 3)
    Fraction(8, 3)
    """
    if n < 0:
        raise ValueError("Taylor order must be >= 0")
    p, q = x.numerator, x.denominator
    num, den = 1, 1
    for j in range(n, 0, -1):
        # value <- 1 + (p/(q·j))·value, kept as num/den without reducing (one gcd at the end)
        num, den = den * j * q + p * num, den * j * q
    return Fraction(num, den)


def taylor_remainder(x: Fraction, n: int) -> Fraction:
    """Return x^{n+1}/(n+1)! · (n+2)/(n+2−x), an upper bound of e^x − S_n(x) for 0 <= x < n+2.

    Raises:
        ValueError: x < 0 or x >= n+2 (the bound does not apply).
    """
    if x < 0 or x >= n + 2:
        raise ValueError(f"remainder bound needs 0 <= x < n+2 (x={x}, n={n})")
    return x ** (n + 1) / math.factorial(n + 1) * Fraction(n + 2) / (n + 2 - x)


def exp_lower(x: Fraction, n: int) -> Fraction:
    """Return a rational <= e^x (x >= 0): the Taylor sum S_n(x).

    Raises:
        ValueError: x < 0.
    """
    if x < 0:
        raise ValueError("lower Taylor bound needs x >= 0")
    return taylor_sum(x, n)


def exp_upper(x: Fraction, n: int) -> Fraction:
    """Return a rational >= e^x (0 <= x < n+2): S_n(x) plus the explicit remainder.

    >>> exp_upper(Fraction(1), 3) > Fraction(2718281828, 10**9) > exp_lower(Fraction(1), 3)
    True
    """
    return taylor_sum(x, n) + taylor_remainder(x, n)


def order_for(x: Fraction, scale: Fraction, tol_exp10: int) -> int:
    """Return the smallest n >= ceil(x) with scale · (remainder bound at ceil(x)) <= 10^-tol_exp10.

    Chosen in integers only, so the order (and hence the certificate) is deterministic.
    The remainder bound is increasing in x, so bounding it at X = ceil(x) is safe.

    >>> order_for(Fraction(1), Fraction(1), 10)
    13
    """
    if x < 0 or scale <= 0:
        raise ValueError("order_for needs x >= 0 and scale > 0")
    X = -((-x.numerator) // x.denominator)
    n = max(X, 0)
    sp, sq = scale.numerator, scale.denominator
    # condition: sp/sq · X^{n+1}/(n+1)! · (n+2)/(n+2−X) <= 10^-t
    while sp * X ** (n + 1) * (n + 2) * 10**tol_exp10 > sq * math.factorial(n + 1) * (n + 2 - X):
        n += 1
    return n
