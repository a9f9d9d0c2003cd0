"""The proposer loop shared by the step-function targets: run an optimiser, propose what beats the head.

The optimiser is a generator of (float value, float heights) improvements whose schedule counts
iterations, never seconds, so its sequence of iterates is a function of the seed alone; the clock
only decides how far along it a session gets (ctx.deadline). Between improvements it yields None at
each checkpoint, so that a deadline is seen within one checkpoint, not one improvement (which can be
a whole stage apart). A proposal is the improvement turned
into exact integer heights (`exactify`); the checker certifies whatever is proposed.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator

import numpy as np

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer

# Without a session deadline, one propose() call optimises at most this long before giving up.
CALL_BUDGET_S = 120.0
SCALE = 10**9  # heights are proposed as integers round(h / max h · SCALE)

Improvements = Iterator[tuple[float, np.ndarray] | None]  # None: a checkpoint without improvement


def integer_heights(h: np.ndarray) -> list[int]:
    """Return round(h / max h · SCALE) (non-negative integers, the largest SCALE)."""
    top = float(np.max(h))
    return [max(0, int(round(float(x) / top * SCALE))) for x in h]


class StepProposer(Proposer):
    """Deterministic for a seed: the optimiser's iterates depend on the seed only.

    Args:
        target: the step-function target (its bound name and contract).
        seed: the optimiser's random seed.
        optimiser: seed -> generator of (float value, heights) improvements.
        exactify: float heights -> exact integer heights (admissible for the target).
        float_value: the float value of integer heights (a pre-screen; the checker decides).
    """

    name = "local"

    def __init__(self, target: Any, seed: int, optimiser: Callable[[int], Improvements],
                 exactify: Callable[[np.ndarray], list[int]], float_value: Callable[[np.ndarray], float]) -> None:
        self.target = target
        self.seed = seed
        self._improvements = optimiser(seed)
        self._exactify = exactify
        self._float_value = float_value
        self._done = False
        self._proposed = 0

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one candidate whose float value beats the head by the minimum improvement, or []."""
        spec = ctx.contract.bound_spec(self.target.bound_name)
        head = ctx.head.bounds.get(self.target.bound_name) if ctx.head else None
        wanted = None if head is None else float(head - spec.min_improvement)
        stop = ctx.deadline if ctx.deadline is not None else time.monotonic() + CALL_BUDGET_S
        while not self._done and time.monotonic() < stop:
            try:
                item = next(self._improvements)
            except StopIteration:
                self._done = True
                break
            if item is None:  # a checkpoint: look at the clock again
                continue
            value, heights = item
            if wanted is not None and value >= wanted:
                continue
            ints = self._exactify(heights)
            exact_float = self._float_value(np.array(ints, dtype=float))
            if wanted is not None and exact_float >= wanted:
                continue
            payload = {"heights": [str(a) for a in ints]}
            if payload_sha(payload) in ctx.seen:
                continue
            self._proposed += 1
            return [Proposal(payload, self.name, {"steps": len(ints), "float_value": exact_float, "seed": self.seed})]
        return []

    def stats(self) -> dict[str, Any]:
        """Return {"proposed": count, "exhausted": bool}."""
        return {"proposed": self._proposed, "exhausted": self._done}
