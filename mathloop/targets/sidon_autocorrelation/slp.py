"""Sequential linear programming on the near-active terms of a maximum (HiGHS), with a trust region.

Each step linearises every F_s at x and solves
    minimise t  subject to  F_s(x) + J_s·δ <= t  (s in W),  x + δ in X,  |δ_i| <= ρ,
where W starts as the terms within `band` of the maximum and grows by constraint generation: the
linear model of *every* term is evaluated at the LP's δ by FFT (`problem.linear(x, δ)`), and the terms it
would push above t join W (at most `grow` per round, `rounds` rounds). Only W's rows are dense in the LP, so
the LP stays as small as the set of terms that matter. The step is accepted when the true maximum decreases
(ρ grows ×1.5), else ρ shrinks ×3. HiGHS's interior point method (scipy's `highs-ipm`) solves each LP; its
cost grows like rows²·n (measured on 2400-step C1b functions with highspy, crossover off: 4 s for 550 rows,
21 s for 1000 rows, the dual simplex over 60 s), hence the limit SLP_MAX_STEPS.

Measured on this machine, the smoothed descent (smooth_max.py) is faster from a good start; the LP step is the
exact polish of a small function (n up to SLP_MAX_STEPS), where an LP-stationary point is within reach.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from mathloop.targets.sidon_autocorrelation.smooth_max import Improvements, SmoothMaxProblem, project

SLP_MAX_STEPS = 800


class LinearisedProblem(SmoothMaxProblem, Protocol):
    def rows(self, x: np.ndarray, terms: np.ndarray) -> np.ndarray:
        """Return the gradients of F_s at x for the terms s (one dense row each)."""

    def linear(self, x: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Return J·d for every term (the first-order change of every F_s along d)."""


def _lp(problem: LinearisedProblem, x: np.ndarray, F: np.ndarray, W: list[int], rho: float):
    from scipy.optimize import linprog  # seconds to import: only when this stage runs

    n = len(x)
    hi = problem.hi if np.isfinite(problem.hi) else None
    bounds = [(max(-rho, problem.lo - xi), min(rho, hi - xi) if hi is not None else rho) for xi in x] + [(None, None)]
    A = np.hstack([problem.rows(x, np.asarray(W)), -np.ones((len(W), 1))])
    cost = np.zeros(n + 1)
    cost[n] = 1.0
    eq = np.ones((1, n + 1))
    eq[0, n] = 0.0  # Σδ = 0 keeps Σx
    r = linprog(cost, A_ub=A, b_ub=-F[W], A_eq=eq, b_eq=[0.0], bounds=bounds, method="highs-ipm")
    return (r.x[:n], float(r.x[n])) if r.status == 0 else None


def slp(problem: LinearisedProblem, x0: np.ndarray, steps: int, band: float, rho: float = 1e-3,
        rounds: int = 4, grow: int = 400) -> Improvements:
    """Yield (true max, x) after every LP step: x when the step was accepted, else None (at most `steps` LPs;
    stops when ρ < 1e-12)."""
    x = project(np.asarray(x0, dtype=float), problem.lo, problem.hi, problem.total)
    F = problem.values(x)
    top = float(F.max())
    for _ in range(steps):
        if rho < 1e-12:
            return
        W = set(np.flatnonzero(F > top - band).tolist())
        res = None
        for _ in range(rounds):  # constraint generation
            res = _lp(problem, x, F, sorted(W), rho)
            if res is None:
                break
            d, t = res
            pred = F + problem.linear(x, d)
            new = [int(s) for s in np.flatnonzero(pred > t + 1e-13) if int(s) not in W]
            if not new:
                break
            W.update(sorted(new, key=lambda s: -pred[s])[:grow])
        if res is None:
            rho /= 3.0
            yield top, None
            continue
        xn = project(x + res[0], problem.lo, problem.hi, problem.total)
        Fn = problem.values(xn)
        if float(Fn.max()) < top:
            x, F, top = xn, Fn, float(Fn.max())
            rho = min(rho * 1.5, 0.05)
            yield top, x.copy()
        else:
            rho /= 3.0
            yield top, None
