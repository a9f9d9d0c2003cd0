"""Local proposer for `erdos-minimum-overlap`: smoothed descent, LP polish and step splitting (stages.py).

The problem: minimise max_s F_s(f), F_s = (2/n)·Σ_i f_i (1 − f_{i+s}) (the overlap at the grid shift 2s/n), over
0 <= f <= 1, Σf = n/2. From scratch the starts are the tent f(x) = 1 − |x| plus seeded noise at 50 steps (the
best of 8 goes on), doubled up to 1600; from a start (the head, or a published construction after `--start
published`) the rounds refine it at its effective resolution (`coarsened`: the fewest steps whose block means keep
its value) and split it when they stall. Proposals are integer heights ≈ f·SCALE, capped exactly so that the
normalised heights stay <= 1; the checker certifies them exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mathloop.targets.sidon_autocorrelation.slp import SLP_MAX_STEPS
from mathloop.targets.sidon_autocorrelation.smooth_max import Improvements, Schedule, convolve
from mathloop.targets.sidon_autocorrelation.stages import Plan, run_plan
from mathloop.targets.sidon_autocorrelation.step_proposer import StepProposer

SCALE = 10**12  # rounding moves a value by ~1e-12 (measured on 2400 steps: below 1e-11)
NOISE = 0.02
MIN_GAIN = 2e-8  # the smallest gain proposed (the fine lineage's minimum improvement is 1e-10; each commit is
# Lean-checked, ~20 s at 2400 steps)
PLAN = Plan(levels=(50, 100, 200, 400, 800, 1600), starts=8,
            scratch=Schedule(mu=1e-4, mu_min=1e-10, period=1000, iterations=24_000),
            refine=Schedule(mu=1e-8, mu_min=1e-10, period=2000, iterations=40_000),
            slp_steps=30, slp_band=1e-7, split_after=3, stall=1e-9, max_split=4800)
# A start is refined on its block means when they cost at most this much (in float value): SimpleTES's 2400 steps
# are 600 steps up to ~1e-4 per step (block means of 4 change the value by 3.5e-11), and at 600 steps the LP polish
# runs (n <= SLP_MAX_STEPS) where at 2400 only the smoothed descent does.
COARSEN_TOL = 1e-10


class OverlapProblem:
    """F at every shift s = −(n−1)..n−1 (index s + n − 1) over {0 <= f <= 1, Σf = n/2}."""

    lo, hi = 0.0, 1.0

    def __init__(self, n: int) -> None:
        self.n, self.total = n, n / 2

    def values(self, f: np.ndarray) -> np.ndarray:
        return convolve(f, (1 - f)[::-1])[::-1] * (2 / self.n)

    def pullback(self, f: np.ndarray, p: np.ndarray) -> np.ndarray:
        n = self.n
        return (convolve(p[::-1], 1 - f)[n - 1:2 * n - 1] - convolve(p, f)[n - 1:2 * n - 1]) * (2 / n)

    def rows(self, f: np.ndarray, terms: np.ndarray) -> np.ndarray:
        n = self.n
        fp = np.concatenate([np.zeros(n), f, np.zeros(n)])
        gp = np.concatenate([np.zeros(n), 1 - f, np.zeros(n)])
        j = np.arange(n)[None, :]
        s = (np.asarray(terms) - (n - 1))[:, None]
        return (gp[j + s + n] - fp[j - s + n]) * (2 / n)

    def linear(self, f: np.ndarray, d: np.ndarray) -> np.ndarray:
        return (convolve(d, (1 - f)[::-1])[::-1] - convolve(f, d[::-1])[::-1]) * (2 / self.n)


def normalised(h: np.ndarray) -> np.ndarray:
    """Return f = n·h/(2Σh) (the checker's normalisation)."""
    return h * (len(h) / (2 * h.sum()))


def float_value(h: np.ndarray) -> float:
    """Return the overlap of the normalised heights f = n·h/(2Σh) in floats (a pre-screen)."""
    f = normalised(np.asarray(h, dtype=float))
    return float(OverlapProblem(len(f)).values(f).max())


def _start(n: int, rng: np.random.Generator) -> np.ndarray:
    x = np.linspace(-1 + 1 / n, 1 - 1 / n, n)
    f = np.clip(1 - np.abs(x) + NOISE * rng.standard_normal(n), 0, 1)
    return np.clip(f * (n / 2) / f.sum(), 0, 1)


def coarsened(f: np.ndarray, tol: float = COARSEN_TOL, floor: int = SLP_MAX_STEPS // 2) -> np.ndarray:
    """Return the means of f over blocks of 2^j steps for the largest j whose value is at most f's + tol (f when
    no block size qualifies); stops once the steps are at most `floor` (the LP's reach)."""
    f = np.asarray(f, dtype=float)
    limit = float(OverlapProblem(len(f)).values(f).max()) + tol
    best = f
    while len(best) % 2 == 0 and len(best) > floor:
        coarse = best.reshape(-1, 2).mean(axis=1)  # the same Σf, still in [0, 1]
        if float(OverlapProblem(len(coarse)).values(coarse).max()) > limit:
            break
        best = coarse
    return best


def optimise(seed: int, start: np.ndarray | None, plan: Plan = PLAN) -> Improvements:
    """Yield (value, f) improvements: from scratch (start None, seeded) or refining `start` (heights) at its
    effective resolution (`coarsened`)."""
    if start is None:
        rng = np.random.default_rng(seed)
        return run_plan(OverlapProblem, [_start(plan.levels[0], rng) for _ in range(plan.starts)], plan, scratch=True)
    return run_plan(OverlapProblem, coarsened(np.clip(normalised(np.asarray(start, dtype=float)), 0, 1)), plan,
                    scratch=False)


def admissible_integers(f: np.ndarray) -> list[int]:
    """Return integer heights ≈ f·SCALE whose normalisation n·h/(2Σh) stays <= 1 (capped, exactly)."""
    n = len(f)
    h = [max(0, int(round(float(x) * SCALE))) for x in f]
    while True:
        cap = (2 * sum(h)) // n
        over = [i for i, a in enumerate(h) if a > cap]
        if not over:
            return h
        for i in over:
            h[i] = cap


class OverlapProposer(StepProposer):
    """The embedded C1b optimiser (see the module docstring)."""

    def __init__(self, target: Any, seed: int) -> None:
        super().__init__(target, seed, optimise, admissible_integers, float_value, MIN_GAIN)
