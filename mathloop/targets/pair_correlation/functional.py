"""The Montgomery–Taylor functional of an even polynomial g on [-1/2, 1/2], in exact rationals.

For g(x) = sum_k a_k x^(2k), C = int g, G(t) = int_{-1/2}^t g = C/2 + H(t) with H the odd
antiderivative of g vanishing at 0:

    M(g) = (int g^2 + 2 int G (C - G)) / C^2 = 1/2 + (int g^2 - 2 int H^2) / C^2,   B(g) = 2 - M(g).

Every integral is a polynomial moment int_{-1/2}^{1/2} x^(2m) dx = 1 / (4^m (2m+1)).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import mpmath

from mathloop.targets.polynomial import Poly, add, antiderivative, even_to_x, evaluate, mul, scale


def moment(n: int) -> Fraction:
    """Return int_{-1/2}^{1/2} x^n dx exactly.

    >>> moment(2), moment(3)
    (Fraction(1, 12), Fraction(0, 1))
    """
    if n % 2:
        return Fraction(0)
    return Fraction(1, 2**n * (n + 1))


def integral(p: Sequence[Fraction]) -> Fraction:
    """Return int_{-1/2}^{1/2} p(x) dx exactly."""
    return sum((c * moment(n) for n, c in enumerate(p)), Fraction(0))


@dataclass(frozen=True)
class Functional:
    """The exact pieces of M(g) and the bound.

    Attributes:
        g: coefficients of g in x (lowest degree first).
        C: int g.
        int_g2: int g^2.
        int_H2: int H^2 with H(t) = int_0^t g.
        M: the functional; B = 2 - M.
    """

    g: Poly
    C: Fraction
    int_g2: Fraction
    int_H2: Fraction
    g2: Poly
    H2: Poly

    @property
    def M(self) -> Fraction:
        return Fraction(1, 2) + (self.int_g2 - 2 * self.int_H2) / (self.C * self.C)

    @property
    def B(self) -> Fraction:
        return 2 - self.M

    def artifact(self) -> dict[str, Any]:
        """Return the moment data from which B(g) = q is a rational identity (for export and Lean)."""
        return {
            "g": list(self.g),
            "C": self.C,
            "g_squared": list(self.g2),
            "H_squared": list(self.H2),
            "moments": [moment(n) for n in range(max(len(self.g2), len(self.H2)))],
            "int_g2": self.int_g2,
            "int_H2": self.int_H2,
            "identity": "B = 3/2 - (int_g2 - 2*int_H2)/C^2; int p = sum_n p_n*moments[n]",
            "M": self.M,
            "B": self.B,
        }


def functional(even_coeffs: Sequence[Fraction]) -> Functional:
    """Return the exact functional of g = sum_k a_k x^(2k). Raises ZeroDivisionError if C = 0."""
    g = even_to_x(even_coeffs)
    C = integral(g)
    g2 = mul(g, g)
    H = antiderivative(g)
    H2 = mul(H, H)
    f = Functional(g, C, integral(g2), integral(H2), g2, H2)
    if C == 0:
        raise ZeroDivisionError("C = int g = 0")
    return f


def m_by_g_route(even_coeffs: Sequence[Fraction]) -> Fraction:
    """Return M(g) = (int g^2 + 2 int G(C - G)) / C^2 through G directly (an independent exact route)."""
    g = even_to_x(even_coeffs)
    C = integral(g)
    G = antiderivative(g)
    G = add(G, [-evaluate(G, Fraction(-1, 2))])  # G(-1/2) = 0
    cross = mul(G, add([C], scale(G, Fraction(-1))))
    return (integral(mul(g, g)) + 2 * integral(cross)) / (C * C)


def m_by_quadrature(even_coeffs: Sequence[Fraction], dps: int) -> mpmath.mpf:
    """Return M(g) by mpmath quadrature at `dps` digits (a floating cross-check, never a proof)."""
    with mpmath.workdps(dps):
        # M is invariant under scaling g; normalise so that quad's absolute tolerance is meaningful
        scale = max((abs(c) for c in even_coeffs), default=Fraction(1)) or Fraction(1)
        a = [mpmath.mpf((c / scale).numerator) / (c / scale).denominator for c in even_coeffs]
        half = mpmath.mpf(1) / 2
        # G(t) = int_{-1/2}^t g, from the termwise antiderivative evaluated in mpf
        anti = [(c / (2 * k + 1), 2 * k + 1) for k, c in enumerate(a)]

        def g(x):
            return mpmath.fsum(c * x ** (2 * k) for k, c in enumerate(a))

        def G(t):
            return mpmath.fsum(c * (t**e + half**e) for c, e in anti)

        C = G(half)
        g2 = mpmath.quad(lambda x: g(x) ** 2, [-half, half])
        cross = mpmath.quad(lambda t: G(t) * (C - G(t)), [-half, half])
        return (g2 + 2 * cross) / C**2
