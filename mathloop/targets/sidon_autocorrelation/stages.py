"""The optimiser's stages for a step-function constant: smoothed descent, LP polish, step splitting.

A `Plan` says what to run. From scratch: several seeded starts at `levels[0]` steps, each descended (the best
goes on: the first level's local minima differ by up to 1e-3 for C1b), then at every level the smoothed descent
(smooth_max.py) for `scratch` iterations and, up to SLP_MAX_STEPS steps, `slp_steps` LP steps (slp.py); then
every step is split in two (the same function, so the value is unchanged; the split gives the next level its
freedom). From a given start (the head, or a published construction) of n steps: rounds of descent (`refine`)
and LP polish at that n, forever; every `split_after` rounds without a relative gain of `stall`, the steps are
split once more while n stays at most `max_split` (the stall test counts values, not seconds).

Every stage yields (value, x) at its checkpoints; improvements of the best value so far are passed on with x, the
rest as heartbeats (best value, None) so that the caller can stop on time. The sequence depends on the start
and the plan only, so a session is reproducible up to where its clock stops it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from mathloop.targets.sidon_autocorrelation.slp import SLP_MAX_STEPS, slp
from mathloop.targets.sidon_autocorrelation.smooth_max import Improvements, Schedule, descend



@dataclass(frozen=True)
class Plan:
    """What the optimiser runs (see the module docstring).

    Attributes:
        levels: steps per level from scratch (each the double of the one before).
        starts: seeded starts at the first level (the best after its descent goes on).
        scratch: the descent's schedule at each scratch level (finite iterations).
        refine: one round of descent at a fixed n (finite iterations).
        slp_steps: LP steps per polish (n <= SLP_MAX_STEPS only).
        slp_band: terms within this of the maximum start the LP's working set.
        split_after: rounds without a relative gain of `stall` before the steps are split.
        stall: the relative gain that counts as progress over `split_after` rounds.
        max_split: no split beyond this many steps.
    """

    levels: tuple[int, ...]
    starts: int
    scratch: Schedule
    refine: Schedule
    slp_steps: int
    slp_band: float
    split_after: int = 3
    stall: float = 1e-9
    max_split: int = 4800


def split(x: np.ndarray) -> np.ndarray:
    """Return x with every step split in two equal halves (the same step function)."""
    return np.repeat(x, 2)


def run_plan(problem_for: Callable[[int], object], x0: np.ndarray | list[np.ndarray], plan: Plan,
             scratch: bool) -> Improvements:
    """Yield (value, x) for every improvement of the best value, (best, None) as heartbeats (never ends: rounds at
    the last n repeat). From scratch, x0 is the list of first-level starts; else the one start."""
    best = [np.inf]

    def better(stage: Improvements) -> Improvements:
        for value, x in stage:
            if x is not None and value < best[0]:
                best[0] = value
                yield value, x
            else:
                yield best[0], None

    if scratch:
        x, first = None, np.inf
        for start in x0:  # each start descended; the best goes on to the levels
            last = yield from _last(better(descend(problem_for(len(start)), start, plan.scratch)), None)
            value = float(problem_for(len(last)).values(last).max()) if last is not None else np.inf
            if value < first or x is None:
                x, first = (last if last is not None else np.asarray(start, dtype=float)), value
        for i, n in enumerate(plan.levels):
            if i:
                x = split(x)
                x = yield from _last(better(descend(problem_for(n), x, plan.scratch)), x)
            if n <= SLP_MAX_STEPS and plan.slp_steps:
                x = yield from _last(better(slp(problem_for(n), x, plan.slp_steps, plan.slp_band)), x)
    else:
        x = np.asarray(x0, dtype=float)
    quiet, mark = 0, best[0]
    while True:
        n = len(x)
        x = yield from _last(better(descend(problem_for(n), x, plan.refine)), x)
        if n <= SLP_MAX_STEPS and plan.slp_steps:
            x = yield from _last(better(slp(problem_for(n), x, plan.slp_steps, plan.slp_band)), x)
        quiet = quiet + 1 if best[0] > mark - plan.stall * abs(mark) else 0
        mark = min(mark, best[0])
        if quiet >= plan.split_after and 2 * n <= plan.max_split:
            x, quiet = split(x), 0


def _last(stage: Improvements, x: np.ndarray | None):
    """Yield everything `stage` yields; return its last point (or `x` when it yielded none)."""
    for value, xi in stage:
        if xi is not None:
            x = xi
        yield value, xi
    return x
