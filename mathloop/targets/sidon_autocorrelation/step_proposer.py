"""The proposer loop shared by the step-function targets: run an optimiser, propose what beats the head.

The optimiser is a generator of (float value, float heights) improvements (heights None: a heartbeat, so that a
call returns by the deadline) whose schedule counts iterations,
never seconds, so its sequence of iterates is a function of the seed and the start alone; the clock only
decides how far along it a session gets (ctx.deadline). The start is chosen once, at the first call: the head's
heights when the head has at least MIN_REFINE_STEPS steps (a previous session's result, or a published
construction that `--start published` committed first), else the optimiser's own seeded start (from
scratch). A proposal is the improvement turned into exact integer heights (`exactify`); the checker certifies
whatever is proposed.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.sidon_autocorrelation.smooth_max import Improvements

# Without a session deadline, one propose() call optimises at most this long before giving up.
CALL_BUDGET_S = 120.0
SCALE = 10**12  # heights are proposed as integers round(h / max h · SCALE)
MIN_REFINE_STEPS = 16  # a head with fewer steps (the contracts' seeds have 1 and 4) is not refined



def integer_heights(h: np.ndarray) -> list[int]:
    """Return round(h / max h · SCALE) (non-negative integers, the largest SCALE)."""
    top = float(np.max(h))
    return [max(0, int(round(float(x) / top * SCALE))) for x in h]


def head_heights(ctx: Context) -> np.ndarray | None:
    """Return the head's heights as floats when it has at least MIN_REFINE_STEPS steps, else None."""
    state = ctx.head.state if ctx.head is not None else None
    hs = state.get("heights") if isinstance(state, dict) else None
    if not isinstance(hs, list) or len(hs) < MIN_REFINE_STEPS:
        return None
    try:
        return np.array([float(Fraction(h)) for h in hs])
    except (TypeError, ValueError, ZeroDivisionError):
        return None


class StepProposer(Proposer):
    """Deterministic for a seed and a start: the optimiser's iterates depend on nothing else.

    Args:
        target: the step-function target (its bound name and contract).
        seed: the optimiser's random seed.
        optimiser: (seed, start heights or None) -> generator of (float value, heights) improvements.
        exactify: float heights -> exact integer heights (admissible for the target).
        float_value: the float value of integer heights (a pre-screen; the checker decides).
        min_gain: a proposal must beat the head by at least this too (besides the contract's minimum
            improvement), so that a lineage with a tiny minimum improvement is not sent every checkpoint's gain
            (each commit stores and Lean-checks the whole step function).
    """

    name = "local"

    def __init__(self, target: Any, seed: int, optimiser: Callable[[int, np.ndarray | None], Improvements],
                 exactify: Callable[[np.ndarray], list[int]], float_value: Callable[[np.ndarray], float],
                 min_gain: float = 0.0) -> None:
        self.target = target
        self.min_gain = min_gain
        self.seed = seed
        self._optimiser = optimiser
        self._improvements: Improvements | None = None
        self._start = "scratch"
        self._exactify = exactify
        self._float_value = float_value
        self._done = False
        self._proposed = 0

    def _begin(self, ctx: Context) -> Improvements:
        start = head_heights(ctx)
        if start is not None:
            self._start = f"head {ctx.head.commit[:12]} (seq {ctx.head.seq}, {len(start)} steps)"
        return self._optimiser(self.seed, start)

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one candidate whose float value beats the head by the minimum improvement, or []."""
        if self._improvements is None:
            self._improvements = self._begin(ctx)
        spec = ctx.contract.bound_spec(self.target.bound_name)
        head = ctx.head.bounds.get(self.target.bound_name) if ctx.head else None
        wanted = None if head is None else float(head) - max(float(spec.min_improvement), self.min_gain)
        stop = ctx.deadline if ctx.deadline is not None else time.monotonic() + CALL_BUDGET_S
        while not self._done and time.monotonic() < stop:
            try:
                value, heights = next(self._improvements)
            except StopIteration:
                self._done = True
                break
            if heights is None or (wanted is not None and value >= wanted):
                continue  # a heartbeat, or not enough to commit
            ints = self._exactify(heights)
            exact_float = self._float_value(np.array(ints, dtype=float))
            if wanted is not None and exact_float >= wanted:
                continue
            payload = {"heights": [str(a) for a in ints]}
            if payload_sha(payload) in ctx.seen:
                continue
            self._proposed += 1
            return [Proposal(payload, self.name, {"steps": len(ints), "float_value": exact_float, "seed": self.seed,
                                                  "start": self._start})]
        return []

    def stats(self) -> dict[str, Any]:
        """Return {"proposed": count, "exhausted": bool, "start": where the optimiser began}."""
        return {"proposed": self._proposed, "exhausted": self._done, "start": self._start}
