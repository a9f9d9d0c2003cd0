"""Exact certification that P(theta) = c_0 + 2 sum_{j>=1} c_j cos(j theta) >= 0 on [0, pi].

Choice (documented in the contract): the exact route. With x = cos(theta), which maps [0, pi]
onto [-1, 1], cos(j theta) = T_j(x), so P(theta) = p(x) with p = c_0 + 2 sum c_j T_j a rational
polynomial of degree N-1, and P >= 0 on [0, pi] iff p >= 0 on [-1, 1]. That is decided by
`positivity.certify_nonnegative` (square-free decomposition + Descartes bisection, all exact), so
touching zeros are handled exactly: a root at x = -1 (P(pi) = 0, typical for optimal r-hat) or at
x = 1 is divided out, and an even-multiplicity interior root sits in the square part. Sampling is
used only as a cross-check (a certified "nonnegative" with a clearly negative sample is a bug).

Certificate keys: those of `positivity` (without the factor coefficients, which are large) plus
variable "x = cos(theta)" and degree.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import flint
import numpy as np

from mathloop.targets.polynomial import from_flint
from mathloop.targets.positivity import PositivityReport, certify_nonnegative


def chebyshev_to_monomial(nodes: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Return the x-coefficients of c_0 + 2 sum_{j>=1} c_j T_j(x) (Clenshaw's recurrence, exact).

    >>> chebyshev_to_monomial([Fraction(1), Fraction(1, 2)])
    (Fraction(1, 1), Fraction(1, 1))
    """
    coeffs = [Fraction(nodes[0])] + [2 * Fraction(c) for c in nodes[1:]]
    two_x = flint.fmpq_poly([0, 2])
    b1 = flint.fmpq_poly([])
    b2 = flint.fmpq_poly([])
    for c in reversed(coeffs[1:]):
        b1, b2 = two_x * b1 - b2 + flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator)]), b1
    # sum_{j>=0} a_j T_j = a_0 + x b_1 - b_2
    c0 = coeffs[0]
    total = flint.fmpq_poly([flint.fmpq(c0.numerator, c0.denominator)]) + flint.fmpq_poly([0, 1]) * b1 - b2
    return from_flint(total)


def sample_minimum(nodes: Sequence[Fraction], points: int = 4001) -> float:
    """Return min of P over an equispaced sample of [0, pi] in floats (a cross-check only)."""
    c = np.array([float(x) for x in nodes])
    theta = np.linspace(0.0, np.pi, points)
    j = np.arange(1, len(c))
    vals = c[0] + 2.0 * np.cos(np.outer(theta, j)) @ c[1:] if len(c) > 1 else np.full_like(theta, c[0])
    return float(vals.min())


def certify_cosine_nonnegative(nodes: Sequence[Fraction], *, max_cells: int = 200000) -> PositivityReport:
    """Return the exact verdict on P >= 0 over [0, pi] (see module doc)."""
    p = chebyshev_to_monomial(nodes)
    rep = certify_nonnegative(p, Fraction(-1), Fraction(1), max_cells=max_cells, include_factors=False)
    cert = {**rep.certificate, "variable": "x = cos(theta)", "degree": max(len(p) - 1, 0)}
    return PositivityReport(rep.status, rep.reason, cert, rep.witness)
