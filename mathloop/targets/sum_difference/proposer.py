"""The local proposer: gradient ascent of the entropy ratio over a law's weights, with support growth and pruning.

For a support S ⊂ Z² the weights are p = softmax(θ); the objective is H(X−Y)/M, M a smooth maximum (temperature
τ, lowered as the run proceeds) of the constrained entropies, maximised with Adam in float64 (exact gradients:
∂H_L/∂p_g = −(log q_{L(g)} + 1)). Rounds alternate optimisation with growth (the lattice neighbours of the support
enter with a small weight) and pruning (points whose weight fell below 10^-14 leave). Starts: from scratch (a small
window around the origin) and warm, from the best published construction in data/records.toml. A law is proposed
when its float ratio beats the head by the contract's minimum improvement; its weights are written as exact
decimals (40 places) and the checker, not this estimate, decides.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.seed_proposal import seed_proposals

STEPS = 1500  # Adam steps per round
ROUND_SECONDS = 20.0
PLACES = 40


class EntropyTarget(Protocol):
    """What the proposer uses of the target (a Protocol, so this module does not import target.py)."""

    contract: Any
    forms: tuple[tuple[int, int], ...]
    bound_name: str

    def parse(self, payload: Any) -> Any: ...

    def read_candidate_file(self, path: Path) -> Any: ...


class Ratio:
    """The entropy ratio of laws on a fixed support, and its gradient in the softmax parameters."""

    def __init__(self, support: np.ndarray, forms: tuple[tuple[int, int], ...]) -> None:
        self.support = support
        self.ids = []
        for a, b in ((1, -1), *forms):
            _, inverse = np.unique(a * support[:, 0] + b * support[:, 1], return_inverse=True)
            self.ids.append(inverse.reshape(-1))

    def value_and_grad(self, theta: np.ndarray, tau: float) -> tuple[float, float, np.ndarray]:
        """Return (exact-max ratio, smoothed ratio, gradient of the smoothed ratio in θ)."""
        p = np.exp(theta - theta.max())
        p /= p.sum()
        hs, grads = [], []
        for ids in self.ids:
            q = np.bincount(ids, weights=p)
            logq = np.log(np.maximum(q, 1e-300))
            hs.append(float(-(q * logq).sum()))
            grads.append(-(logq[ids] + 1.0))
        hd, gd = hs[0], grads[0]
        h = np.array(hs[1:])
        w = np.exp((h - h.max()) / tau)
        w /= w.sum()
        m = h.max() + tau * np.log(np.exp((h - h.max()) / tau).sum())
        gm = sum(wi * g for wi, g in zip(w, grads[1:]))
        gp = (gd * m - hd * gm) / (m * m)
        return hd / h.max(), hd / m, p * (gp - (p * gp).sum())


def optimise(support: np.ndarray, theta: np.ndarray, forms, steps: int, deadline: float) -> tuple[np.ndarray, float]:
    """Return (θ, exact ratio) after Adam on the smoothed ratio (τ from 10^-2 down to 10^-6)."""
    f = Ratio(support, forms)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    best, best_theta = -1.0, theta.copy()
    for t in range(1, steps + 1):
        tau = 10 ** (-2 - 4 * t / steps)
        exact, _, g = f.value_and_grad(theta, tau)
        if exact > best:
            best, best_theta = exact, theta.copy()
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta = theta + 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-12)
        if t % 100 == 0 and time.monotonic() > deadline:
            break
    return best_theta, best


def grow(support: np.ndarray, theta: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the support with its lattice neighbours added (weight e^-30 relative), pruned of weights < 10^-14."""
    p = np.exp(theta - theta.max())
    p /= p.sum()
    keep = p >= 1e-14
    support, theta = support[keep], theta[keep]
    have = {tuple(s) for s in support.tolist()}
    new = [(x + dx, y + dy) for x, y in have for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    new = sorted({g for g in new if g not in have})[: max(0, limit - len(support))]
    if not new:
        return support, theta
    return np.concatenate([support, np.array(new)]), np.concatenate([theta, np.full(len(new), theta.max() - 30.0)])


def payload(support: np.ndarray, theta: np.ndarray) -> dict[str, Any]:
    """Return the law as a payload with exact decimal weights (the parser normalises them to sum 1)."""
    p = np.exp(theta - theta.max())
    p /= p.sum()
    points = []
    for (x, y), w in zip(support.tolist(), p):
        k = int(Fraction(float(w)) * 10**PLACES)
        if k > 0:
            points.append([int(x), int(y), f"{k}/{10**PLACES}"])
    return {"points": points}


class EntropyProposer(Proposer):
    """Deterministic (for a seed, given the same time slices) proposer; see the module docstring."""

    name = "local"

    def __init__(self, target: EntropyTarget, seed: int, round_seconds: float = ROUND_SECONDS) -> None:
        self.target = target
        self.rng = np.random.default_rng(seed)
        self.round_seconds = round_seconds
        self.starts = ["scratch", "published"]
        self.state: tuple[np.ndarray, np.ndarray] | None = None
        self.best = 0.0

    def _start(self, how: str) -> tuple[np.ndarray, np.ndarray] | None:
        if how == "scratch":
            window = np.array([(x, y) for x in range(-2, 3) for y in range(-2, 3)])
            return window, self.rng.normal(0.0, 1.0, len(window))
        records = self.target.constant_records()
        best = max((p for p in records.published if p.construction), key=lambda p: Fraction(p.value), default=None)
        if best is None:
            return None
        from mathloop.targets.records import construction_file

        law = self.target.parse(self.target.read_candidate_file(Path(str(construction_file(type(self.target),
                                                                                            best.construction)))))
        support = np.array(law.points)
        return support, np.log(np.array([float(q) for q in law.probabilities]))

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one law expected to beat the head (or [] when the session's time is up)."""
        if ctx.head is None:
            return seed_proposals(self.target, self.name, ctx, {"how": "seed"})
        spec = self.target.contract.bound_spec(self.target.bound_name)
        threshold = float(ctx.head.bounds.get(self.target.bound_name, Fraction(0)) + spec.min_improvement)
        limit = self.target.limits.max_points
        for _ in range(50):
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            if self.state is None:
                if not self.starts:
                    self.starts = ["scratch", "published"]
                self.state = self._start(self.starts.pop(0))
                if self.state is None:
                    continue
            end = time.monotonic() + self.round_seconds
            deadline = end if ctx.deadline is None else min(end, ctx.deadline)
            support, theta = grow(*self.state, limit)
            theta, ratio = optimise(support, theta, self.target.forms, STEPS, deadline)
            self.state = (support, theta)
            if ratio > threshold:
                made = payload(support, theta)
                if payload_sha(made) not in ctx.seen and len(made["points"]) <= limit:
                    return [Proposal(made, self.name, {"how": "entropy ascent", "estimate": ratio,
                                                       "support": len(made["points"])})]
            elif ratio <= self.best + 1e-15:
                self.state = None  # this start has stalled: the next start
            self.best = max(self.best, ratio)
        return []
