"""Gram points for the fast path: g_m (theta(g_m) = m pi) as a dyadic t* and a proved radius |g_m - t*| <= r.

t* comes from float Newton steps on theta's polynomial near an integer base S (rs_rigorous.ThetaBase,
whose error is proved there). With delta = |theta~(t*) - m pi| + its error bound, theta' >= d1 > 0
on I = [S - H, S + H] (theta'' bounded as in step 2) and [t* - delta/d1, t* + delta/d1] inside I,
monotonicity gives theta(t* - delta/d1) <= m pi <= theta(t* + delta/d1), so g_m lies within
r = delta/d1 of t* (and is the only solution: theta is increasing for t > 7). Where this does not
hold the Arb ball (rs_rigorous.gram_point) is used instead.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from mathloop.targets.critical_line_zeros import rs_gram_jit
from mathloop.targets.critical_line_zeros.rs_rigorous import RS_MIN_T, U, Point, Points, gram_point, theta_base, theta_groups

_PI_ERR = 1.3e-16  # |fl(pi) - pi|


_LN2 = 0.6931471805599453  # fl(log 2)
_SQRT_HALF = 0.7071067811865476  # fl(sqrt(1/2))
_ATANH_C = [1.0 / (2 * k + 1) for k in range(11)]


def log_ieee(x: np.ndarray) -> np.ndarray:
    """Return log(x), x > 0, to ~1e-15 by +, -, *, / and frexp only, so every build gives the same bits.

    x = m 2^e (frexp, exact), m moved into [sqrt(1/2), sqrt(2)) (exact), z = (m - 1)/(m + 1),
    log m = 2 atanh z = 2 z sum_k z^(2k)/(2k+1) to k = 10 (|z| < 0.172: truncation < 1e-18).
    Not part of any proof: it seeds Newton, but libm's log may differ in the last bit between CPUs
    (SIMD variants), and the Gram point t* it leads to is written into the evidence.
    """
    m, e = np.frexp(x)
    low = m < _SQRT_HALF
    m = np.where(low, m * 2, m)
    e = np.where(low, e - 1, e).astype(float)
    z = (m - 1) / (m + 1)
    z2 = z * z
    p = np.full_like(z, _ATANH_C[-1])
    for c in _ATANH_C[-2::-1]:
        p = p * z2 + c
    return e * _LN2 + 2 * z * p


def gram_guess(ms: np.ndarray, iterations: int = 12, log=np.log) -> np.ndarray:
    """Return float approximations of g_m (Newton on the Stirling theta; not rigorous, for seeding).

    Three iterations already reach the float noise (~1e-8) from t >= 1000 on. `log=log_ieee` makes
    the result the same on every build (the checker's Gram points); the proposer keeps np.log.
    """
    t = 2 * math.pi * (ms + 1.0) / log(np.maximum(ms, 3.0) / 2) + 20.0
    for _ in range(iterations):
        lg = log(t / (2 * math.pi))
        th = t / 2 * lg - t / 2 - math.pi / 8 + 1 / (48 * t)
        t = t - (th - ms * math.pi) / (0.5 * lg)
    return t


def gram_floats(ms: Sequence[int]) -> np.ndarray:
    """Return g_m as floats for proposing (not rigorous): the float Newton guess, Arb's midpoint at low height."""
    out = gram_guess(np.array(ms, dtype=float)) if len(ms) else np.zeros(0)
    for i, g in enumerate(out):
        if g < RS_MIN_T + 300:
            q = gram_point(ms[i])
            out[i] = q.num / q.den
    return out


def _newton(ms: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return (S, h*, r, good) per m: t* = S + h* exactly, |g_m - t*| <= r where good (else: use Arb's ball)."""
    m_arr = np.array(ms, dtype=float)
    guess = np.empty_like(m_arr)
    if len(ms) and not rs_gram_jit.guess(m_arr, _ATANH_C, _LN2, _SQRT_HALF, guess):
        guess = gram_guess(m_arr, 3, log_ieee)
    out = np.zeros((4, len(ms)))  # S, h*, r, good (as 0/1)
    high = np.nonzero(guess >= RS_MIN_T + 300)[0]
    for (s_base, h_abs), sub in theta_groups(guess[high]).items():
        idx = high[sub]
        base = theta_base(s_base, h_abs)
        if rs_gram_jit.refine_group(guess, m_arr, idx, s_base, base, _PI_ERR, out):
            continue
        h = guess[idx] - s_base
        k = m_arr[idx] - 2 * base.j  # exact: |k| < 2^53
        target = k * math.pi  # |target - k pi| <= |k| (1.3e-16 + u pi)
        e_target = np.abs(k) * (_PI_ERR + U * math.pi)
        deriv = base.deriv
        for _ in range(2):  # quadratic convergence from the ~1e-8 guess; r below proves what is reached
            val, _ = base.eval(h)
            slope = np.full_like(h, deriv[-1])
            for c in deriv[-2::-1]:
                slope = slope * h + c
            h = h - (val - target) / slope
        val, e_val = base.eval(h)
        delta = (np.abs(val - target) * (1 + 2 * U) + e_val + e_target + 2 * U * (np.abs(val) + np.abs(target))) * (1 + 1e-9)
        r = delta / base.d1_low * (1 + 4 * U)
        out[0, idx], out[1, idx], out[2, idx] = s_base, h, r
        out[3, idx] = (np.abs(h) + r < base.h_abs) & (r < 1e-6)
    return out[0], out[1], out[2], out[3] != 0


def enclosures(ms: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return (S, h*, r, good) per m: |g_m - (S + h*)| <= r where good (t >= RS_MIN_T + 300), else no claim."""
    return _newton(ms)


def gram_points(ms: Sequence[int]) -> list[Point]:
    """Return the Point of each g_m (t* and its proved radius), Arb balls where the float route does not apply."""
    s_b, h, r, good = _newton(ms)
    out = []
    for q, m in enumerate(ms):
        if good[q]:
            n, d = float(h[q]).as_integer_ratio()  # t* = S + h* exactly
            out.append(Point(int(s_b[q]) * d + n, d, float(r[q]), m))
        else:
            out.append(gram_point(m))
    return out


def gram_arrays(ms: Sequence[int]) -> Points:
    """Return the Points of the g_m as arrays (base S, offset h*, radius r, theta/(2 pi) = m/2), Arb balls where needed."""
    s_b, h, r, good = _newton(ms)
    m_arr = np.array(ms, dtype=np.int64)
    pts = Points(s_b, h, np.zeros(len(ms)), r, 0.5 * (m_arr % 2), np.zeros(len(ms)))
    bad = np.nonzero(~good)[0]
    if len(bad):
        arb_pts = Points.of([gram_point(int(ms[q])) for q in bad])
        for f in ("base", "off", "e_off", "r_t", "theta_turn", "e_theta"):
            getattr(pts, f)[bad] = getattr(arb_pts, f)
    return pts
