"""The LP engine of the ceiling proposer: maximise L over duals k on hZ with 1 + k-check >= margin.

Floats only: the result is a proposal, rationalised by the caller and certified by the checker.
Variables: L, y_j = k_j + L >= 0 for the free nodes N < j < M (condition (ii) as a bound), and
the weight w in [0, 1/2) of a point mass at alpha = 1 (optional). Nodes j <= N are j h - L
(condition (i)); k_M = 0. Condition (iii) is imposed at the points t of [0, 1] (the exact period
of f when the only mass sits at 1, see the package docstring) of a grid plus cutting planes: the
local minima of f, refined by zooming, wherever f < margin/2 (HiGHS via scipy.optimize.linprog).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

Y_MAX = 10.0  # free nodes k_j lie in [-L, Y_MAX - L]
W_GAP = 1e-9  # w <= 1/2 - W_GAP
KEEP_SLACK = 0.05  # rows with f(t) above this are dropped between rounds (cuts re-find them if needed)


@dataclass(frozen=True)
class DualLp:
    """A solved LP: L, the full node vector k_0 .. k_M and the mass weight (floats)."""

    N: int
    M: int
    L: float
    nodes: np.ndarray
    weight: float
    rounds: int
    min_f: float

    @property
    def ceiling(self) -> float:
        return 2.0 - self.L


def f_values(t: np.ndarray, h: float, nodes: np.ndarray, weight: float, N: int) -> np.ndarray:
    """Return f(t) = 1 + h sinc^2(pi t) P(2 pi t) + 2 w cos(2 pi N t) in floats."""
    j = np.arange(len(nodes))
    eps = np.where(j == 0, 1.0, 2.0)
    return 1.0 + h * np.sinc(t) ** 2 * (np.cos(2 * np.pi * np.outer(t, j)) @ (eps * nodes)) + 2 * weight * np.cos(2 * np.pi * N * t)


class _Rows:
    """Constraint rows of f(t) >= margin in the LP variables (L, y, w)."""

    def __init__(self, N: int, M: int, mass: bool) -> None:
        self.N, self.M, self.mass = N, M, mass
        self.h = 1.0 / N
        self.free = np.arange(N + 1, M)
        self.nv = 1 + len(self.free) + (1 if mass else 0)

    def build(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, N = self.h, self.N
        s = np.sinc(t) ** 2
        line = np.arange(N + 1)
        eps = np.where(line == 0, 1.0, 2.0)
        C = np.cos(2 * np.pi * np.outer(t, line)) * eps
        Ct = 2.0 * np.cos(2 * np.pi * np.outer(t, self.free))
        rows = np.zeros((len(t), self.nv))
        const = 1.0 + h * s * (C @ (line * h))
        rows[:, 0] = -h * s * (C.sum(1) + Ct.sum(1))
        rows[:, 1:1 + len(self.free)] = h * s[:, None] * Ct
        if self.mass:
            rows[:, -1] = 2.0 * np.cos(2 * np.pi * N * t)
        return rows, const

    def nodes(self, x: np.ndarray) -> tuple[float, np.ndarray, float]:
        L = float(x[0])
        k = np.concatenate([np.arange(self.N + 1) * self.h - L, x[1:1 + len(self.free)] - L, [0.0]])
        return L, k, float(x[-1]) if self.mass else 0.0


def local_minima(f, lo: float, hi: float, points: int, below: float) -> np.ndarray:
    """Return refined local minima (zoomed 4 times by 16) of f on a grid of [lo, hi] where f < below."""
    t = np.linspace(lo, hi, points)
    v = f(t)
    idx = [i for i in range(points) if (i == 0 or v[i] <= v[i - 1]) and (i == points - 1 or v[i] <= v[i + 1])]
    out = []
    for i in idx:
        t0, step = t[i], (hi - lo) / (points - 1)
        for _ in range(4):
            local = np.clip(np.linspace(t0 - step, t0 + step, 33), lo, hi)
            t0 = local[int(np.argmin(f(local)))]
            step /= 16
        out.append(t0)
    out = np.array(out)
    return out[f(out) < below] if len(out) else out


def solve(N: int, M: int, *, mass: bool = True, margin: float = 1e-6, grid_factor: int = 16, max_rounds: int = 40,
          deadline: float | None = None) -> DualLp | None:
    """Return the LP optimum for h = 1/N and A = M/N, or None if infeasible or past the deadline."""
    rows = _Rows(N, M, mass)
    c = np.zeros(rows.nv)
    c[0] = -1.0
    bounds = [(0.0, 3.0)] + [(0.0, Y_MAX)] * len(rows.free) + ([(0.0, 0.5 - W_GAP)] if mass else [])
    t = np.linspace(0.0, 1.0, grid_factor * M + 1)
    result = None
    for rnd in range(max_rounds):
        a, b = rows.build(t)
        options = {}
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            options["time_limit"] = left
        res = linprog(c, A_ub=-a, b_ub=b - margin, bounds=bounds, method="highs-ipm", options=options)
        if res.status != 0:
            return None
        L, k, w = rows.nodes(res.x)

        def f(tt, k=k, w=w):
            return f_values(tt, 1.0 / N, k, w, N)

        cuts = local_minima(f, 0.0, 1.0, 16 * M + 1, 0.5 * margin)
        result = DualLp(N, M, L, k, w, rnd + 1, float(min(f(t).min(), f(cuts).min() if len(cuts) else np.inf)))
        if len(cuts) == 0:
            return result
        near = np.outer(cuts, np.ones(5)) + np.arange(-2, 3) / (64.0 * M)  # pin each minimum's neighbourhood
        ft = f(t)
        keep = t[(ft < KEEP_SLACK) | (ft <= np.sort(ft)[min(len(ft) - 1, 3 * rows.nv)])]  # drop far-inactive rows
        t = np.concatenate([keep, np.clip(near.ravel(), 0.0, 1.0)])
    return result
