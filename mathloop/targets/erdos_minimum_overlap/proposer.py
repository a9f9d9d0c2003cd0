"""Local proposer for `erdos-minimum-overlap`: sequential linear programming on the heights (HiGHS).

Method (the local optimisation used since Haugland): with F_k(f) = (2/n)·Σ_i f_i(1 − f_{i+k}) the
overlap at shift k (a quadratic in f), each step solves the LP
    minimise t  subject to  F_k(f) + ∇F_k(f)·δ <= t (every k),  Σδ = 0,  0 <= f + δ <= 1,  |δ_i| <= ρ
and accepts f + δ if the true max_k F_k decreases (then ρ grows ×1.5), else halves ρ (trust region).
Stages restart from the tent f(x) = 1 − |x| (∫ = 1) plus seeded noise at more steps. Every accepted
improvement is yielded. The schedule counts LP solves only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from mathloop.targets.sidon_autocorrelation.step_proposer import Improvements, SCALE, StepProposer

# (steps n, LP solves) per stage
STAGES = ((50, 300), (100, 800), (150, 800), (200, 800))
RHO = (0.05, 0.2, 1e-7)   # initial, largest, smallest trust radius
NOISE = 0.02


def overlaps(f: np.ndarray) -> np.ndarray:
    """Return F at every shift (index k + n − 1 holds shift −k; the maximum is what matters)."""
    n = len(f)
    return (np.correlate(f, np.ones(n), mode="full") - np.correlate(f, f, mode="full")) * 2 / n


def float_value(h: np.ndarray) -> float:
    """Return the overlap of the normalised heights f = n·h/(2Σh) in floats (a pre-screen)."""
    return float(overlaps(h * (len(h) / (2 * h.sum()))).max())


def jacobian(f: np.ndarray) -> np.ndarray:
    """Return J[K, j] = dF_K/df_j, F_K = (2/n)·Σ_i f_{i+s}(1 − f_i), s = K − (n − 1)."""
    n = len(f)
    s = np.arange(-(n - 1), n)[:, None]
    j = np.arange(n)[None, :]
    fp = np.concatenate([np.zeros(n), f, np.zeros(n)])
    up = np.where((j - s >= 0) & (j - s < n), 1 - fp[np.clip(j - s + n, 0, 3 * n - 1)], 0.0)
    down = fp[np.clip(j + s + n, 0, 3 * n - 1)]
    return (up - down) * 2 / n


def _lp_step(f: np.ndarray, rho: float) -> np.ndarray | None:
    from scipy.optimize import linprog  # seconds to import: only when optimising

    n = len(f)
    F, J = overlaps(f), jacobian(f)
    c = np.zeros(n + 1)
    c[-1] = 1.0
    A = np.hstack([J, -np.ones((2 * n - 1, 1))])
    eq = np.zeros((1, n + 1))
    eq[0, :n] = 1.0
    bounds = [(max(-rho, -f[i]), min(rho, 1 - f[i])) for i in range(n)] + [(None, None)]
    r = linprog(c, A_ub=A, b_ub=-F, A_eq=eq, b_eq=[0.0], bounds=bounds, method="highs")
    return r.x[:n] if r.status == 0 else None


def _start(n: int, rng: np.random.Generator) -> np.ndarray:
    x = np.linspace(-1 + 1 / n, 1 - 1 / n, n)
    f = np.clip(1 - np.abs(x) + NOISE * rng.standard_normal(n), 0, 1)
    return np.clip(f * (n / 2) / f.sum(), 0, 1)


def optimise(seed: int, stages: tuple[tuple[int, int], ...] = STAGES) -> Improvements:
    """Yield (value, f) each time the best float overlap improves, None after every other LP step (so that
    the proposer sees its deadline); deterministic for a seed."""
    rng = np.random.default_rng(seed)
    best = float("inf")
    for n, solves in stages:
        f = _start(n, rng)
        cur = float(overlaps(f).max())
        rho = RHO[0]
        for _ in range(solves):
            if rho < RHO[2]:
                break
            d = _lp_step(f, rho)
            if d is None:
                rho /= 2
                yield None
                continue
            g = np.clip(f + d, 0, 1)
            g = np.clip(g * (n / 2) / g.sum(), 0, 1)
            new = float(overlaps(g).max())
            if new < cur - 1e-13:
                f, cur, rho = g, new, min(rho * 1.5, RHO[1])
                if cur < best:
                    best = cur
                    yield best, f.copy()
                    continue
            else:
                rho /= 2
            yield None


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
        super().__init__(target, seed, optimise, admissible_integers, float_value)
