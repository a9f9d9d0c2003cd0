"""The warm-started LP of the ceiling proposer (highspy): one persistent model, cuts added as rows.

Floats only: the result is a proposal, rationalised by the caller and certified by the checker.
Same LP as `lp.solve` (maximise L over duals k on hZ with f(t) >= margin on [0, 1] and a(t) >= margin
on [0, 1/2]), with two differences:

* the free nodes are an arbitrary set of *knots* (grid indices N < j < M): the nodes between two
  knots are their linear interpolation (the anchors are j = N, where k = 1 - L, and j = M, where
  k = 0), so k is still piecewise linear on hZ and y = k + L >= 0 at the knots gives k >= -L
  everywhere. `graded_knots` spaces them finely near alpha = 1 and coarsely far out (a non-uniform
  grid inside the LP; the candidate lists every node of the fine grid, so the checker is unchanged);
* the cutting-plane rounds edit one persistent HiGHS model (the round's cuts added as rows, far-inactive
  rows deleted) instead of building a cold `scipy.optimize.linprog` per round, which the scipy wrapper
  cannot warm-start. `method="simplex"` re-solves with the dual simplex from the previous basis (rows
  added to an optimal basis keep it dual feasible); `method="ipm"` (the proposer's) runs HiGHS's interior
  point without crossover. Measured at (1/20, 40) under load ~8: the warm dual simplex took 188 s and
  124 s for its first two rounds (the degenerate optimum makes a warm re-solve nearly as long as a cold
  one), the interior point 15 s and 22 s, and all 9 rounds to the same 0.6799200 in 351 s.

highspy is the optional extra `mathloop[ceiling]`; `require_highspy` names it when it is missing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from mathloop.targets.errors import MissingExtra
from mathloop.targets.pair_correlation_rh_ceiling.lp import (IPM_MIN_SECONDS, KEEP_SLACK, NEAR, W_MAX, Y_MAX, DualLp,
                                                            knot_map, round_cuts)

EXTRA = "mathloop[ceiling]"


class MissingSolver(MissingExtra):
    """highspy is not installed (the message names the extra that provides it)."""


def require_highspy():
    """Return the highspy module, or raise MissingSolver naming the extra to install."""
    try:
        import highspy
    except ImportError as e:
        raise MissingSolver(f"the warm-started ceiling LP needs highspy: pip install '{EXTRA}' ({e})") from None
    return highspy


@dataclass(frozen=True)
class Graded:
    """A non-uniform knot family: bands (alpha_end, n), knots 1/n apart from alpha = 1 up to each end."""

    bands: tuple[tuple[int, int], ...]

    def knots(self, N: int, M: int) -> tuple[int, ...]:
        return graded_knots(N, M, [(Fraction(e), n) for e, n in self.bands])

    def fits(self, N: int) -> bool:
        """Return whether every band's knots lie on the grid h = 1/N."""
        return all(N % n == 0 for _, n in self.bands)

    def describe(self) -> str:
        return "graded " + ", ".join(f"1/{n} to {e}" for e, n in self.bands)


def graded_knots(N: int, M: int, bands: Sequence[tuple[Fraction, int]]) -> tuple[int, ...]:
    """Return the knot indices N < j < M: band (alpha_end, n) puts knots 1/n apart up to alpha_end.

    Bands run in order from alpha = 1; past the last band's end no knot is free (k interpolates to 0
    at A). Every knot lies on the grid (N a multiple of each n).
    """
    knots: list[int] = []
    j = N
    for end, n in bands:
        if N % n:
            raise ValueError(f"1/h = {N} is not a multiple of {n} knots per unit")
        step, stop = N // n, min(M, int(Fraction(end) * N))
        while j + step <= stop and j + step < M:
            j += step
            knots.append(j)
    return tuple(knots)


