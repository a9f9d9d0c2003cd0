"""Independent cross-check of Arb balls of Z against mpmath.siegelz, and of fast-path balls against Arb.

A disagreement means the rigorous path (or the cross-check) is broken: CheckerCrash, never a
refutation and never a commit. A ball decided by the float Riemann-Siegel path (precision 53) is
compared with Arb (an independent implementation, and cheap at large t, where mpmath costs ~0.5 s).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import mpmath

from mathloop.targets.base import CheckerCrash
from mathloop.targets.critical_line_zeros.gram import gram_ball
from mathloop.targets.critical_line_zeros.hardy_z import FAST_PREC, SignedBall, definite


def _point(kind: str, text: str, dps: int) -> mpmath.mpf:
    if kind == "g":
        return mpmath.mpf(gram_ball(int(text), 64 + 4 * dps).mid().str(dps + 10, radius=False))
    q = Fraction(text)
    return mpmath.mpf(q.numerator) / q.denominator  # at the caller's precision, which covers the digits of q


def _siegelz(kind: str, text: str, dps: int) -> mpmath.mpf:
    digits = len(text) + 10 if kind == "q" else 0  # evaluate at the exact rational, not a 20-digit rounding
    with mpmath.workdps(max(dps, digits)):
        return mpmath.siegelz(_point(kind, text, max(dps, digits)))


def crosscheck(samples: Sequence[tuple[str, str, SignedBall]], dps: int) -> int:
    """Return how many samples were compared; raise CheckerCrash on the first disagreement.

    mpmath is evaluated at two precisions (dps and dps + 15); where they do not agree to the
    tolerance, mpmath itself is inconclusive and the sample is skipped (never a verdict either
    way). Otherwise agreement means |siegelz(t) - mid| <= rad + tol, and equal signs wherever
    |siegelz(t)| exceeds mpmath's own uncertainty.
    """
    compared = 0
    fast = [s for s in samples if s[2].prec == FAST_PREC]
    samples = [s for s in samples if s[2].prec != FAST_PREC]
    for kind, text, ball in fast:
        ref = definite(kind, int(text) if kind == "g" else Fraction(text), (64, 128, 256))
        lo, hi = Fraction(ball.mid) - Fraction(ball.rad), Fraction(ball.mid) + Fraction(ball.rad)
        r_lo, r_hi = Fraction(ref.mid) - Fraction(ref.rad), Fraction(ref.mid) + Fraction(ref.rad)
        compared += 1
        if r_hi < lo or hi < r_lo or (ref.sign and ref.sign != ball.sign):
            where = f"g_{text}" if kind == "g" else text
            raise CheckerCrash(f"cross-check disagreement at {where}: fast-path ball [{ball.mid} +/- {ball.rad}] "
                               f"vs Arb [{ref.mid} +/- {ref.rad}]")
    with mpmath.workdps(dps + 15):
        tol = mpmath.mpf(10) ** (-(dps - 6))
        for kind, text, ball in samples:
            z_lo, z_hi = _siegelz(kind, text, dps), _siegelz(kind, text, dps + 15)
            spread = abs(z_hi - z_lo)
            if spread > tol * (1 + abs(z_hi)):
                continue
            compared += 1
            diff = abs(z_hi - mpmath.mpf(ball.mid))
            sign_known = abs(z_hi) > 2 * spread + tol * (1 + abs(z_hi))
            if diff > mpmath.mpf(ball.rad) + tol * (1 + abs(z_hi)) or (
                ball.sign and sign_known and mpmath.sign(z_hi) != ball.sign
            ):
                where = f"g_{text}" if kind == "g" else text
                raise CheckerCrash(
                    f"cross-check disagreement at {where}: Arb ball [{ball.mid} +/- {ball.rad}] "
                    f"vs mpmath.siegelz = {mpmath.nstr(z_hi, 15)} (dps {dps + 15})"
                )
    return compared
