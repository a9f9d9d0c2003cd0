"""Place rational sample points against Gram points, certified: which side of g_m each point lies on.

Two routes, the same answers. The quick one compares floats against the fast path's Gram points
(rs_gram: t* = S + h* exactly and a proved radius |g_m - t*| <= r): with pf = fl(p) (|pf - p| <= u p),
t~ = fl(S + h*) (|t~ - t*| <= u t*) and M = r + 16 u t~, the error of every float step here (the two
roundings above and one subtraction, <= 4 u t in all, plus r) is below M, so pf < t~ - M proves p < g_m
and pf > t~ + M proves p > g_m. Where neither holds (or the float route does not apply: t < 1300,
a radius too large) the exact route decides, as before: rationals floor/ceil(g_m 10^digits) from an
Arb ball, compared exactly. A point that lies between those is refused by the caller.

The quick route only ever answers where the exact route gives the same answer (its margin M exceeds
the exact route's 2·10^-digits window by far), so a candidate is accepted or refused exactly as
before: stores made before it re-check identically.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence


from mathloop.targets.critical_line_zeros.gram import gram_bounds

U = 2.0**-53
BELOW, ABOVE, BETWEEN = -1, 1, 0


class Placer:
    """Answers `side(p, m)` for points of one chunk; Gram points are enclosed once, all together."""

    def __init__(self, ms: Sequence[int], digits: int) -> None:
        self.digits = digits
        self._exact: dict[int, tuple[Fraction, Fraction]] = {}
        self._float: dict[int, tuple[float, float]] = {}
        if len(ms):
            from mathloop.targets.critical_line_zeros import rs_gram

            s_b, h, r, good = rs_gram.enclosures(ms)
            t = s_b + h  # one rounding
            margin = r + 16 * U * t
            for m, ok, lo, hi in zip(ms, good.tolist(), (t - margin).tolist(), (t + margin).tolist()):
                if ok:
                    self._float[int(m)] = (lo, hi)

    def side(self, p: Fraction, pf: float, m: int) -> int:
        """Return BELOW / ABOVE when p < g_m / p > g_m is certified, else BETWEEN (p within the exact window)."""
        fl = self._float.get(m)
        if fl is not None:
            if pf < fl[0]:
                return BELOW
            if pf > fl[1]:
                return ABOVE
        lo, hi = self.exact(m)
        return BELOW if p < lo else ABOVE if p > hi else BETWEEN

    def exact(self, m: int) -> tuple[Fraction, Fraction]:
        """Return (floor, ceil) of g_m at `digits` decimals from an Arb ball (cached)."""
        b = self._exact.get(m)
        if b is None:
            b = self._exact[m] = gram_bounds(m, self.digits)
        return b


def gram_indices_to_place(blocks, start: int) -> list[int]:
    """Return the Gram indices that bound or cut a block with sample points (the only ones placement needs)."""
    out, j = [], start
    for blk in blocks:
        if blk.points:
            out.extend(range(j, blk.end + 1))
        j = blk.end
    return out


def floats_of(points: Sequence[Fraction]) -> list[float]:
    """Return fl(p) of each exact rational (correctly rounded: Fraction.__float__)."""
    return [float(p) for p in points]

