"""Local proposer for `sidon-autocorrelation`: smoothed descent, LP polish and step splitting (stages.py).

The problem: minimise max_k F_k(a), F_k = 2n·c_k/S² with c = a∗a (the autoconvolution at the grid points) and
S = Σa fixed at n, over a >= 0 (the value is scale-invariant, so fixing S loses nothing). From scratch the starts are
seeded perturbations of the constant function at 64 steps (the best of 4 goes on), doubled up to 2048; from a start (the head, or a
published construction after `--start published`) the rounds refine it at its own n (30,000 steps included: every
gradient is an FFT) and split it when they stall. Proposals are integer heights round(a/max a·SCALE); the checker
certifies them exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mathloop.targets.sidon_autocorrelation.smooth_max import Improvements, Schedule, convolve
from mathloop.targets.sidon_autocorrelation.stages import Plan, run_plan
from mathloop.targets.sidon_autocorrelation.step_proposer import StepProposer, integer_heights

PLAN = Plan(levels=(64, 128, 256, 512, 1024, 2048), starts=4,
            scratch=Schedule(mu=1e-3, mu_min=1e-11, period=1000, iterations=30_000),
            refine=Schedule(mu=1e-9, mu_min=1e-12, period=1000, iterations=8_000),
            slp_steps=30, slp_band=1e-6, split_after=3, stall=1e-10, max_split=4096)


MIN_GAIN = 5e-9  # the smallest gain proposed (the fine lineage's minimum improvement is 1e-10)


class AutoconvolutionProblem:
    """F_k = 2n·c_k/S², k = 0..2n−2, over {a >= 0, Σa = S = n}."""

    lo, hi = 0.0, np.inf

    def __init__(self, n: int) -> None:
        self.n, self.total = n, float(n)
        self.scale = 2 * n / self.total**2

    def values(self, a: np.ndarray) -> np.ndarray:
        return convolve(a, a) * self.scale

    def pullback(self, a: np.ndarray, p: np.ndarray) -> np.ndarray:
        n = self.n
        return convolve(p, a[::-1])[n - 1:2 * n - 1] * (2 * self.scale)

    def rows(self, a: np.ndarray, terms: np.ndarray) -> np.ndarray:
        n = self.n
        ap = np.concatenate([np.zeros(n), a, np.zeros(n)])
        j = np.arange(n)[None, :]
        k = np.asarray(terms)[:, None]
        return ap[k - j + n] * (2 * self.scale)

    def linear(self, a: np.ndarray, d: np.ndarray) -> np.ndarray:
        return convolve(a, d) * (2 * self.scale)


def float_value(a: np.ndarray) -> float:
    """Return 2n·max(a∗a)/(Σa)² in floats (a pre-screen; the checker's value is exact)."""
    a = np.asarray(a, dtype=float)
    return float(2 * len(a) * convolve(a, a).max() / a.sum() ** 2)


def optimise(seed: int, start: np.ndarray | None, plan: Plan = PLAN) -> Improvements:
    """Yield (value, a) improvements: from scratch (start None, seeded) or refining `start` (heights)."""
    if start is None:
        n, rng = plan.levels[0], np.random.default_rng(seed)
        starts = [1.0 + 0.1 * rng.random(n) for _ in range(plan.starts)]
        return run_plan(AutoconvolutionProblem, [a * (n / a.sum()) for a in starts], plan, scratch=True)
    a = np.asarray(start, dtype=float)
    return run_plan(AutoconvolutionProblem, a * (len(a) / a.sum()), plan, scratch=False)


class SidonProposer(StepProposer):
    """The embedded C1a optimiser (see the module docstring)."""

    def __init__(self, target: Any, seed: int) -> None:
        super().__init__(target, seed, optimise, integer_heights, float_value, MIN_GAIN)
