"""Local proposer for `pair-correlation-rh`: LP over node values, rationalised, finer as it stalls.

Configurations (h, A) are tried in order of size; for each, the LP optimum (lp.solve) is rounded
to multiples of 10^-12, its r-hat(0) node lifted by just enough to make the float minimum of P
positive (`lift`), and pre-screened with the exact positivity certificate; if that fails the lift
is retried with a 10x larger safety, then the LP is re-solved with a larger margin. The LP's own
margin is tiny (1e-9): a margin of 1e-6 cost about 9e-7 of the bound at (1/60, 5), while the lift,
which raises P by the same constant everywhere, costs only what the LP's residual violation needs
(about 7e-8 there). A configuration that does
not beat the head by the minimum improvement is skipped, so the proposer moves to more nodes
(smaller h, larger A) when it stalls. The checker certifies whatever is proposed.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from mathloop.domain import fraction_str
from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.pair_correlation_rh import lp
from mathloop.targets.pair_correlation_rh.cosine_positivity import (
    certify_cosine_nonnegative,
    sample_minimum,
)
from mathloop.targets.pair_correlation_rh.functional import rh_functional

# LP values at margin 1e-9 (issue 36, the dense IPM): (1/60, 5) 0.6792825, (1/80, 5) 0.6792942, (1/100, 5) 0.6792996,
# (1/120, 5) 0.6793026, (1/100, 6) 0.6793064, (1/60, 8) 0.6792982, (1/75, 8) 0.6793079: at the first lineage's 600
# nodes a longer support beats a finer grid, so (1/75, 8) is its last step (certified 0.679307880 as rationalised).
# The wide lineage (`pair-correlation-rh-wide`, up to 1600 nodes) goes on: (1/100, 8), 800 nodes, LP 0.6793154
# (certified 0.679315366); then (1/100, 10), 1000 nodes (certified 0.679319237), then (1/120, 12), 1440 nodes. At
# 1/40 the support gained 7.6e-6 from A = 8 to 12 and 2.3e-6 from 12 to 16 (0.6792642, 0.6792718, 0.6792741); at
# A = 5 the grid's gains fall like h^2.
CONFIGS = tuple(
    (Fraction(1, d), Fraction(a))
    for d, a in ((5, 2), (10, 2), (10, 3), (20, 3), (20, 4), (40, 4), (40, 5), (60, 5), (80, 5), (75, 8),
                 (100, 8), (100, 10), (120, 12))
)
# the LP's rounds stop once min P >= -STOP_VIOLATION; the lift repairs that at about the same cost in B
STOP_VIOLATION = 1e-8
MARGINS = (1e-9, 1e-6, 1e-4)
SAFETIES = (1e-10, 1e-9, 1e-8)
DENOMINATOR = 10**12


def float_minimum(nodes: list[Fraction]) -> float:
    """Return a float estimate of min P over [0, pi]: a dense sample and its refined local minima.

    A heuristic that proposes the lift, never a proof: a dip narrower than the sample can be missed. The
    proposer pre-screens every lifted candidate with the exact certificate (`certify_cosine_nonnegative`) and
    lifts more when it fails; the checker decides.
    """
    c = np.array([float(x) for x in nodes])
    n = len(c)
    refined = float((lp.p_matrix(lp.local_minima(c, 16 * n + 1), n) @ c).min())
    return min(refined, sample_minimum(nodes, 64 * n + 1))


def lift(nodes: list[Fraction], safety: float) -> list[Fraction]:
    """Return nodes with r-hat(0) raised (in steps of 10^-12) so that P's float minimum is >= safety.

    c_0 enters P(theta) = c_0 + 2 sum c_j cos(j theta) as a constant, so the lift raises P
    uniformly; r-hat(0) is not constrained otherwise (the tail condition starts at alpha = 1).
    """
    low = float_minimum(nodes)
    if low >= safety:
        return list(nodes)
    delta = Fraction(math.ceil((safety - low) * DENOMINATOR), DENOMINATOR)
    return [nodes[0] + delta, *nodes[1:]]


def allowed_configs(target: Any) -> list[tuple[Fraction, Fraction]]:
    """Return the configurations (h, A) of CONFIGS that the target's contract limits allow, in order."""
    return [(h, A) for h, A in CONFIGS if A / h <= target.max_nodes and h >= target.h_min and A <= target.a_max]


def inside_head_class(h: Fraction, A: Fraction, head_state: Any) -> bool:
    """Return True if the class (h, A) lies inside the head's (its grid refines h, its support covers A).

    Such a configuration's LP optimum is at most the head's, so solving it again (minutes at 300+ nodes)
    cannot give progress worth its time; a new session goes straight to the larger configurations.

    >>> inside_head_class(Fraction(1, 60), Fraction(5), {"h": "1/120", "A": "5"})
    True
    >>> inside_head_class(Fraction(1, 60), Fraction(5), {"h": "1/80", "A": "5"})
    False
    """
    if not isinstance(head_state, dict) or "h" not in head_state or "A" not in head_state:
        return False
    return (h / Fraction(head_state["h"])).denominator == 1 and A <= Fraction(head_state["A"])


class LpProposer(Proposer):
    """Deterministic (the interior point is deterministic for a fixed problem); the seed is recorded only."""

    name = "local"

    def __init__(self, target: Any, seed: int) -> None:
        self.target = target
        self.seed = seed
        self._cache: dict[tuple[Fraction, Fraction], tuple[dict[str, Any], Fraction] | None] = {}

    def _candidate(self, h: Fraction, A: Fraction, deadline: float | None = None) -> tuple[dict[str, Any], Fraction] | None:
        """Return (payload, exact B) for a configuration, or None if no margin gave P >= 0 (or time ran out)."""
        key = (h, A)
        if key not in self._cache:
            n = int(A / h)
            found = None
            for margin in MARGINS:
                if deadline is not None and time.monotonic() >= deadline:
                    return None  # not cached: a later session with more time retries this configuration
                res = lp.solve(h, n, margin=margin, deadline=deadline, stop_violation=STOP_VIOLATION)
                if res is None:
                    if deadline is not None and time.monotonic() >= deadline:
                        return None
                    break
                rounded = [Fraction(round(x * DENOMINATOR), DENOMINATOR) for x in res.nodes]
                if any(j * h >= 1 and c > 0 for j, c in enumerate(rounded)):
                    continue
                nodes = None
                for safety in SAFETIES:
                    if deadline is not None and time.monotonic() >= deadline:
                        return None
                    lifted = lift(rounded, safety)
                    if certify_cosine_nonnegative(lifted, max_cells=self.target.max_cells).status == "nonnegative":
                        nodes = lifted
                        break
                if nodes is None:
                    continue
                payload = {"h": fraction_str(h), "A": fraction_str(A), "nodes": [fraction_str(c) for c in nodes]}
                found = (payload, rh_functional(h, A, nodes).B)
                break
            self._cache[key] = found
        return self._cache[key]

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return the smallest configuration whose certified-looking bound beats the head."""
        spec = ctx.contract.bound_spec("proportion")
        head = ctx.head.bounds.get("proportion") if ctx.head else None
        floor = None if head is None else head + spec.min_improvement
        for h, A in allowed_configs(self.target):
            if ctx.head is not None and inside_head_class(h, A, dict(ctx.head.state)):
                continue
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            got = self._candidate(h, A, ctx.deadline)
            if got is None:
                continue
            payload, b = got
            if (floor is None or b >= floor) and payload_sha(payload) not in ctx.seen:
                return [Proposal(payload, self.name, {"h": fraction_str(h), "A": fraction_str(A), "lp_bound": fraction_str(b)})]
        return []
