"""Rigorous Hardy Z(t) and Riemann-Siegel theta as Arb balls (python-flint).

Z(t) = Re(e^{i theta(t)} zeta(1/2 + i t)), theta(t) = Im logGamma(1/4 + i t/2) - (t/2) log(pi).
`acb.lgamma` is the continuous branch of log Gamma on Re z > 0, so theta(0) = 0 and theta is
continuous. At a Gram point theta(g_n) = n*pi exactly, hence Z(g_n) = (-1)^n Re zeta(1/2 + i g_n):
no theta evaluation is needed there (the true g_n lies inside the Gram ball, so the ball of
Re zeta over it encloses the true value).
A sign counts only when the ball excludes 0.
"""

from __future__ import annotations

import decimal
from fractions import Fraction
from itertools import repeat
from typing import NamedTuple, Sequence

from flint import acb, arb, ctx, fmpq


class SignedBall(NamedTuple):
    """A certified value of Z: sign (+1, -1, or 0 = undecided), the ball as decimal strings, precision.

    Attributes:
        sign: +1 / -1 when the ball excludes 0, else 0 (undecided even at the last precision).
        mid: decimal midpoint of an enclosing ball (Arb's printed enclosure).
        rad: decimal radius of that enclosing ball.
        prec: the Arb working precision (bits) that decided the sign.

    A NamedTuple (immutable, typed) rather than a dataclass: the fast path makes one per sign, and
    this is four times cheaper to build.
    """

    sign: int
    mid: str
    rad: str
    prec: int


def arb_of(q: Fraction) -> arb:
    """Return the ball enclosing the rational q at the current precision."""
    return arb(fmpq(q.numerator, q.denominator))


def theta(t: arb) -> arb:
    """Return the ball of the Riemann-Siegel theta at t (continuous branch, theta(0) = 0)."""
    return acb(arb(1) / 4, t / 2).lgamma().imag - t / 2 * arb.pi().log()


def z_ball_rational(t: Fraction, prec: int) -> arb:
    """Return the Arb ball of Z(t) at the exact rational t, computed at `prec` bits."""
    with ctx.workprec(prec):
        tb = arb_of(t)
        th = theta(tb)
        zeta = acb(arb(1) / 2, tb).zeta()
        return th.cos() * zeta.real - th.sin() * zeta.imag


def z_ball_gram(n: int, prec: int) -> arb:
    """Return the Arb ball of Z(g_n) = (-1)^n Re zeta(1/2 + i g_n), computed at `prec` bits."""
    with ctx.workprec(prec):
        g = arb.gram_point(n)
        re = acb(arb(1) / 2, g).zeta().real
        return re if n % 2 == 0 else -re


def ball_strings(x: arb, digits: int = 20) -> tuple[str, str]:
    """Return (mid, rad) decimal strings of a ball that encloses x and excludes 0 whenever x does.

    The midpoint is rounded to `digits` significant digits (more if needed) and the radius is
    widened by the rounding error and rounded up, so the printed ball is a true enclosure and
    never shows 0 for a sign that the Arb ball certified.

    >>> ball_strings(arb(1) / 4)
    ('0.25', '0')
    """
    mid, rad = _exact(x.mid()), _exact(x.rad())
    d = digits
    while True:
        with decimal.localcontext(prec=d, rounding=decimal.ROUND_HALF_EVEN):
            mid_d = decimal.Decimal(mid.numerator) / decimal.Decimal(mid.denominator)
        slack = rad + abs(mid - Fraction(mid_d))
        with decimal.localcontext(prec=3, rounding=decimal.ROUND_CEILING):
            rad_d = decimal.Decimal(slack.numerator) / decimal.Decimal(slack.denominator)
        if sign_of(x) == 0 or abs(Fraction(mid_d)) > Fraction(rad_d):
            return _plain(mid_d), _plain(rad_d)
        d *= 2


def _exact(v: arb) -> Fraction:
    man, exp = v.man_exp()
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def _plain(d: decimal.Decimal) -> str:
    return "0" if d == 0 else format(d.normalize(), "f") if -30 < d.adjusted() < 30 else str(d.normalize())


