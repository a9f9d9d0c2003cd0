"""Turing's method with Trudgian's explicit constants, and a cheap consistency bound on S(T).

Theorem used (Brent, Math. Comp. 33 (1979), Thm 3.2, with Trudgian, Math. Comp. 80 (2011),
"Improvements to Turing's method", Thm 2.2: |int_{t1}^{t2} S(t) dt| <= 2.067 + 0.059 log t2 for
t2 > t1 > 168*pi), in FLINT's form (acb_dirichlet_turing_method_bound): if K consecutive Gram
blocks with union [g_n, g_p) satisfy Rosser's rule and K >= ceil(min(0.0061 log^2 g_p +
0.08 log g_p, 0.0031 log^2 g_p + 0.11 log g_p)), then N(g_n) <= n + 1.

Below 168*pi Trudgian's bound does not apply, and no separate small-height count is used:
the window start g_n must exceed 168*pi (checked as a ball comparison). The single upper
bound N(g_n) <= n + 1 then covers every zero in (0, g_n], including the range below g_{-1} and
below 168*pi, where sign changes supply the matching lower bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from flint import arb, ctx

from mathloop.targets.critical_line_zeros.gram import gram_ball

TRUDGIAN_MIN = "168*pi"


def trudgian_k(p: int) -> int:
    """Return FLINT's bound K(p) = ceil(min(b1, b2)) at g_p (at least 1), computed as an upper bound.

    >>> trudgian_k(300), trudgian_k(10141), trudgian_k(138100)
    (1, 2, 2)
    """
    with ctx.workprec(64):
        lg = gram_ball(p, 64).upper().log()
        b1 = (arb(61) / 10000 * lg + arb(8) / 100) * lg
        b2 = (arb(31) / 10000 * lg + arb(11) / 100) * lg
        low = min(float(b1.upper()), float(b2.upper()))
        # float() of an upper endpoint rounds to nearest; nudge up before ceil so K never shrinks.
        k = math.ceil(math.nextafter(low, math.inf))
    return max(1, k)


def above_trudgian_range(n: int) -> bool:
    """Return True when g_n > 168*pi is certified (the window may start at g_n)."""
    with ctx.workprec(64):
        return bool(gram_ball(n, 64) > arb.pi() * 168)


@dataclass(frozen=True)
class Closure:
    """Where Turing's method closes the count for a verified prefix of Gram blocks.

    Attributes:
        closed_at: q, the start of the window: N(g_q) <= q + 1 is proved.
        window_end: p, the end of the window (the prefix end).
        window_blocks: K, the number of verified Rosser blocks in the window.
        k_required: Trudgian's K(p).
    """

    closed_at: int
    window_end: int
    window_blocks: int
    k_required: int

    def to_json(self) -> dict:
        return {
            "closed_at": self.closed_at,
            "window_end": self.window_end,
            "window_blocks": self.window_blocks,
            "k_required": self.k_required,
            "theorem": "Brent 1979 Thm 3.2 with Trudgian 2011 Thm 2.2 (window start > 168*pi)",
        }


def close(boundaries: Sequence[int]) -> Closure | None:
    """Return the closure for a prefix whose last block boundaries are `boundaries` (ascending).

    Every block between consecutive boundaries must already be verified to satisfy Rosser's
    rule. The window is the last K blocks; None when there are too few blocks or the window
    would start at or below 168*pi.
    """
    if len(boundaries) < 2:
        return None
    p = boundaries[-1]
    k = trudgian_k(p)
    if len(boundaries) < k + 1:
        return None
    q = boundaries[-1 - k]
    if not above_trudgian_range(q):
        return None
    return Closure(closed_at=q, window_end=p, window_blocks=k, k_required=k)


def s_bound_holds(count: int, theta_over_pi: arb, t: float) -> bool:
    """Return whether |count - theta/pi - 1| <= 0.112 log T + 0.278 log log T + 2.510 is possible.

    Trudgian, J. Number Theory 134 (2014): |S(T)| within that bound for T >= e. A cheap sanity
    check on a certified count: failing it means a checker bug, never a refutation.
    """
    lt = math.log(t)
    bound = 0.112 * lt + 0.278 * math.log(lt) + 2.510 + 1e-9
    s = arb(count) - theta_over_pi - 1
    return float(abs(s).lower()) <= bound
