"""The LP engine of the ceiling proposer: maximise L over duals k on hZ with 1 + k-check >= margin.

Floats only: the result is a proposal, rationalised by the caller and certified by the checker.
Variables: L, y_j = k_j + L >= 0 for the free nodes N < j < M (condition (ii) as a bound), and
the weights w_i >= 0 of point masses at alpha = b_i h on the grid (b_i >= N integers; with one mass
at alpha = 1, w < 1/2 as a bound; with several, a(t) = 1 + 2 sum w_i cos(2 pi b_i t) >= margin as
constraints on [0, 1/2]). Nodes j <= N are j h - L (condition (i)); k_M = 0. Condition (iii) is
imposed at the points t of [0, 1] (the exact period of f with masses on the grid, see the package
docstring) of a grid plus cutting planes: the local minima of f (and of a), refined by zooming,
wherever they are < margin/2 (HiGHS via scipy.optimize.linprog). With `coarse` = (c0, s) the
nodes beyond c0 are tied to knots s apart (see _Rows): fewer columns, the same kind of k.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

Y_MAX = 10.0  # free nodes k_j lie in [-L, Y_MAX - L]
W_GAP = 1e-9  # a single mass: w <= 1/2 - W_GAP
W_MAX = 5.0  # several masses: each w_i in [0, W_MAX] (a(t) >= 0 bounds them anyway)
NEAR = 32.0  # cut rows at a minimum and +-1/(NEAR top): closer rows make the IPM ill-conditioned
KEEP_SLACK = 0.05  # rows with f(t) above this are dropped between rounds (cuts re-find them if needed)


@dataclass(frozen=True)
class DualLp:
    """A solved LP: L, the full node vector k_0 .. k_M and the mass weight (floats)."""

    N: int
    M: int
    L: float
    nodes: np.ndarray
    weights: np.ndarray
    rounds: int
    min_f: float
    at: tuple[int, ...] = ()

    @property
    def weight(self) -> float:
        """Return the total mass weight W."""
        return float(np.sum(self.weights))

    @property
    def ceiling(self) -> float:
        return 2.0 - self.L


def f_values(t: np.ndarray, h: float, nodes: np.ndarray, weights, at) -> np.ndarray:
    """Return f(t) = 1 + h sinc^2(pi t) P(2 pi t) + 2 sum w_i cos(2 pi b_i t) in floats (masses at b_i h)."""
    j = np.arange(len(nodes))
    eps = np.where(j == 0, 1.0, 2.0)
    return 1.0 + h * np.sinc(t) ** 2 * (np.cos(2 * np.pi * np.outer(t, j)) @ (eps * nodes)) + a_values(t, weights, at) - 1.0


def a_values(t: np.ndarray, weights, at) -> np.ndarray:
    """Return a(t) = 1 + 2 sum w_i cos(2 pi b_i t) in floats."""
    b = np.atleast_1d(np.asarray(at, dtype=float))
    w = np.atleast_1d(np.asarray(weights, dtype=float))
    return 1.0 + (2.0 * np.cos(2 * np.pi * np.outer(t, b)) @ w if len(b) else 0.0)


class _Rows:
    """Constraint rows of f(t) >= margin (and a(t) >= margin) in the LP variables (L, y, w).

    y are the free nodes N < j < M, or with a coarse tail (`coarse` = (c0, s)) the nodes
    N < j <= c0 and the knots c0 + s, c0 + 2 s, ... < M: nodes between knots are their linear
    interpolation (k_M = 0), so k is still piecewise linear on hZ and y >= 0 at the knots gives
    k >= -L everywhere; only the LP has fewer columns.
    """

    def __init__(self, N: int, M: int, at: tuple[int, ...], coarse: tuple[int, int] | None = None) -> None:
        self.N, self.M, self.at = N, M, np.array(at, dtype=int)
        self.h = 1.0 / N
        self.K, self.k0 = node_map(N, M, coarse)
        self.ny = self.K.shape[1] - 1
        self.nv = 1 + self.ny + len(at)

    def build(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = np.sinc(t) ** 2
        j = np.arange(self.M + 1)
        C = np.cos(2 * np.pi * np.outer(t, j)) * np.where(j == 0, 1.0, 2.0)
        rows = np.zeros((len(t), self.nv))
        rows[:, :1 + self.ny] = self.h * s[:, None] * (C @ self.K)  # columns (L, y)
        const = 1.0 + self.h * s * (C @ self.k0)
        rows[:, 1 + self.ny:] = 2.0 * np.cos(2 * np.pi * np.outer(t, self.at))
        return rows, const

    def build_a(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.zeros((len(t), self.nv))
        rows[:, 1 + self.ny:] = 2.0 * np.cos(2 * np.pi * np.outer(t, self.at))
        return rows, np.ones(len(t))

    def nodes(self, x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        return float(x[0]), self.K @ x[:1 + self.ny] + self.k0, np.array(x[1 + self.ny:], dtype=float)


def node_map(N: int, M: int, coarse: tuple[int, int] | None) -> tuple[np.ndarray, np.ndarray]:
    """Return (K, k0) with nodes k_0 .. k_M = K (L, y) + k0: j h - L for j <= N, y - L at knots, else interpolated."""
    c0, step = coarse if coarse is not None else (M, 1)
    if not (N <= c0 <= M and step >= 1 and (M - c0) % step == 0):
        raise ValueError("coarse tail needs N <= c0 <= M and M - c0 a multiple of the step")
    return knot_map(N, M, list(range(N + 1, min(c0 + 1, M))) + list(range(c0 + step, M, step)))


def knot_map(N: int, M: int, knots: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Return (K, k0) with nodes k_0 .. k_M = K (L, y) + k0 (j h - L on [0, 1], y - L at knots, else interpolated)."""
    ks = sorted(set(knots))
    if ks and not (N < ks[0] and ks[-1] < M):
        raise ValueError("knots must lie strictly between 1/h and A/h")
    K = np.zeros((M + 1, 1 + len(ks)))
    k0 = np.zeros(M + 1)
    K[:N + 1, 0] = -1.0
    k0[:N + 1] = np.arange(N + 1) / N
    for i, j in enumerate(ks):
        K[j, 1 + i], K[j, 0] = 1.0, -1.0
    anchors = [N, *ks, M]  # k_M = 0: K and k0 rows stay 0
    for a, b in zip(anchors, anchors[1:]):
        for j in range(a + 1, b):
            th = (j - a) / (b - a)
            K[j] = (1 - th) * K[a] + th * K[b]
            k0[j] = (1 - th) * k0[a] + th * k0[b]
    return K, k0


