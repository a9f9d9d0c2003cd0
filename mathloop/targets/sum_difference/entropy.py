"""Entropies of linear images of a finite law on Z², enclosed in outward-rounded Arb balls, and the certified ratio.

For a linear form L(x, y) = a·x + b·y the pushforward masses q_v = Σ_{L(g) = v} p_g are exact Fractions; each
−q·log q is enclosed by an Arb ball (python-flint: q converted exactly from its numerator and denominator, log
rounded outward), so H_L = Σ −q·log q (natural log) lies in the summed ball. The ratio H(X−Y)/max_L H_L is enclosed
by [lower(H(X−Y)) / max_L upper(H_L), …]; its lower end, rounded down to the grid 10^-d, is the certified bound. The
working precision starts at `prec` bits and doubles until the ratio ball is narrower than the grid (or a cap).
`cross_check` recomputes the ratio with mpmath at two decimal precisions that must agree with the ball: a second
code path that catches a misuse of the ball arithmetic, never a proof.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

Form = tuple[int, int]
DIFFERENCE: Form = (1, -1)
MAX_PREC = 4096


@dataclass(frozen=True)
class Enclosure:
    """The certified ratio of one law.

    Attributes:
        value: the largest grid point below the ratio ball (the certified lower bound).
        entropies: {form as "a,b": (lower, upper) of its entropy ball, as decimal strings}.
        ratio: (lower, upper) of the ratio ball, as decimal strings.
        prec: the Arb working precision (bits) that made the ball narrow enough.
    """

    value: Fraction
    entropies: dict[str, tuple[str, str]]
    ratio: tuple[str, str]
    prec: int


def pushforward(points: Sequence[tuple[int, int]], probabilities: Sequence[Fraction], form: Form) -> list[Fraction]:
    """Return the masses of the image of the law under (x, y) ↦ a·x + b·y, in increasing order of the value."""
    a, b = form
    masses: dict[int, Fraction] = defaultdict(Fraction)
    for (x, y), p in zip(points, probabilities):
        masses[a * x + b * y] += p
    return [masses[v] for v in sorted(masses)]


def _entropy_ball(masses: Sequence[Fraction]):
    import flint

    total = flint.arb(0)
    for q in masses:
        if q:
            ball = flint.arb(flint.fmpq(q.numerator, q.denominator))
            total -= ball * ball.log()
    return total


def _to_fraction(x) -> Fraction:
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def enclose(points: Sequence[tuple[int, int]], probabilities: Sequence[Fraction], forms: Sequence[Form],
            digits: int, prec: int = 256) -> Enclosure:
    """Return the certified ratio H(X−Y)/max_{L in forms} H_L of the law, on the grid 10^-digits.

    Raises:
        ValueError: no H_L is certainly positive (e.g. a point mass: the ratio is undefined).
    """
    import flint

    images = {f: pushforward(points, probabilities, f) for f in (DIFFERENCE, *forms)}
    scale = 10**digits
    old = flint.ctx.prec
    try:
        while True:
            flint.ctx.prec = prec
            balls = {f: _entropy_ball(m) for f, m in images.items()}
            bottom = [balls[f] for f in forms]
            if not any(h > 0 for h in bottom):
                raise ValueError("no entropy of the constrained forms is certainly positive: the ratio is undefined")
            lo = balls[DIFFERENCE].lower() / max((h.upper() for h in bottom), key=_to_fraction)
            hi = balls[DIFFERENCE].upper() / max((h.lower() for h in bottom), key=_to_fraction)
            lo_q, hi_q = _to_fraction(lo.lower()), _to_fraction(hi.upper())
            if (hi_q - lo_q) * scale < 1 or prec >= MAX_PREC:
                break
            prec *= 2
        value = Fraction((lo_q * scale).__floor__(), scale)
        ent = {f"{a},{b}": (_dec(_to_fraction(balls[(a, b)].lower()), digits + 5, down=True),
                            _dec(_to_fraction(balls[(a, b)].upper()), digits + 5, down=False))
               for a, b in images}
        return Enclosure(value, ent, (_dec(lo_q, digits + 5, True), _dec(hi_q, digits + 5, False)), prec)
    finally:
        flint.ctx.prec = old


def _dec(x: Fraction, places: int, down: bool) -> str:
    scale = 10**places
    k = (x * scale).__floor__() if down else (x * scale).__ceil__()
    sign, k = ("-", -k) if k < 0 else ("", k)
    return f"{sign}{k // scale}.{k % scale:0{places}d}"


def cross_check(points: Sequence[tuple[int, int]], probabilities: Sequence[Fraction], forms: Sequence[Form],
                enclosure: Enclosure) -> str | None:
    """Return why mpmath at two precisions disagrees with the Arb enclosure, or None when both agree with it."""
    import mpmath

    lo, hi = Fraction(enclosure.ratio[0]), Fraction(enclosure.ratio[1])
    values = []
    for dps in (enclosure.prec // 3 + 10, enclosure.prec // 3 + 30):
        with mpmath.workdps(dps):
            def h(f: Form) -> mpmath.mpf:
                return -sum((mpmath.mpf(q.numerator) / q.denominator) * mpmath.log(mpmath.mpf(q.numerator) / q.denominator)
                            for q in pushforward(points, probabilities, f) if q)
            values.append(Fraction(mpmath.nstr(h(DIFFERENCE) / max(h(f) for f in forms), dps - 5)))
    slack = Fraction(1, 10 ** (enclosure.prec // 4))
    for v in values:
        if not lo - slack <= v <= hi + slack:
            return f"mpmath gives {float(v)!r}, outside the Arb enclosure [{enclosure.ratio[0]}, {enclosure.ratio[1]}]"
    return None
