"""Evaluate c = Σ w·e^{c₀} and κ = 1 − log(c)/R: Arb balls (certified) and mpmath at two precisions.

The Arb ball is the proof (a ball decides an inequality only when it lies wholly on one side);
mpmath at two working precisions is the cross-check that guards it, never a proof alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath

from mathloop.targets.feng_przz.main_term import ExpSum

DPS_LOW, DPS_HIGH = 30, 60


def _arb(q: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def c_ball(c: ExpSum, prec: int = 256) -> flint.arb:
    """Return an Arb ball that contains c."""
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        return sum((_arb(w) * _arb(e).exp() for e, w in c.terms), flint.arb(0))
    finally:
        flint.ctx.prec = old


def kappa_ball(c: ExpSum, R: Fraction, prec: int = 256) -> flint.arb:
    """Return an Arb ball containing κ = 1 − log(c)/R.

    Raises:
        ValueError: the ball for c is not certainly positive (log undefined).
    """
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        cb = c_ball(c, prec)
        if not cb > 0:
            raise ValueError(f"c = {cb} is not certainly positive")
        return 1 - cb.log() / _arb(R)
    finally:
        flint.ctx.prec = old


def certifies(c: ExpSum, R: Fraction, k0: Fraction, prec: int = 256) -> bool:
    """Return True iff the Arb ball proves κ = 1 − log(c)/R >= k0 (False also when undecided)."""
    try:
        return bool(kappa_ball(c, R, prec) >= _arb(k0))
    except ValueError:
        return False


@dataclass(frozen=True)
class CrossCheck:
    """c and κ from mpmath at two working precisions.

    Attributes:
        c_low, c_high, kappa_high: decimal strings (the two c's, and κ at the higher precision).
        agree_digits: significant digits on which the two values of c agree.
    """

    c_low: str
    c_high: str
    kappa_high: str
    agree_digits: int


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _c_mp(c: ExpSum, dps: int) -> mpmath.mpf:
    with mpmath.workdps(dps):
        return +mpmath.fsum(_mp(w) * mpmath.exp(_mp(e)) for e, w in c.terms)


def extra_digits(c: ExpSum) -> int:
    """Return decimal digits that cancellation in Σ w·e^x can cost when c >= 1/10: log10 of the largest |w|·e^x, + 2.

    Integers only (e^x < 2^{2x} since log2(e) < 2), so the working precisions are deterministic.
    """
    bits = 0
    for x, w in c.terms:
        if w:
            wb = abs(w.numerator).bit_length() - w.denominator.bit_length() + 1
            xb = 2 * -((-x.numerator) // x.denominator) if x > 0 else 0
            bits = max(bits, wb + xb)
    return bits * 30103 // 100000 + 2


def crosscheck(c: ExpSum, R: Fraction) -> CrossCheck:
    """Return c at DPS_LOW and DPS_HIGH digits (each raised by `extra_digits`) and the significant digits they share."""
    extra = extra_digits(c)
    lo, hi = _c_mp(c, DPS_LOW + extra), _c_mp(c, DPS_HIGH + extra)
    with mpmath.workdps(DPS_HIGH + extra):
        diff = abs(lo - hi)
        agree = DPS_HIGH if diff == 0 else int(mpmath.floor(-mpmath.log10(diff / abs(hi))))
        kappa = 1 - mpmath.log(hi) / _mp(R)
        return CrossCheck(mpmath.nstr(lo, DPS_LOW), mpmath.nstr(hi, 45), mpmath.nstr(kappa, 45), agree)