def mass_points(N: int, spacing: int, last: int) -> tuple[int, ...]:
    """Return the grid indices b = N, N + spacing, ... <= last of masses at alpha = b h (spacing in units of h)."""
    return tuple(range(N, last + 1, spacing))


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


def round_cuts(N: int, k: np.ndarray, w: np.ndarray, at: tuple[int, ...], top: int, margin: float, heavy: bool,
               sample: np.ndarray | None = None):
    """Return (f, a, cuts of f, cuts of a, lowest value seen) after a round: the cuts are the refined local
    minima below margin/2 (a only with several masses); the lowest value is over `sample` and the cuts."""
    def f(tt):
        return f_values(tt, 1.0 / N, k, w, at)

    def fa(tt):
        return a_values(tt, w, at)

    cuts = local_minima(f, 0.0, 1.0, 16 * top + 1, 0.5 * margin)
    cuts_a = local_minima(fa, 0.0, 0.5, 8 * top + 1, 0.5 * margin) if heavy else np.zeros(0)
    seen = sample if sample is not None else np.linspace(0.0, 1.0, 16 * top + 1)
    lows = [f(seen).min()] + ([f(cuts).min()] if len(cuts) else []) + ([fa(cuts_a).min()] if len(cuts_a) else [])
    return f, fa, cuts, cuts_a, float(min(lows))


