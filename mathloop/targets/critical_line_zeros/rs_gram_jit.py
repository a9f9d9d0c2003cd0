"""rs_gram's Newton steps for the Gram points compiled by numba: the numpy reference's operations in its order.

`guess(ms, atanh_c, ln2, sqrt_half, out)` is `rs_gram.gram_guess(ms, 3, rs_gram.log_ieee)` and
`refine_group(...)` the body of `rs_gram._newton`'s loop for one theta base (two Newton steps, the final
evaluation, the proved radius r and the test that the float route applies), per element: the same +, -, *, / on the same
operands in the same order (exact frexp, exact float conversions), compiled without fast-math, so
the Gram points t* that enter the evidence have the same bits either way (tested). Run through rs_sum_jit.call (one switch for all kernels).
"""

from __future__ import annotations

import math

import numpy as np

from mathloop.targets.critical_line_zeros import rs_sum_jit

_TWO_PI = 2 * math.pi
_PI_8 = math.pi / 8
# log_ieee's constants are arguments, taken from rs_gram: numba freezes a global into the cached
# machine code, whose cache is refreshed only when this file changes.


def guess(ms, atanh_c, ln2: float, sqrt_half: float, out) -> bool:
    """Fill `out` with gram_guess(ms, 3, log_ieee); False when the compiled kernel is not available.

    log_ieee's constants come from the caller (rs_gram), so that this module never imports rs_gram.
    """
    return rs_sum_jit.available() and rs_sum_jit.call(_guess, ms, np.array(atanh_c), ln2, sqrt_half, out)


def refine_group(guess, m, idx, s_base: int, base, pi_err: float, out) -> bool:
    """Fill out (S, h*, r, good as rows) at idx as _newton does for one theta base; False when not compiled."""
    if not rs_sum_jit.available():
        return False
    return rs_sum_jit.call(_refine_group, guess, m, idx, float(s_base), float(2 * base.j), np.array(base.coef),
                           np.array(base.deriv), base.b_f, base.error, base.d1_low, base.h_abs, pi_err, out)


def _guess(ms, c, ln2, sqrt_half, out):  # pragma: no cover - compiled
    # Stage by stage over all elements (the seed, then 3 Newton steps): each element's operations are
    # those of gram_guess in its order, and independent elements overlap in the CPU (2.3x faster here).
    for it in range(4):
        for i in range(len(ms)):
            m = ms[i]
            x = max(m, 3.0) / 2 if it == 0 else out[i] / _TWO_PI  # log_ieee's argument
            f, e = math.frexp(x)
            if f < sqrt_half:
                f = f * 2
                e = e - 1
            z = (f - 1) / (f + 1)
            z2 = z * z
            p = c[len(c) - 1]
            for j in range(len(c) - 2, -1, -1):
                p = p * z2 + c[j]
            lg = float(e) * ln2 + 2 * z * p
            if it == 0:
                out[i] = _TWO_PI * (m + 1.0) / lg + 20.0
            else:
                t = out[i]
                th = t / 2 * lg - t / 2 - _PI_8 + 1 / (48 * t)
                out[i] = t - (th - m * math.pi) / (0.5 * lg)


def _refine_group(guess, m, idx, s_base, j2, coef, deriv, b_f, e_val, d1_low, h_abs, pi_err, out):  # pragma: no cover
    u = 2.0**-53
    k_terms = len(coef)
    for q in range(len(idx)):
        i = idx[q]
        x = guess[i] - s_base
        k = m[i] - j2
        target = k * math.pi
        e_target = abs(k) * (pi_err + u * math.pi)
        for _ in range(2):
            poly = coef[k_terms - 1]
            for j in range(k_terms - 2, -1, -1):
                poly = poly * x + coef[j]
            v = b_f + poly * x
            slope = deriv[k_terms - 1]
            for j in range(k_terms - 2, -1, -1):
                slope = slope * x + deriv[j]
            x = x - (v - target) / slope
        poly = coef[k_terms - 1]
        for j in range(k_terms - 2, -1, -1):
            poly = poly * x + coef[j]
        val = b_f + poly * x
        delta = (abs(val - target) * (1 + 2 * u) + e_val + e_target + 2 * u * (abs(val) + abs(target))) * (1 + 1e-9)
        r = delta / d1_low * (1 + 4 * u)
        out[0, i] = s_base
        out[1, i] = x
        out[2, i] = r
        out[3, i] = 1.0 if (abs(x) + r < h_abs) and (r < 1e-6) else 0.0
