"""The LP engine of the RH proposer: node values of r-hat that minimise J with P >= margin.

Floats only: the result is a proposal, rationalised by the caller and certified by the checker.
Positivity of P is imposed on a grid of [0, pi] plus the local minima found by refinement
(cutting planes), so that the rationalised P is >= margin/2 up to solver tolerance. The LP is dense and tall
(8n + cuts rows, n - 1 columns): the dense interior point `ipm` solves it (scipy's HiGHS took minutes per round
at n = 400).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from mathloop.targets.pair_correlation_rh import ipm
from mathloop.targets.pair_correlation_rh.functional import rh_functional

BOUND = 20.0  # node values lie in [-BOUND, BOUND]
# cut rows at theta_min + o pi / (16 n) for each o (the local-minimum sample's spacing): at (1/40, 8) a row at the
# minimum alone took 12 rounds for min P -4.4e-4 -> +5e-10 (the violation shrank about 4 times per round)
CUT_OFFSETS = np.array([-1.0, -0.25, -0.0625, -1 / 64, -1 / 256, 0.0, 1 / 256, 1 / 64, 0.0625, 0.25, 1.0])


@dataclass(frozen=True)
class LpResult:
    """A solved LP.

    Attributes:
        nodes: float node values (mass normalised to 1).
        bound: 2 - J in floats (the LP's own estimate, not a certificate).
        rounds: cutting-plane rounds used.
    """

    nodes: np.ndarray
    bound: float
    rounds: int


def objective_weights(h: Fraction, n: int) -> np.ndarray:
    """Return w with J = w . c for node values c (exact weights, converted to floats)."""
    w = np.zeros(n)
    for j in range(n):
        e = [Fraction(0)] * n
        e[j] = Fraction(1)
        w[j] = float(rh_functional(h, h * n, e).J)
    return w


def p_matrix(theta: np.ndarray, n: int) -> np.ndarray:
    """Return the matrix M with (M c)_k = P(theta_k) = c_0 + 2 sum_j c_j cos(j theta_k)."""
    m = 2.0 * np.cos(np.outer(theta, np.arange(n)))
    m[:, 0] = 1.0
    return m


def local_minima(c: np.ndarray, points: int) -> np.ndarray:
    """Return the thetas of the local minima of P on [0, pi], refined by dense re-sampling."""
    n = len(c)
    theta = np.linspace(0.0, np.pi, points)
    vals = p_matrix(theta, n) @ c
    idx = [i for i in range(points) if (i == 0 or vals[i] <= vals[i - 1]) and (i == points - 1 or vals[i] <= vals[i + 1])]
    step = np.pi / (points - 1)
    out = []
    for i in idx:
        t0 = theta[i]
        for _ in range(3):  # zoom in 3 times by a factor 20
            local = np.clip(np.linspace(t0 - step, t0 + step, 41), 0.0, np.pi)
            v = p_matrix(local, n) @ c
            t0 = local[int(np.argmin(v))]
            step /= 20
        step = np.pi / (points - 1)
        out.append(t0)
    return np.array(out)


def _eliminated(h: Fraction, n: int, bound: float = BOUND) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (E, e, u): c = E x + e with c_0 = 1/h - 2 sum_{j>=1} c_j eliminated (mass h(c_0 + 2 sum c_j) = 1) and
    x_j = c_j + bound in [0, u_j] (u_j = 2 bound, or bound where j h >= 1: r-hat <= 0 there)."""
    E = np.zeros((n, n - 1))
    E[0, :] = -2.0
    E[1:, :] = np.eye(n - 1)
    e = np.full(n, -bound)
    e[0] = float(1 / h) + 2 * bound * (n - 1)
    u = np.array([bound if j * h >= 1 else 2 * bound for j in range(1, n)])
    return E, e, u


def solve(h: Fraction, n: int, *, margin: float = 1e-7, grid_factor: int = 8, max_rounds: int = 12,
          deadline: float | None = None, stop_violation: float = 0.0) -> LpResult | None:
    """Return the LP optimum over node values for step h and n nodes (A = n h), or None if infeasible
    or if the `time.monotonic()` deadline passes first.

    Solved by the dense interior point (`ipm`, one BLAS thread when threadpoolctl is there) with c_0 eliminated
    through the mass equation; cutting planes at the refined local minima of P below margin/2 and at CUT_OFFSETS
    around them. The rounds also stop once min P >= -stop_violation: the caller's lift (raising r-hat(0))
    repairs that much at about the same cost in B.
    """
    ipm.single_thread_blas()
    w = objective_weights(h, n)
    E, e, u = _eliminated(h, n)
    cost = -(w @ E)  # maximise -J
    extra = [(np.eye(n)[0], -BOUND), (-np.eye(n)[0], -BOUND)]  # -BOUND <= c_0 <= BOUND
    j1 = int(1 // h)
    if j1 * h != 1 and j1 + 1 < n:  # alpha = 1 inside a piece: its interpolated value <= 0
        t = float((1 - j1 * h) / h)
        row = np.zeros(n)
        row[j1], row[j1 + 1] = -(1 - t), -t
        extra.append((row, 0.0))
    side = np.array([r for r, _ in extra])
    side_g = np.array([b for _, b in extra]) - side @ e
    theta = np.linspace(0.0, np.pi, grid_factor * n + 1)
    result = None
    for rnd in range(max_rounds):
        if deadline is not None and time.monotonic() >= deadline:
            return None
        P = p_matrix(theta, n)
        blocks = [ipm.Block(P @ E, margin - P @ e, slice(0, n - 1)), ipm.Block(side @ E, side_g, slice(0, n - 1))]
        res = ipm.solve(cost, u, blocks, tol=1e-12, deadline=deadline)
        if res.status not in ("optimal", "iterations"):
            return None
        c = E @ res.x + e
        result = LpResult(c, 2.0 - float(w @ c), rnd + 1)
        minima = local_minima(c, 16 * n + 1)
        vals = p_matrix(minima, n) @ c
        bad = minima[vals < 0.5 * margin]
        if len(bad) == 0 or float(vals.min()) >= -stop_violation:
            break
        # rows around each cut too: the minima move a little from round to round, and a row at the minimum alone
        # cut the violation only about 4 times per round (12 rounds at (1/40, 8)); see CUT_OFFSETS
        theta = np.concatenate([theta, np.clip((bad[:, None] + CUT_OFFSETS[None, :] * np.pi / (16 * n)).ravel(),
                                                0.0, np.pi)])
    return result
