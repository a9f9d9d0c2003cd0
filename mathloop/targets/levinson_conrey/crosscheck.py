"""High-precision cross-check of c = a + b·e^{2R} and κ = 1 − log(c)/R with mpmath at two precisions.

Never a proof: it guards the rigorous certificate. Disagreement between the two precisions, a
constant c < 1 (impossible: c is 1 plus an integral of a square) or a certified k0 above the
high-precision κ means a checker bug and raises CheckerCrash.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from mathloop.targets.base import CheckerCrash

DPS_LOW, DPS_HIGH = 30, 50
REL_TOL_EXP10 = 25  # the two precisions must agree on c to 10^-25, relative
SHOW_DIGITS = 45


@dataclass(frozen=True)
class HighPrec:
    """The cross-checked values.

    Attributes:
        c, kappa: decimal strings (45 significant digits) from the higher precision.
        grid_floor: floor(κ / grid) at the higher precision (the first k0 tried).
        dps: the two working precisions used (extra digits added for cancellation in a + b·e^{2R}).
    """

    c: str
    kappa: str
    grid_floor: int
    dps: tuple[int, int]


def _bits(q: Fraction) -> int:
    """Return an upper bound of log2|q| + 1 (0 for q = 0)."""
    return 0 if q == 0 else max(0, abs(q.numerator).bit_length() - q.denominator.bit_length() + 1)


def extra_digits(a: Fraction, b: Fraction, R: Fraction) -> int:
    """Return decimal digits that cancellation in a + b·e^{2R} can cost (c >= 1); integers only."""
    lam_bits = 2 * -((-2 * R.numerator) // R.denominator)  # >= 2R·log2(e) since log2(e) < 2
    bits = max(_bits(a), _bits(b) + lam_bits)
    return bits * 30103 // 100000 + 2


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _eval(a: Fraction, b: Fraction, R: Fraction, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    with mpmath.workdps(dps):
        c = _mp(a) + _mp(b) * mpmath.exp(2 * _mp(R))
        kappa = 1 - mpmath.log(c) / _mp(R) if c > 0 else mpmath.mpf("-inf")
        return +c, +kappa


def _decimal(x: mpmath.mpf) -> str:
    return mpmath.nstr(x, SHOW_DIGITS, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)


def crosscheck(a: Fraction, b: Fraction, R: Fraction, grid: Fraction) -> HighPrec:
    """Return c and κ at two precisions that agree.

    Raises:
        CheckerCrash: the precisions disagree, or c < 1.
    """
    extra = extra_digits(a, b, R)
    lo, hi = DPS_LOW + extra, DPS_HIGH + extra
    c_lo, _ = _eval(a, b, R, lo)
    c_hi, k_hi = _eval(a, b, R, hi)
    with mpmath.workdps(hi):
        if c_hi < 1 - mpmath.mpf(10) ** (-DPS_HIGH):
            raise CheckerCrash(f"cross-check: c = {_decimal(c_hi)} < 1, impossible for 1 + ∫∫(square)")
        if abs(c_lo - c_hi) > mpmath.mpf(10) ** (-REL_TOL_EXP10) * abs(c_hi):
            raise CheckerCrash(f"cross-check: c at {lo} digits ({_decimal(c_lo)}) and {hi} digits ({_decimal(c_hi)}) disagree")
        grid_floor = int(mpmath.floor(k_hi / _mp(grid)))
        c_str, k_str = _decimal(c_hi), _decimal(k_hi)
    return HighPrec(c=c_str, kappa=k_str, grid_floor=grid_floor, dps=(lo, hi))


def check_k0(k0: Fraction, hp: HighPrec) -> None:
    """Raise CheckerCrash when the certified k0 exceeds the high-precision κ."""
    with mpmath.workdps(hp.dps[1]):
        if _mp(k0) > mpmath.mpf(hp.kappa) + mpmath.mpf(10) ** (-SHOW_DIGITS + 5):
            raise CheckerCrash(f"cross-check: certified k0 = {decimal_str(k0)} exceeds high-precision κ = {hp.kappa}")


def decimal_str(q: Fraction, digits: int = 15) -> str:
    """Return a short decimal rendering of a rational for refusal messages (not a bound's display).

    Rounds to nearest (mpmath.nstr), and its text enters evidence reasons ("certified κ >= … is
    below the goal"): changing it would change committed evidence bytes, so it stays as it is.
    Bounds are displayed by `domain.decimal_str`, rounded in the safe direction.
    """
    with mpmath.workdps(digits + 5):
        return mpmath.nstr(_mp(q), digits)
