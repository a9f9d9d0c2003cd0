"""The local proposer: covering-code matrices (covering.py) up a ladder of discrepancies, each proposed only if it
would beat the head.

A rung (m, R, K) asks for K centres whose balls of radius R (with their complements) cover {0,1}^m: then
disc(A) ≥ m − 2R for the n×n matrix built from them (n = max(m, K)), so C10c ≥ (m − 2R)/√n. The ladder climbs through
the published values — 3/√5, Griego's 4/√6, Xie's 5/3, the [7,4] Hamming code's 5/√8 (PR #170), Li's 7/√17 (skipped
once the head is above it) — and then
spends the session's remaining time on rungs that would beat them (7/√15, 7/√13, 9/√23, 9/√21), honestly: their
covering codes may not exist, and the annealing reports how many points stayed uncovered. The proposed matrix is
always checked exactly; the covering argument only guides the search.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.seed_proposal import seed_proposals
from mathloop.targets.spencer_discrepancy.covering import anneal, matrix

# (m, R, K): cube dimension, radius, centres (pairs of complementary rows)
LADDER = ((5, 1, 4), (6, 1, 6), (9, 2, 8), (17, 5, 17), (7, 1, 8))
BEYOND = ((15, 4, 15), (13, 3, 13), (23, 7, 23), (21, 6, 21))
RUNG_SECONDS = 60.0
BEYOND_SECONDS = 300.0


class DiscrepancyTarget(Protocol):
    """What the proposer uses of the target (a Protocol, so this module does not import target.py)."""

    contract: Any
    limits: Any


def rung_value(m: int, R: int, K: int) -> float:
    """Return the value (m − 2R)/√max(m, K) a rung's covering would certify (a float, for ordering only)."""
    return (m - 2 * R) / math.sqrt(max(m, K))


class DiscrepancyProposer(Proposer):
    """Deterministic (for a seed, given the same time slices) proposer; see the module docstring."""

    name = "local"

    def __init__(self, target: DiscrepancyTarget, seed: int, rung_seconds: float = RUNG_SECONDS) -> None:
        self.target = target
        self.rng = np.random.default_rng(seed)
        self.rung_seconds = rung_seconds
        fits = [r for r in LADDER + BEYOND if max(r[0], r[2]) <= target.limits.max_n]
        # small cubes first (milliseconds each), then by value: a rung below the head by then is skipped
        self.rungs = sorted(fits, key=lambda r: (r in BEYOND, r[0] > 9, rung_value(*r)))
        self.log: list[dict[str, Any]] = []

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one matrix expected to beat the head (or [] when out of rungs or time)."""
        if ctx.head is None:
            return seed_proposals(self.target, self.name, ctx, {"how": "seed"})
        spec = self.target.contract.bound_spec("C10c")
        threshold = ctx.head.bounds.get("C10c", Fraction(0)) + spec.min_improvement
        while self.rungs:
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            m, R, K = self.rungs.pop(0)
            if Fraction(rung_value(m, R, K)) < threshold - Fraction(1, 10**6):
                continue
            seconds = self.rung_seconds if (m, R, K) in LADDER else BEYOND_SECONDS
            end = time.monotonic() + seconds
            centres, holes = anneal(m, R, K, self.rng, end if ctx.deadline is None else min(end, ctx.deadline))
            self.log.append({"m": m, "R": R, "K": K, "uncovered": holes})
            if holes:
                continue
            payload = {"matrix": matrix(centres, m)}
            if payload_sha(payload) not in ctx.seen:
                return [Proposal(payload, self.name, {"how": "covering code", "m": m, "R": R, "K": K})]
        return []
