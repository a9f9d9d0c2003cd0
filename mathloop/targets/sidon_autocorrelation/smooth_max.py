"""Accelerated projected descent on a smoothed maximum: the float engine of the step-function optimisers.

Both constants minimise max_s F_s(x) over a box-and-sum set X = {lo <= x_i <= hi, Σx = total} (C1a: x >= 0 on the
simplex, F_s the autoconvolution at the grid points; C1b: 0 <= x <= 1, Σx = n/2, F_s the overlap at shift s).
The maximum is replaced by its log-sum-exp smoothing φ_μ(x) = μ·log Σ_s exp(F_s(x)/μ), which lies in
[max F, max F + μ·log m], and minimised by FISTA (Beck–Teboulle) with backtracking on the Lipschitz constant,
adaptive restart (O'Donoghue–Candès) and projection onto X (bisection on the shift τ of clip(v − τ, lo, hi)).
μ halves every `period` iterations down to `mu_min`, so the smooth problem approaches the true maximum.
Gradients are correlations, computed by FFT: O(n log n) per iteration for any n (30,000 steps included).

Floats only propose: the caller turns an iterate into exact heights and the target's checker decides.
The iterates depend on the start and the schedule only (iteration counts, never seconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol

import numpy as np

# What every stage yields: (best value so far, its point when it improved since the last yield, else None).
Improvements = Iterator[tuple[float, "np.ndarray | None"]]


def convolve(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Return the full linear convolution of x and y (length len(x) + len(y) − 1) through numpy's real FFT."""
    size = len(x) + len(y) - 1
    m = 1 << max(0, (size - 1).bit_length())
    return np.fft.irfft(np.fft.rfft(x, m) * np.fft.rfft(y, m), m)[:size]


class SmoothMaxProblem(Protocol):
    """min max_s F_s(x) over {lo <= x <= hi, Σx = total}."""

    lo: float
    hi: float
    total: float

    def values(self, x: np.ndarray) -> np.ndarray:
        """Return F_s(x) for every s."""

    def pullback(self, x: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Return the gradient of Σ_s p_s F_s at x."""


def project(v: np.ndarray, lo: float, hi: float, total: float) -> np.ndarray:
    """Return the Euclidean projection of v onto {lo <= x <= hi, Σx = total} (hi may be inf; `total` must lie
    in [n·lo, n·hi]): clip(v − τ, lo, hi) for the τ where S(τ) = Σ clip(v − τ, lo, hi) equals `total`.

    S is piecewise linear and non-increasing with breakpoints v − hi (its slope drops by 1) and v − lo (it rises
    by 1), so sorting the breakpoints gives S at all of them by one cumulative sum: O(n log n), exact up to
    rounding.
    """
    n = len(v)
    if np.isfinite(hi):
        bp = np.concatenate([v - hi, v - lo])
        ds = np.concatenate([-np.ones(n), np.ones(n)])
        order = np.argsort(bp, kind="stable")
        b, slopes = bp[order], np.cumsum(ds[order])        # slope of S on (b_k, b_k+1)
        first = n * hi                                     # S(b_0): every entry at hi
    else:
        b = np.sort(v - lo)
        slopes = -n + np.cumsum(np.ones(n))
        first = float(v.sum()) - n * b[0]                  # S(b_0) = Σ(v − b_0): no entry clipped yet
    S = first + np.concatenate([[0.0], np.cumsum(slopes[:-1] * np.diff(b))])
    if total > S[0]:  # only when hi = inf: left of b_0 no entry is clipped and the slope is −n
        return np.clip(v - (b[0] - (total - S[0]) / n), lo, hi)
    k = min(int(np.searchsorted(-S, -total, side="right")) - 1, len(b) - 1)  # S[k] >= total > S[k + 1]
    tau = b[k] + (S[k] - total) / -slopes[k] if slopes[k] < 0 else b[k]
    return np.clip(v - tau, lo, hi)


def smoothed(problem: SmoothMaxProblem, x: np.ndarray, mu: float, grad: bool = True):
    """Return (φ_μ(x), max_s F_s(x), ∇φ_μ(x) or None)."""
    F = problem.values(x)
    top = float(F.max())
    w = np.exp((F - top) / mu)
    z = float(w.sum())
    value = top + mu * np.log(z)
    return value, top, (problem.pullback(x, w / z) if grad else None)


@dataclass(frozen=True)
class Schedule:
    """A smoothing schedule.

    Attributes:
        mu: the first smoothing parameter.
        mu_min: the smallest one (μ halves every `period` iterations until it reaches it).
        period: iterations per μ.
        iterations: total iterations (None: never stops; the caller's deadline ends it).
        checkpoint: iterations between reports of an improved true maximum.
    """

    mu: float
    mu_min: float
    period: int
    iterations: int | None
    checkpoint: int = 50


def descend(problem: SmoothMaxProblem, x0: np.ndarray, schedule: Schedule) -> Improvements:
    """Yield (best true max, x) every `checkpoint` iterations: x is the best point when the best improved since the
    last yield, else None (a heartbeat, so that a caller can stop on time).

    The last point yielded is the best; a generator that never ends when `schedule.iterations` is None.
    """
    x = project(np.asarray(x0, dtype=float), problem.lo, problem.hi, problem.total)
    mu = schedule.mu
    phi, top, _ = smoothed(problem, x, mu, grad=False)
    best, best_x, reported = top, x.copy(), np.inf
    y, t, L = x.copy(), 1.0, 1.0 / mu
    it = 0
    while schedule.iterations is None or it < schedule.iterations:
        it += 1
        phi_y, _, g = smoothed(problem, y, mu)
        while True:  # backtracking: the quadratic model at y must bound φ at the new point
            xn = project(y - g / L, problem.lo, problem.hi, problem.total)
            d = xn - y
            phi_n, top_n, _ = smoothed(problem, xn, mu, grad=False)
            if phi_n <= phi_y + float(g @ d) + 0.5 * L * float(d @ d) + 1e-15 * abs(phi_y) or L > 1e30:
                break
            L *= 2.0
        if top_n < best:
            best, best_x = top_n, xn.copy()
        if phi_n > phi:  # adaptive restart: drop the momentum
            y, t = xn.copy(), 1.0
        else:
            t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            y = xn + ((t - 1.0) / t_next) * (xn - x)
            t = t_next
        x, phi, L = xn, phi_n, L / 1.3
        if it % schedule.period == 0 and mu > schedule.mu_min:  # sharper smoothing, from the current point
            mu = max(mu / 2.0, schedule.mu_min)
            phi, _, _ = smoothed(problem, x, mu, grad=False)
            y, t = x.copy(), 1.0
        if it % schedule.checkpoint == 0:
            improved = best < reported
            reported = min(reported, best)
            yield best, (best_x.copy() if improved else None)
    if best < reported:
        yield best, best_x.copy()
