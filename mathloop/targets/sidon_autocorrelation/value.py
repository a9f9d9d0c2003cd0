"""The exact value of a step function for C1a: max(f*f) / (∫f)², as a rational.

Setting. f = Σ_i a_i·1[x_i, x_i + w) with n equal steps of width w = 1/(2n) on [−1/4, 1/4]
(x_i = −1/4 + i·w) and heights a_i >= 0. Then ∫_{−1/4}^{1/4} f = w·Σa_i, and f*f is supported in
[−1/2, 1/2], so the table's max over |t| <= 1/2 is the maximum of f*f on R.

Why the maximum is at a breakpoint (the proof the checker relies on). For two steps,
1[x_i, x_i + w) * 1[x_j, x_j + w) is the tent function t ↦ max(0, w − |t − (x_i + x_j + w)|):
continuous, zero outside [x_i + x_j, x_i + x_j + 2w] and linear on [x_i + x_j, x_i + x_j + w] and
on [x_i + x_j + w, x_i + x_j + 2w]. Every such endpoint lies on the grid t_m = −1/2 + m·w
(m = 0..2n), since x_i + x_j = −1/2 + (i + j)·w. Hence f*f = Σ a_i a_j·tent_{ij} is continuous and
linear on every [t_m, t_{m+1}], so its maximum over [−1/2, 1/2] is attained at some t_m (a linear
function on a closed interval attains its maximum at an endpoint). At t_m only the tents with
i + j + 1 = m are non-zero, each with value w, so f*f(t_m) = w·c_{m−1} with c_k = Σ_{i+j=k} a_i a_j,
the coefficients of the polynomial (Σ a_i X^i)², and f*f(t_0) = f*f(t_{2n}) = 0. Therefore

    max f*f / (∫f)² = w·max_k c_k / (w·Σa)² = 2n·max_k c_k / (Σa)²,

which is invariant under scaling the a_i; the checker scales the rational heights to integers over
their common denominator and squares the integer polynomial with python-flint (`fmpz_poly`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import flint


@dataclass(frozen=True)
class AutoconvolutionValue:
    """The exact value and the integers that prove it.

    Attributes:
        value: 2n·max_k c_k / (Σa)² (reduced).
        peak: max_k c_k (an integer, for the integer heights).
        peak_index: the smallest k with c_k = peak.
        total: Σa.
    """

    value: Fraction
    peak: int
    peak_index: int
    total: int


def square_coefficients(ints: Sequence[int]) -> list[int]:
    """Return c_k = Σ_{i+j=k} a_i a_j for k = 0..2n−2 (the coefficients of (Σ a_i X^i)²), exactly."""
    p = flint.fmpz_poly(list(ints))
    c = [int(x) for x in (p * p).coeffs()]
    return c + [0] * (2 * len(ints) - 1 - len(c))  # flint drops trailing zero coefficients


def autoconvolution_value(ints: Sequence[int]) -> AutoconvolutionValue:
    """Return the exact C1a value of the step function with integer heights `ints` (>= 0, not all 0)."""
    n = len(ints)
    c = square_coefficients(ints)
    peak = max(c)
    total = sum(ints)
    return AutoconvolutionValue(Fraction(2 * n * peak, total * total), peak, c.index(peak), total)


def plain_value(heights: Sequence[Fraction]) -> Fraction:
    """Return the same value by a plain O(n²) Fraction evaluation (the independent cross-check path).

    Evaluates f*f at every grid point t_m directly as Σ_{i+j=m−1} h_i h_j·w, without integer scaling
    or polynomial arithmetic. Only for small n (tests, re-checking a record).
    """
    n = len(heights)
    w = Fraction(1, 2 * n)
    best = Fraction(0)
    for m in range(1, 2 * n):
        s = sum((heights[i] * heights[m - 1 - i] for i in range(max(0, m - n), min(n, m))), Fraction(0))
        best = max(best, s * w)
    integral = w * sum(heights, Fraction(0))
    return best / (integral * integral)