def sign_of(x: arb) -> int:
    """Return +1 / -1 when the ball excludes 0 with that sign, else 0."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def definite(kind: str, value: int | Fraction, ladder: Sequence[int]) -> SignedBall:
    """Return the first ball along the precision ladder that decides the sign of Z.

    `kind` is "g" (value = Gram index n) or "q" (value = exact rational t). The ladder is fixed
    by the contract, so the result is deterministic; sign 0 means undecided at every precision.
    """
    ball = None
    for prec in ladder:
        ball = z_ball_gram(int(value), prec) if kind == "g" else z_ball_rational(Fraction(value), prec)
        s = sign_of(ball)
        if s:
            mid, rad = ball_strings(ball)
            return SignedBall(s, mid, rad, prec)
    mid, rad = ball_strings(ball)
    return SignedBall(0, mid, rad, ladder[-1])


def evaluate_specs(specs: Sequence[tuple[str, str]], ladder: Sequence[int]) -> list[SignedBall]:
    """Return the certified Z ball at each spec ("g", "125") or ("q", "282.46"), in order.

    Top-level and picklable: this is what worker processes run.
    """
    out = []
    for kind, text in specs:
        out.append(definite(kind, int(text) if kind == "g" else Fraction(text), ladder))
    return out


FAST_PREC = 53  # the `prec` recorded for a sign decided by the float64 Riemann-Siegel path


def evaluate_specs_fast(specs: Sequence[tuple[str, str]], ladder: Sequence[int]) -> tuple[list[SignedBall], tuple[int, int]]:
    """Return the certified balls at the specs, the rigorous float path first, Arb where it leaves a sign open.

    Also returns (signs decided by the fast path, points at t >= RS_MIN_T that fell back to Arb).
    Top-level and picklable: worker processes run it.
    """
    import numpy as np  # on use: the target module (listed by every command) imports this one

    from mathloop.targets.critical_line_zeros import ball_text, rs_gram, rs_rigorous

    if not specs:
        return [], (0, 0)
    kinds, texts = zip(*specs)
    n_g = kinds.count("g")
    if "g" in kinds[n_g:]:  # mixed order: Gram points first, then put back (the checker sends one kind per call)
        order = [i for i, k in enumerate(kinds) if k == "g"] + [i for i, k in enumerate(kinds) if k != "g"]
        kinds, texts = [kinds[i] for i in order], [texts[i] for i in order]
    else:
        order = None
    pts = rs_rigorous.Points.concat([rs_gram.gram_arrays(_gram_indices(texts[:n_g])),
                                     rs_rigorous.Points.of(list(map(rs_rigorous.Point.of, texts[n_g:])))])
    value, bound, ok = rs_rigorous.enclose_points(pts)
    sure = ok & (np.abs(value) > bound)
    mids, rads, shown = ball_text.float_ball_strings_many(np.where(sure, value, 1.0), np.where(sure, bound, 0.0))
    take = sure & shown
    # tuple.__new__ through map: no Python frame per sign (the NamedTuple's own __new__ is Python code)
    balls = list(map(tuple.__new__, repeat(SignedBall), zip(np.where(value > 0, 1, -1).tolist(), mids, rads, repeat(FAST_PREC))))
    decided = int(np.count_nonzero(take))
    fell_back = 0
    for j in np.nonzero(~take)[0].tolist():  # the Arb path decides these
        fell_back += bool(pts.base[j] + pts.off[j] >= rs_rigorous.RS_MIN_T)
        balls[j] = definite(kinds[j], int(texts[j]) if kinds[j] == "g" else Fraction(texts[j]), ladder)
    if order is None:
        return balls, (decided, fell_back)
    out: list[SignedBall | None] = [None] * len(specs)
    for i, b in zip(order, balls):
        out[i] = b
    return out, (decided, fell_back)  # type: ignore[return-value]


def _gram_indices(texts: Sequence[str]) -> Sequence[int]:
    """Return [int(x) for x in texts]: parsed by numpy in one call when every text is 1 to 18 ASCII digits."""
    import numpy as np

    joined = " ".join(texts)
    if texts and joined.isascii() and all(map(str.isdigit, texts)) and max(map(len, texts)) <= 18:
        return np.fromstring(joined, dtype=np.int64, sep=" ")  # each text one run of digits: one number each
    return list(map(int, texts))


def z_float(t: Fraction) -> float:
    """Return a fast non-rigorous value of Z(t) (the midpoint at 64 bits); for proposing only."""
    return float(z_ball_rational(t, 64).mid())


def gram_z_float(n: int) -> float:
    """Return a fast non-rigorous value of Z(g_n); for proposing only."""
    return float(z_ball_gram(n, 64).mid())
