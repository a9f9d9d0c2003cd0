"""The local proposer: residue sets with no square differences, by local search over squarefree moduli.

For a modulus m the residues form the circulant graph on Z/m with r ~ s iff r − s or s − r is a non-zero square mod
m; a residue set qualifies iff it is independent there. For each squarefree m of a list (those with every prime
factor ≡ 1 mod 4 first, then the rest, each group smallest first; skipped when a set of about √m residues could not
beat the head) an iterated local search (random
greedy fill, then 1-swaps that free room, restarts) looks for a large independent set containing 0 (the graph is
vertex-transitive). The exponent ½(1 + log|R|/log m) of the best set is proposed when it beats the head; the
checker decides.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.furstenberg_sarkozy.residues import squarefree
from mathloop.targets.seed_proposal import seed_proposals

SECONDS_PER_MODULUS = 2.0


def _prime_factors(m: int) -> list[int]:
    out, p = [], 2
    while p * p <= m:
        while m % p == 0:
            out.append(p)
            m //= p
        p += 1
    return out + ([m] if m > 1 else [])


# Squarefree moduli, those with every prime factor ≡ 1 mod 4 first (−1 is a square: the conflict graph is symmetric;
# Ruzsa's 65 = 5·13 and Beigel–Gasarch's 205 = 5·41 are of this kind), each group in increasing order.
MODULI = tuple(sorted((m for m in range(5, 2000) if squarefree(m) is None),
                      key=lambda m: (not all(p % 4 == 1 for p in _prime_factors(m)), m)))


class ResidueTarget(Protocol):
    """What the proposer uses of the target."""

    contract: Any
    limits: Any


def conflict_graph(m: int) -> np.ndarray:
    """Return the (m, m) boolean matrix r ~ s iff r ≠ s and r − s or s − r is a square mod m."""
    x = np.arange(m)
    square = np.zeros(m, dtype=bool)
    square[(x * x) % m] = True
    d = (x[:, None] - x[None, :]) % m
    adj = square[d] | square[(-d) % m]
    np.fill_diagonal(adj, False)
    return adj


def independent_set(adj: np.ndarray, rng: np.random.Generator, deadline: float, enough: int | None = None) -> list[int]:
    """Return a large independent set containing 0 (random greedy restarts with 1-swaps, until `deadline` or until
    a set of `enough` elements is found)."""
    m = len(adj)
    best: list[int] = [0]
    while time.monotonic() < deadline and (enough is None or len(best) < enough):
        order = rng.permutation(np.arange(1, m))
        chosen, blocked = [0], adj[0].copy()
        blocked[0] = True
        for v in order:
            if not blocked[v]:
                chosen.append(int(v))
                blocked |= adj[v]
                blocked[v] = True
        improved = True
        while improved and time.monotonic() < deadline:  # 1-swaps: drop one member if two outsiders can replace it
            improved = False
            for u in chosen[1:]:
                rest = [w for w in chosen if w != u]
                free = ~adj[rest].any(axis=0)
                free[rest] = False
                cands = np.flatnonzero(free)
                if len(cands) >= 2:
                    sub = adj[np.ix_(cands, cands)]
                    pairs = np.argwhere(~sub & ~np.eye(len(cands), dtype=bool))
                    if len(pairs):
                        a, b = cands[pairs[0]]
                        chosen = rest + [int(a), int(b)]
                        improved = True
                        break
        if len(chosen) > len(best):
            best = sorted(chosen)
    return best


class ResidueProposer(Proposer):
    """Deterministic (for a seed, given the same time slices) proposer; see the module docstring."""

    name = "local"

    def __init__(self, target: ResidueTarget, seed: int, seconds: float = SECONDS_PER_MODULUS) -> None:
        self.target = target
        self.rng = np.random.default_rng(seed)
        self.seconds = seconds
        self.moduli = [m for m in MODULI if m <= target.limits.max_modulus]

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one residue set expected to beat the head (or [] when out of moduli or time)."""
        if ctx.head is None:
            return seed_proposals(self.target, self.name, ctx, {"how": "seed"})
        head = float(ctx.head.bounds.get("C4b", Fraction(1, 2)))
        while self.moduli:
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            m = self.moduli.pop(0)
            need = math.ceil(m ** (2 * head - 1))  # |R| needed to beat the head at this modulus
            if need > math.isqrt(m) + 2:  # an independent set here has about √m elements at most in practice
                continue
            end = time.monotonic() + self.seconds
            best = independent_set(conflict_graph(m), self.rng, end if ctx.deadline is None else min(end, ctx.deadline))
            if 0.5 * (1 + math.log(len(best)) / math.log(m)) > head + 1e-9:
                payload = {"modulus": m, "residues": best}
                if payload_sha(payload) not in ctx.seen:
                    return [Proposal(payload, self.name, {"how": "local search", "modulus": m, "size": len(best)})]
        return []