# HiGHS's interior point (IPX) ignores a time_limit shorter than its own set-up: measured at (1/20, 40)
# with limits of 0.5-1.2 s it ran 42-52 s to optimality, while the dual simplex stopped within ~1.7 s
# of the limit. A round started with less than this left runs the dual simplex.
IPM_MIN_SECONDS = 10.0


def _time_left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


def solve(N: int, M: int, *, mass: bool = True, margin: float = 1e-6, grid_factor: int = 16, max_rounds: int = 40,
          deadline: float | None = None, at: tuple[int, ...] | None = None, method: str = "highs-ipm",
          coarse: tuple[int, int] | None = None, log: Callable[[DualLp, int], None] | None = None) -> DualLp | None:
    """Return the LP optimum for h = 1/N and A = M/N, or None if infeasible or past the deadline.

    Masses sit at alpha = b h for b in `at` (default: one at alpha = 1 if `mass`, else none);
    `coarse` = (c0, s) ties the nodes beyond c0 to knots s apart (node_map); `log(result, rows)`
    is called after every round (benchmarks).
    """
    at = tuple(at) if at is not None else ((N,) if mass else ())
    heavy = len(at) > 1  # a single mass keeps w < 1/2 as a bound; several need a(t) >= margin rows
    rows = _Rows(N, M, at, coarse)
    c = np.zeros(rows.nv)
    c[0] = -1.0
    w_bound = (0.0, W_MAX) if heavy else (0.0, 0.5 - W_GAP)
    bounds = [(0.0, 3.0)] + [(0.0, Y_MAX)] * rows.ny + [w_bound] * len(at)
    top = max([M] + list(at))
    t = np.linspace(0.0, 1.0, grid_factor * top + 1)
    ta = np.linspace(0.0, 0.5, grid_factor * top // 2 + 1) if heavy else np.zeros(0)
    result = None
    for rnd in range(max_rounds):
        a, b = rows.build(t)
        if heavy:
            a2, b2 = rows.build_a(ta)
            a, b = np.vstack([a, a2]), np.concatenate([b, b2])
        run = method
        if deadline is not None and deadline - time.monotonic() < IPM_MIN_SECONDS:
            run = "highs-ds"  # IPX overruns a short time_limit (see IPM_MIN_SECONDS); dual simplex keeps it
        left = _time_left(deadline)
        if left is not None and left <= 0:
            return None
        res = linprog(c, A_ub=-a, b_ub=b - margin, bounds=bounds, method=run,
                      options={} if left is None else {"time_limit": left})
        if res.status != 0 and run != "highs-ds" and res.status != 1:  # IPM numerical trouble: dual simplex
            left = _time_left(deadline)
            if left is not None and left <= 0:
                return result
            res = linprog(c, A_ub=-a, b_ub=b - margin, bounds=bounds, method="highs-ds",
                          options={} if left is None else {"time_limit": left})
        if res.status != 0:
            return result  # the last round solved (a proposal: back-off and the checker decide), or None
        L, k, w = rows.nodes(res.x)
        f, fa, cuts, cuts_a, low = round_cuts(N, k, w, at, top, margin, heavy, t)
        result = DualLp(N, M, L, k, w, rnd + 1, low, at)
        if log is not None:
            log(result, len(t) + len(ta))
        if len(cuts) == 0 and len(cuts_a) == 0:
            return result
        near = np.outer(cuts, np.ones(3)) + np.arange(-1, 2) / (NEAR * top)  # pin each minimum's neighbourhood
        ft = f(t)
        keep = t[(ft < KEEP_SLACK) | (ft <= np.sort(ft)[min(len(ft) - 1, 3 * rows.nv)])]  # drop far-inactive rows
        t = np.concatenate([keep, np.clip(near.ravel(), 0.0, 1.0)])
        if heavy:
            fv = fa(ta)
            near_a = np.outer(cuts_a, np.ones(3)) + np.arange(-1, 2) / (NEAR * top)
            ta = np.concatenate([ta[(fv < KEEP_SLACK) | (fv <= np.sort(fv)[min(len(fv) - 1, rows.nv)])],
                                 np.clip(near_a.ravel(), 0.0, 0.5)])
    return result