class WarmLp:
    """The persistent HiGHS model: columns (L, y at the knots, w at the masses), rows f >= margin and a >= margin."""

    def __init__(self, N: int, M: int, knots: Sequence[int], at: Sequence[int], margin: float,
                 method: str = "simplex") -> None:
        hs = require_highspy()
        self.N, self.M, self.at, self.margin = N, M, np.array(at, dtype=int), margin
        self.K, self.k0 = knot_map(N, M, knots)
        self.ny = self.K.shape[1] - 1
        self.nv = 1 + self.ny + len(at)
        self.inf = hs.kHighsInf
        self.model = hs.Highs()
        m = self.model
        m.setOptionValue("output_flag", False)
        m.setOptionValue("solver", method)
        if method == "simplex":
            m.setOptionValue("simplex_strategy", 1)  # dual simplex: rows added to an optimal basis keep it dual feasible
        else:
            m.setOptionValue("run_crossover", "off")
        lower = np.zeros(self.nv)
        upper = np.array([3.0] + [Y_MAX] * self.ny + [W_MAX] * len(at))
        m.addVars(self.nv, lower, upper)
        cost = np.zeros(self.nv)
        cost[0] = -1.0  # maximise L
        m.changeColsCost(self.nv, np.arange(self.nv, dtype=np.int32), cost)
        j = np.arange(M + 1)
        self._eps = np.where(j == 0, 1.0, 2.0)
        self.rows = 0
        self.points, self.is_a = np.zeros(0), np.zeros(0, bool)  # each row's t and whether it is an a-row, in row order

    def _f_rows(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = np.sinc(t) ** 2
        C = np.cos(2 * np.pi * np.outer(t, np.arange(self.M + 1))) * self._eps
        rows = np.zeros((len(t), self.nv))
        rows[:, :1 + self.ny] = (s[:, None] / self.N) * (C @ self.K)
        rows[:, 1 + self.ny:] = 2.0 * np.cos(2 * np.pi * np.outer(t, self.at))
        return rows, 1.0 + (s / self.N) * (C @ self.k0)

    def _a_rows(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.zeros((len(t), self.nv))
        rows[:, 1 + self.ny:] = 2.0 * np.cos(2 * np.pi * np.outer(t, self.at))
        return rows, np.ones(len(t))

    def add(self, t: np.ndarray, ta: np.ndarray) -> None:
        """Add the rows f(t) >= margin and a(ta) >= margin."""
        parts = [self._f_rows(t)] + ([self._a_rows(ta)] if len(ta) else [])
        a = np.vstack([p[0] for p in parts])
        const = np.concatenate([p[1] for p in parts])
        n = len(const)
        if n == 0:
            return
        starts = np.arange(n, dtype=np.int32) * self.nv
        index = np.tile(np.arange(self.nv, dtype=np.int32), n)
        self.model.addRows(n, self.margin - const, np.full(n, self.inf), n * self.nv, starts, index, a.ravel())
        self.rows += n
        self.points = np.concatenate([self.points, t, ta])
        self.is_a = np.concatenate([self.is_a, np.zeros(len(t), bool), np.ones(len(ta), bool)])

    def drop(self, f, a, keep: int) -> None:
        """Delete the rows whose value (f at an f-row's t, a at an a-row's t) is above KEEP_SLACK, but keep the
        `keep` lowest of each kind: far-inactive rows only slow each solve, and a cut re-finds a point if needed."""
        value = np.empty(len(self.points))
        value[~self.is_a] = f(self.points[~self.is_a])
        if self.is_a.any():
            value[self.is_a] = a(self.points[self.is_a])
        mask = np.zeros(len(value), bool)
        for kind in (~self.is_a, self.is_a):
            v = value[kind]
            if len(v):
                mask[kind] = (v > KEEP_SLACK) & (v > np.sort(v)[min(len(v) - 1, keep)])
        if not mask.any():
            return
        self.model.deleteRows(int(mask.sum()), np.flatnonzero(mask).astype(np.int32))
        self.points, self.is_a = self.points[~mask], self.is_a[~mask]
        self.rows -= int(mask.sum())

    def solve(self, time_limit: float | None) -> np.ndarray | None:
        """Return the optimal (L, y, w), or None (infeasible, numerical trouble or out of time)."""
        hs = require_highspy()
        self.model.setOptionValue("time_limit", float(time_limit) if time_limit is not None else self.inf)
        self.model.run()
        if self.model.getModelStatus() != hs.HighsModelStatus.kOptimal:
            return None
        return np.array(self.model.getSolution().col_value)

    def split(self, x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """Return (L, nodes k_0 .. k_M, weights)."""
        return float(x[0]), self.K @ x[:1 + self.ny] + self.k0, np.array(x[1 + self.ny:], dtype=float)


def solve(N: int, M: int, *, knots: Sequence[int], at: Sequence[int], margin: float = 1e-5, grid_factor: int = 4,
          max_rounds: int = 40, deadline: float | None = None, method: str = "simplex", keep_cuts: bool = False,
          log: Callable[[DualLp, int, float], None] | None = None) -> DualLp | None:
    """Return the cutting-plane LP optimum for h = 1/N, A = M/N (knots and masses as grid indices), or None.

    Stops when no refined local minimum of f (or of a) is below margin/2, after `max_rounds`, or at the
    `time.monotonic()` deadline (then the last solved round is returned: a proposal, never a certificate).
    `log(result, rows, seconds)` is called after every round (benchmarks). With `keep_cuts` no row is ever
    deleted: at (1/40, 40) with 719 columns, dropping far-inactive rows made the rounds cycle (a dropped row
    became the violated one), so the larger configurations keep every cut and converge at the price of
    larger LPs.
    """
    at = tuple(at)
    model = WarmLp(N, M, knots, at, margin, method)
    top = max([M, *at])
    heavy = len(at) > 1
    model.add(np.linspace(0.0, 1.0, grid_factor * top + 1),
              np.linspace(0.0, 0.5, grid_factor * top // 2 + 1) if heavy else np.zeros(0))
    result = None
    for rnd in range(max_rounds):
        started = time.monotonic()
        left = None if deadline is None else deadline - started
        if left is not None and (left <= 0 or (method == "ipm" and left < IPM_MIN_SECONDS)):
            return result  # IPX overruns a short time_limit (lp.IPM_MIN_SECONDS): stop with the last round
        x = model.solve(left)
        if x is None:
            return result
        L, k, w = model.split(x)
        f, fa, cuts, cuts_a, low = round_cuts(N, k, w, at, top, margin, heavy, model.points[~model.is_a])
        result = DualLp(N, M, L, k, w, rnd + 1, low, at)
        if log is not None:
            log(result, model.rows, time.monotonic() - started)
        if len(cuts) == 0 and len(cuts_a) == 0:
            return result
        near = (np.outer(cuts, np.ones(3)) + np.arange(-1, 2) / (NEAR * top)).ravel()
        near_a = (np.outer(cuts_a, np.ones(3)) + np.arange(-1, 2) / (NEAR * top)).ravel()
        if not keep_cuts:
            model.drop(f, fa, 3 * model.nv)
        model.add(np.clip(near, 0.0, 1.0), np.clip(near_a, 0.0, 0.5))
    return result
