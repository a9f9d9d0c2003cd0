"""Gram points for the first fast-path arithmetic (fast_z_arithmetic = 1), unchanged (see fast_v1): g_m (theta(g_m) = m pi) as a dyadic t* and a proved radius |g_m - t*| <= r.

t* comes from float Newton steps on theta's polynomial near an integer base S (rs_rigorous_v1.ThetaBase,
whose error is proved there). With delta = |theta~(t*) - m pi| + its error bound, theta' >= d1 > 0
on I = [S - H, S + H] (theta'' bounded as in step 2) and [t* - delta/d1, t* + delta/d1] inside I,
monotonicity gives theta(t* - delta/d1) <= m pi <= theta(t* + delta/d1), so g_m lies within
r = delta/d1 of t* (and is the only solution: theta is increasing for t > 7). Where this does not
hold the Arb ball (rs_rigorous_v1.gram_point) is used instead.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from mathloop.targets.critical_line_zeros.rs_rigorous_v1 import RS_MIN_T, U, Point, ThetaBase, gram_point

_PI_ERR = 1.3e-16  # |fl(pi) - pi|


def gram_guess(ms: np.ndarray) -> np.ndarray:
    """Return float approximations of g_m (Newton on the Stirling theta; not rigorous, for seeding)."""
    t = 2 * math.pi * (ms + 1.0) / np.log(np.maximum(ms, 3.0) / 2) + 20.0
    for _ in range(12):
        th = t / 2 * np.log(t / (2 * math.pi)) - t / 2 - math.pi / 8 + 1 / (48 * t)
        t = t - (th - ms * math.pi) / (0.5 * np.log(t / (2 * math.pi)))
    return t


def gram_floats(ms: Sequence[int]) -> np.ndarray:
    """Return g_m as floats for proposing (not rigorous): the float Newton guess, Arb's midpoint at low height."""
    out = gram_guess(np.array(ms, dtype=float)) if len(ms) else np.zeros(0)
    for i, g in enumerate(out):
        if g < RS_MIN_T + 300:
            q = gram_point(ms[i])
            out[i] = q.num / q.den
    return out


def gram_points(ms: Sequence[int]) -> list[Point]:
    """Return the Point of each g_m (t* and its proved radius), Arb balls where the float route does not apply."""
    m_arr = np.array(ms, dtype=float)
    guess = gram_guess(m_arr) if len(ms) else m_arr
    out: list[Point | None] = [None] * len(ms)
    order = sorted(range(len(ms)), key=guess.__getitem__)
    i = 0
    while i < len(order):
        first = float(guess[order[i]])
        if first < RS_MIN_T + 300:
            out[order[i]] = gram_point(ms[order[i]])
            i += 1
            continue
        width = min(256.0, first / 64)
        s_base = math.floor(first + width)
        j = i
        while j < len(order) and guess[order[j]] <= s_base + width:
            j += 1
        idx = order[i:j]
        h = guess[idx] - s_base
        base = ThetaBase.at(s_base, float(np.abs(h).max()) + 1.0)
        k = np.array([ms[q] - 2 * base.j for q in idx], dtype=float)  # exact: |k| < 2^53
        target = k * math.pi  # |target - k pi| <= |k| (1.3e-16 + u pi)
        e_target = np.abs(k) * (_PI_ERR + U * math.pi)
        deriv = np.array([(n + 1) * c for n, c in enumerate(base.coef)])
        for _ in range(4):
            val, _ = base.eval(h)
            slope = np.polyval(deriv[::-1], h)
            h = h - (val - target) / slope
        val, e_val = base.eval(h)
        delta = (np.abs(val - target) * (1 + 2 * U) + e_val + e_target + 2 * U * (np.abs(val) + np.abs(target))) * (1 + 1e-9)
        r = delta / base.d1_low * (1 + 4 * U)
        for q, hq, rq in zip(idx, h, r):
            if abs(hq) + rq < base.h_abs and rq < 1e-6:
                n, d = float(hq).as_integer_ratio()  # t* = S + h* exactly
                out[q] = Point(s_base * d + n, d, float(rq), ms[q])
            else:
                out[q] = gram_point(ms[q])
        i = j
    return out  # type: ignore[return-value]
