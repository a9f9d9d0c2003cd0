"""The exact value of a step function for C1b (Erdős minimum overlap), as a rational.

The table's statement (teorth/optimizationproblems, constants/1b.md): f, g : [−1, 1] → [0, 1],
f + g = 1 on [−1, 1], ∫f = 1, both extended by 0 outside [−1, 1]; the value of f is
M(f) = sup_{x ∈ [−2, 2]} ∫_{−1}^{1} f(t)·g(x + t) dt, and C1b is the infimum of M(f). This is
Haugland's normalisation (arXiv:1609.08000: h on [0, 2] with values in [0, 1], ∫h = 1,
max_k ∫ h(x)(1 − h(x + k)) dx) moved by −1, which changes nothing (a translation of both f and g).

Candidate. n equal steps of width w = 2/n on [−1, 1] with rational heights a_i >= 0 (not all 0),
normalised exactly: f_i = n·a_i / (2A), A = Σa_i, so that ∫f = w·Σf_i = 1 for any positive scale
of the given heights. The candidate is admissible only if every f_i <= 1, i.e. n·a_i <= 2A (then
g = 1 − f takes values in [0, 1]). Integer heights a_i are used (the heights over their common
denominator; the normalisation removes the scale).

Why the supremum is at a grid shift. With I_i = [−1 + i·w, −1 + (i + 1)·w),
∫ 1_{I_i}(t)·1_{I_j}(x + t) dt = max(0, w − |x − (j − i)·w|), a tent: continuous, linear between
consecutive multiples of w, zero outside ((j − i − 1)·w, (j − i + 1)·w). So
F(x) = ∫ f(t) g(x + t) dt = Σ_{i,j} f_i g_j·tent_{j−i}(x) is continuous and linear on each
[k·w, (k + 1)·w] (for equal steps it is piecewise *linear*, not quadratic: a quadratic piece would
need steps of different widths or sloped pieces), and vanishes for |x| >= 2. Its supremum over
[−2, 2] is therefore max_k F(k·w) for k = −(n−1)..n−1 (and >= 0), with
F(k·w) = w·Σ_i f_i·g_{i+k} = w·Σ_{i ∈ O_k} f_i (1 − f_{i+k}), O_k = {i : 0 <= i, i + k < n}.

In integers: with P_k = Σ_{i ∈ O_k} a_i and Q_k = Σ_{i ∈ O_k} a_i a_{i+k},
F(k·w) = (2/n)·[(n/2A)·P_k − (n/2A)²·Q_k] = (2A·P_k − n·Q_k) / (2A²). The Q_k are the coefficients
of a(X)·a(1/X)·X^{n−1} (one flint `fmpz_poly` product), the P_k are prefix sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from typing import Sequence

import flint


@dataclass(frozen=True)
class OverlapValue:
    """The exact value and the integers that prove it.

    Attributes:
        value: max_k (2A·P_k − n·Q_k) / (2A²) (reduced).
        peak: the largest numerator 2A·P_k − n·Q_k.
        shift: the smallest k (in −(n−1)..n−1) attaining it.
        total: A = Σa.
    """

    value: Fraction
    peak: int
    shift: int
    total: int


def overlap_numerators(ints: Sequence[int]) -> list[int]:
    """Return N_k = 2A·P_k − n·Q_k for k = −(n−1)..n−1 (index k + n − 1), exactly."""
    n = len(ints)
    A = sum(ints)
    p = flint.fmpz_poly(list(ints))
    r = flint.fmpz_poly(list(reversed(ints)))
    prod = [int(x) for x in (p * r).coeffs()]
    prod += [0] * (2 * n - 1 - len(prod))
    # coefficient of X^(n−1+k) in a(X)·X^(n−1)a(1/X) is Σ_i a_i a_{i−k}... index it as Σ_i a_i a_{i+k}:
    # coeff_m = Σ_{i+j=m} a_i a_{n−1−j} = Σ_i a_i a_{n−1−m+i}, so Q_k sits at m = n−1−k.
    prefix = [0, *accumulate(ints)]
    out = []
    for k in range(-(n - 1), n):
        q = prod[n - 1 - k]
        pk = prefix[n - k] if k >= 0 else A - prefix[-k]
        out.append(2 * A * pk - n * q)
    return out


def overlap_value(ints: Sequence[int]) -> OverlapValue:
    """Return the exact C1b value of the normalised step function with integer heights `ints`.

    The caller has checked admissibility (a_i >= 0, A > 0, n·a_i <= 2A).
    """
    n = len(ints)
    A = sum(ints)
    nums = overlap_numerators(ints)
    peak = max(nums)
    return OverlapValue(Fraction(peak, 2 * A * A), peak, nums.index(peak) - (n - 1), A)


def plain_value(heights: Sequence[Fraction]) -> Fraction:
    """Return the same value by a plain O(n²) Fraction evaluation (the independent cross-check path).

    Normalises f_i = h_i / (w·Σh) and evaluates w·Σ_i f_i (1 − f_{i+k}) at every shift directly.
    """
    n = len(heights)
    w = Fraction(2, n)
    s = w * sum(heights, Fraction(0))
    f = [h / s for h in heights]
    best = Fraction(0)
    for k in range(-(n - 1), n):
        v = sum((f[i] * (1 - f[i + k]) for i in range(max(0, -k), min(n, n - k))), Fraction(0))
        best = max(best, w * v)
    return best
