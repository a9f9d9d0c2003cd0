"""Independent cross-check of Arb balls of Z against mpmath.siegelz at a scoped precision.

A disagreement means the rigorous path (or the cross-check) is broken: CheckerCrash, never a
refutation and never a commit.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import mpmath

from mathloop.targets.base import CheckerCrash
from mathloop.targets.critical_line_zeros.gram import gram_ball
from mathloop.targets.critical_line_zeros.hardy_z import SignedBall


def _point(kind: str, text: str, dps: int) -> mpmath.mpf:
    if kind == "g":
        return mpmath.mpf(gram_ball(int(text), 64 + 4 * dps).mid().str(dps + 10, radius=False))
    q = Fraction(text)
    return mpmath.mpf(q.numerator) / q.denominator


def crosscheck(samples: Sequence[tuple[str, str, SignedBall]], dps: int) -> int:
    """Return how many samples were compared; raise CheckerCrash on the first disagreement.

    Agreement: |siegelz(t) - mid| <= rad + 10^-(dps-6) * (1 + |siegelz(t)|), and equal signs.
    """
    with mpmath.workdps(dps):
        tol_scale = mpmath.mpf(10) ** (-(dps - 6))
        for kind, text, ball in samples:
            t = _point(kind, text, dps)
            z = mpmath.siegelz(t)
            diff = abs(z - mpmath.mpf(ball.mid))
            if diff > mpmath.mpf(ball.rad) + tol_scale * (1 + abs(z)) or (ball.sign and mpmath.sign(z) != ball.sign):
                where = f"g_{text}" if kind == "g" else text
                raise CheckerCrash(
                    f"cross-check disagreement at {where}: Arb ball [{ball.mid} +/- {ball.rad}] "
                    f"vs mpmath.siegelz = {mpmath.nstr(z, 15)} (dps {dps})"
                )
    return len(samples)
