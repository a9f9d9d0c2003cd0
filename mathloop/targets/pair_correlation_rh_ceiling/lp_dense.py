"""The ceiling LP on knots, solved by the dense interior point (`ipm`) with cutting planes: the wide lineage's engine.

Floats only: the result is a proposal, rationalised by the caller and certified by the checker. The LP is
`lp_warm`'s (maximise L over (L, y at the knots, w at the masses) with f(t) >= margin on [0, 1] and
a(t) >= margin on [0, 1/2]); what differs is how it is computed:

* rows come from the kink form f(t) = a(t) + h sum_{j>=1} j^2 d_j sinc^2(pi j t) (`kink_positivity`'s formula),
  d the second differences of each column's node sequence, which vanish off the knots: a row costs one
  sinc^2 per kink, not a cosine per node (M = A/h = 4800 nodes, ~560 kinks at (1/80, 60));
* f on the fine sample that finds the cuts is one FFT of the nodes (P(2 pi i/K) for K = 16 M points);
* each round is a cold dense interior-point solve (`ipm.solve`, BLAS normal equations, one BLAS thread); every
  cut is kept, with rows at several distances around it (OFFSETS), because the minima of f are sharp (f'' ~ 10^8
  in t at (1/40, 60)) and move a little from round to round;
* `warm` rows: points t (the previous dual's active points, x = t/h carried over to the new h) added to the first
  round, so that a coarser uniform grid (`grid_factor` points per unit of the highest frequency) is enough.

The margin is expensive: measured at (1/20, 40), the LP ceiling is 0.6799200 at margin 10^-5, 0.6799114 at
10^-6 and 0.6799106 at 10^-7 (dL/dmargin ~ 0.95, the dual's mass). So the LP runs at a tiny margin, its last
violations are left to the mixing (`mixing`), and `partner_margin` re-solves the final rows once at a larger
margin: a strictly feasible dual of the same grid to mix with (a mixture costs about violation x dL/dmargin).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mathloop.targets.pair_correlation_rh import ipm
from mathloop.targets.pair_correlation_rh_ceiling.lp import NEAR, W_MAX, Y_MAX, DualLp, knot_map
from mathloop.targets.pair_correlation_rh_ceiling.lp_warm import MissingSolver

EXTRA = "mathloop[ceiling]"
SAMPLE = 16  # fine-sample points per unit of the highest frequency (cuts, screening)
REFINE_BELOW = 0.02  # sample minima below this are refined (zoomed) before the margin test
OFFSETS = np.array([-1, -0.25, -0.0625, 0, 0.0625, 0.25, 1])  # rows around a cut, in units of 1/(NEAR top)
VIOLATION = 3e-7  # the rounds stop once no refined minimum of f or a lies more than this below the margin
ACTIVE = 1e-9  # a row is active when its dual weight is above this share of the largest
# the rounds also stop when the violation has not shrunk for this many rounds: the least violating round is kept
# (the LP's value moves by ~1e-9 per round by then, and a mixture costs about the violation)
STALE_ROUNDS = 3


def single_thread_blas() -> None:
    """Limit BLAS to one thread for the rest of the process (`ipm.single_thread_blas`), or raise MissingSolver
    naming the extra: without it the LP runs ~25 times slower on a loaded machine."""
    if not ipm.single_thread_blas():
        raise MissingSolver(f"the dense ceiling LP needs threadpoolctl: pip install '{EXTRA}'")


@dataclass(frozen=True)
class KnotColumns:
    """The LP's columns: nodes = K (L, y) + k0; second differences d = D (L, y) + d0 on the kinks `j` >= 1."""

    N: int
    M: int
    at: np.ndarray
    K: np.ndarray
    k0: np.ndarray
    j: np.ndarray
    D: np.ndarray
    d0: np.ndarray

    @property
    def nk(self) -> int:
        return self.K.shape[1]

    @property
    def nv(self) -> int:
        return self.nk + len(self.at)


def columns(N: int, M: int, knots: Sequence[int], at: Sequence[int]) -> KnotColumns:
    """Return the knot LP's columns (lp.knot_map) with their second differences on the kinks j >= 1."""
    K, k0 = knot_map(N, M, knots)
    full = np.column_stack([K, k0])
    ext = np.vstack([full[1:2], full, np.zeros((1, full.shape[1]))])  # k_{-1} = k_1 (even), k_{M+1} = 0
    d = ext[2:] - 2 * ext[1:-1] + ext[:-2]  # rows j = 0 .. M
    j = np.flatnonzero(np.any(np.abs(d[1:]) > 1e-13, axis=1)) + 1  # j >= 1: the sinc form needs no j = 0
    return KnotColumns(N, M, np.array(at, dtype=int), K, k0, j, d[j, :-1], d[j, -1])


