"""The local proposer: a ladder of independent sets in C7^⊠n, each proposed only if it beats the head.

Stages, in order (each stage's set is checked by the target like any model's proposal):
1. iterated local search (search.py) in C7^⊠2 and C7^⊠3 from the empty set (α = 10 and 33 are reached
   in seconds): the bounds √10 and 33^{1/3};
2. the 1971-type algebraic construction: a 3-dimensional linear code over Z/7 in C7^⊠5 whose non-zero
   words all have a coordinate in 2..5 (construct.py): 343 vertices, 343^{1/5};
3. repeated rounds of circular-graph rounding (circular.py, after Polak–Schrijver) followed by iterated
   local search in C7^⊠5, a new shift and random stream per round, until the session's deadline (or a
   fixed number of rounds when there is none).
So sizes ≥ 343 in C7^⊠5 come from the algebraic construction first and from search beyond it after.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import Malformed
from mathloop.targets.shannon_capacity_c7.circular import folded_start
from mathloop.targets.shannon_capacity_c7.construct import code_payload, find_generator
from mathloop.targets.shannon_capacity_c7.graph import certified_root, decode, encode
from mathloop.targets.seed_proposal import seed_proposals
from mathloop.targets.shannon_capacity_c7.search import MAX_SEARCH_N, Search


class C7Target(Protocol):
    """What the proposer uses of the target (a Protocol, so this module does not import target.py)."""

    contract: Any
    digits: int

    def parse(self, payload: Any) -> Any: ...


LADDER = ((2, 10, 5.0), (3, 33, 20.0))  # (n, stop at this size, seconds at most)
ROUND_SECONDS = 30.0  # one circular round's local search
ROUNDS_WITHOUT_DEADLINE = 2


class LocalProposer(Proposer):
    """Deterministic (for a seed, given the same time slices) proposer; see the module docstring."""

    name = "local"

    def __init__(self, target: C7Target, seed: int, round_seconds: float = ROUND_SECONDS,
                 rounds_without_deadline: int = ROUNDS_WITHOUT_DEADLINE) -> None:
        self.target = target
        self.rng = np.random.default_rng(seed)
        self.round_seconds = round_seconds
        self.rounds_left = rounds_without_deadline
        self.stage = 0  # 0..len(LADDER)-1: ladder; len(LADDER): code; then circular rounds
        self.rounds = 0

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one set expected to beat the head (or [] when out of stages or time)."""
        if ctx.head is None:
            return seed_proposals(self.target, self.name, ctx, {"how": "seed"})
        spec = self.target.contract.bound_spec("capacity")
        threshold = ctx.head.bounds.get("capacity", Fraction(0)) + spec.min_improvement
        while True:
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            made = self._next_stage(ctx.deadline)
            if made is None:
                return []
            payload, meta = made
            size, n = len(payload["vertices"]), payload["n"]
            if certified_root(size, n, self.target.digits) >= threshold and payload_sha(payload) not in ctx.seen:
                return [Proposal(payload, self.name, {**meta, "size": size, "n": n})]

    def _next_stage(self, deadline: float | None) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """Return the next stage's (payload, meta), or None when every stage is spent."""
        stage, self.stage = self.stage, self.stage + 1
        if stage < len(LADDER):
            n, stop, seconds = LADDER[stage]
            best = Search(n, [], self.rng).run(_until(seconds, deadline), target=stop)
            return _payload(n, best), {"how": "local search", "from": "empty set"}
        if stage == len(LADDER):
            G = find_generator(3, 5, self.rng)
            if G is not None:
                return code_payload(G), {"how": "linear code (1971 type)", "generator": G.tolist()}
        if deadline is None:
            if self.rounds_left <= 0:
                return None
            self.rounds_left -= 1
        shift = (0,) * 5 if self.rounds == 0 else tuple(int(x) for x in self.rng.integers(0, 382, 5))
        self.rounds += 1
        best = Search(5, folded_start(shift), self.rng).run(_until(self.round_seconds, deadline))
        return _payload(5, best), {"how": "circular rounding + local search", "shift": list(shift)}


def _until(seconds: float, deadline: float | None) -> float:
    end = time.monotonic() + seconds
    return end if deadline is None else min(end, deadline)


def _payload(n: int, codes: list[int]) -> dict[str, Any]:
    return {"n": n, "vertices": [list(decode(c, n)) for c in sorted(codes)]}


def polish_payload(target: C7Target, payload: Any, seed: int, seconds: float = 10.0) -> dict[str, Any] | None:
    """Return the local search's best set started from the independent part of `payload` (n ≤ 5), or None."""
    try:
        cand = target.parse(payload)
    except Malformed:
        return None
    if cand.n > MAX_SEARCH_N:
        return None
    best = Search(cand.n, [encode(v) for v in cand.vertices], np.random.default_rng(seed)).run(time.monotonic() + seconds)
    return _payload(cand.n, best)
