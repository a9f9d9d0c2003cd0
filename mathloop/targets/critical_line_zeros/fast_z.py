"""Signs of Z at Gram points for proposing, whole arrays at once: the fast path's compiled kernel, Arb where it cannot.

The signs are decided exactly as the checker decides them (rs_gram's proved t*, rs_rigorous's proved
bound, Arb where that bound leaves the sign open), so the proposer and the checker agree on which
Gram points are good.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mathloop.targets.critical_line_zeros.hardy_z import definite


def gram_signs(ms: Sequence[int], ladder: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Return (sign of Z(g_m), g_m as a float) for consecutive or scattered m: the checker's own decision.

    A sign no precision decides is returned as +1 (the checker then refuses the block naming it).
    """
    from mathloop.targets.critical_line_zeros import rs_gram, rs_rigorous

    pts = rs_gram.gram_arrays(ms)
    value, bound, ok = rs_rigorous.enclose_points(pts)
    sign = np.where(value > 0, 1, -1)
    for i in np.nonzero(~(ok & (np.abs(value) > bound)))[0].tolist():
        sign[i] = definite("g", int(ms[i]), ladder).sign or 1
    return sign, pts.base + pts.off