def f_rows(cols: KnotColumns, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (rows, const) with f(t) = rows (L, y, w) + const."""
    S = np.sinc(np.outer(t, cols.j)) ** 2 * (cols.j.astype(float) ** 2 / cols.N)
    rows = np.empty((len(t), cols.nv))
    rows[:, :cols.nk] = S @ cols.D
    rows[:, cols.nk:] = a_rows(cols, t)
    return rows, 1.0 + S @ cols.d0


def a_rows(cols: KnotColumns, t: np.ndarray) -> np.ndarray:
    """Return the rows of a(t) - 1 = rows w (the masses' columns only)."""
    return 2.0 * np.cos(2 * np.pi * np.outer(t, cols.at))


@dataclass(frozen=True)
class Rows:
    """The LP's rows so far: f(t) >= margin at `t`, a(ta) >= margin at `ta`."""

    t: np.ndarray
    F: np.ndarray
    fc: np.ndarray
    ta: np.ndarray
    Am: np.ndarray

    def add(self, cols: KnotColumns, t: np.ndarray, ta: np.ndarray) -> "Rows":
        Fn, fn = f_rows(cols, t)
        return Rows(np.concatenate([self.t, t]), np.vstack([self.F, Fn]), np.concatenate([self.fc, fn]),
                    np.concatenate([self.ta, ta]), np.vstack([self.Am, a_rows(cols, ta)]))

    def blocks(self, cols: KnotColumns, margin: float) -> list[ipm.Block]:
        out = [ipm.Block(self.F, margin - self.fc, slice(0, cols.nv))]
        if len(self.ta):
            out.append(ipm.Block(self.Am, np.full(len(self.ta), margin - 1.0), slice(cols.nk, cols.nv)))
        return out

    @property
    def count(self) -> int:
        return len(self.t) + len(self.ta)


def nodes_of(cols: KnotColumns, x: np.ndarray) -> np.ndarray:
    return cols.K @ x[:cols.nk] + cols.k0


@dataclass(frozen=True)
class LpRun:
    """The tight LP's last round, its active points t, and the same rows re-solved at the partner margin (or None)."""

    result: DualLp
    active: np.ndarray
    partner: DualLp | None
    rows: int


def _lp(cols: KnotColumns, x: np.ndarray, rounds: int, low: float) -> DualLp:
    return DualLp(cols.N, cols.M, float(x[0]), nodes_of(cols, x), x[cols.nk:].copy(), rounds, low,
                  tuple(int(b) for b in cols.at))


def solve(N: int, M: int, *, knots: Sequence[int], at: Sequence[int], margin: float = 1e-8, grid_factor: int = 2,
          max_rounds: int = 30, deadline: float | None = None, warm: np.ndarray | None = None,
          partner_margin: float | None = 1e-4, log: Callable[[DualLp, int, float], None] | None = None) -> LpRun | None:
    """Return the cutting-plane LP for h = 1/N, A = M/N (knots and masses as grid indices), or None.

    Stops when no refined minimum of f (or a) lies more than VIOLATION below the margin, when the violation has not
    shrunk for STALE_ROUNDS rounds, after `max_rounds`, or at the `time.monotonic()` deadline; returns the least
    violating round (a proposal, never a certificate).
    """
    from mathloop.targets.pair_correlation_rh_ceiling.sample import minima_below, sample

    single_thread_blas()
    cols = columns(N, M, knots, at)
    top = max([M, *cols.at])
    heavy = len(cols.at) > 1
    upper = np.array([3.0] + [Y_MAX] * (cols.nk - 1) + [W_MAX if heavy else 0.5 - 1e-9] * len(cols.at))
    cost = np.zeros(cols.nv)
    cost[0] = 1.0
    t = np.linspace(0.0, 1.0, grid_factor * top + 1)
    if warm is not None and len(warm):
        t = np.concatenate([t, np.clip(warm[(warm >= 0) & (warm <= 1)], 0.0, 1.0)])
    ta = np.linspace(0.0, 0.5, grid_factor * top // 2 + 1) if heavy else np.zeros(0)
    rows = Rows(np.zeros(0), np.zeros((0, cols.nv)), np.zeros(0), np.zeros(0), np.zeros((0, cols.nv - cols.nk)))
    rows = rows.add(cols, t, ta)
    best: tuple[float, DualLp, np.ndarray] | None = None  # (violation, round, active points): the least violating
    stale = 0
    for rnd in range(max_rounds):
        started = time.monotonic()
        res = ipm.solve(cost, upper, rows.blocks(cols, margin), deadline=deadline)
        if res.status not in ("optimal", "iterations"):
            break
        x = res.x
        s = sample(N, nodes_of(cols, x), x[cols.nk:], cols.at, SAMPLE * top)
        cuts, cuts_a, low = minima_below(s, margin - VIOLATION, heavy, REFINE_BELOW)
        z = res.z[0]
        here = (margin - low, _lp(cols, x, rnd + 1, low), rows.t[z > ACTIVE * max(float(z.max()), 1e-300)])
        stale = 0 if best is None or here[0] < best[0] else stale + 1
        best = here if stale == 0 else best
        if log is not None:
            log(here[1], rows.count, time.monotonic() - started)
        if (not len(cuts) and not len(cuts_a)) or stale >= STALE_ROUNDS:
            break
        near = (cuts[:, None] + OFFSETS[None, :] / (NEAR * top)).ravel()
        near_a = (cuts_a[:, None] + OFFSETS[None, :] / (NEAR * top)).ravel()
        rows = rows.add(cols, np.clip(near, 0.0, 1.0), np.clip(near_a, 0.0, 0.5) if heavy else np.zeros(0))
    if best is None:
        return None
    partner = None
    if partner_margin is not None and (deadline is None or time.monotonic() < deadline):
        res = ipm.solve(cost, upper, rows.blocks(cols, partner_margin), deadline=deadline)
        if res.status in ("optimal", "iterations"):
            partner = _lp(cols, res.x, 1, float("nan"))
    return LpRun(best[1], best[2], partner, rows.count)
