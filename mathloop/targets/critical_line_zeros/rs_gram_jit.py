"""rs_gram's Newton steps for the Gram points compiled by numba: the numpy reference's operations in its order.

`guess(ms, out)` is `rs_gram.gram_guess(ms, 3, rs_gram.log_ieee)` and `refine(h, target, coef,
deriv, b_f, val)` the two Newton steps of `rs_gram._newton` on one theta base plus the final
evaluation, per element: the same +, -, *, / on the same operands in the same order (exact frexp,
exact float conversions), compiled without fast-math, so the Gram points t* that enter the evidence
have the same bits either way (tested). Run through rs_sum_jit.call (one switch for all kernels).
"""

from __future__ import annotations

import math

from mathloop.targets.critical_line_zeros import rs_sum_jit

_TWO_PI = 2 * math.pi
_PI_8 = math.pi / 8
_SQRT_HALF = 0.7071067811865476
_LN2 = 0.6931471805599453
_C = tuple(1.0 / (2 * k + 1) for k in range(11))
_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10 = _C


def guess(ms, out) -> bool:
    """Fill `out` with gram_guess(ms, 3, log_ieee); False when the compiled kernel is not available."""
    return rs_sum_jit.available() and rs_sum_jit.call(_guess, ms, out)


def refine(h, target, coef, deriv, b_f, val) -> bool:
    """Run _newton's two steps on h in place and fill val = theta~ at the result; False when not compiled."""
    return rs_sum_jit.available() and rs_sum_jit.call(_refine, h, target, coef, deriv, b_f, val)


def _guess(ms, out):  # pragma: no cover - compiled
    for i in range(len(ms)):
        m = ms[i]
        t = 0.0
        for it in range(4):  # log_ieee of the seed's argument, then of t/(2 pi) in each of 3 Newton steps
            x = max(m, 3.0) / 2 if it == 0 else t / _TWO_PI
            f, e = math.frexp(x)
            if f < _SQRT_HALF:
                f = f * 2
                e = e - 1
            z = (f - 1) / (f + 1)
            z2 = z * z
            p = _C10
            p = p * z2 + _C9
            p = p * z2 + _C8
            p = p * z2 + _C7
            p = p * z2 + _C6
            p = p * z2 + _C5
            p = p * z2 + _C4
            p = p * z2 + _C3
            p = p * z2 + _C2
            p = p * z2 + _C1
            p = p * z2 + _C0
            lg = float(e) * _LN2 + 2 * z * p
            if it == 0:
                t = _TWO_PI * (m + 1.0) / lg + 20.0
            else:
                th = t / 2 * lg - t / 2 - _PI_8 + 1 / (48 * t)
                t = t - (th - m * math.pi) / (0.5 * lg)
        out[i] = t


def _refine(h, target, coef, deriv, b_f, val):  # pragma: no cover - compiled
    k = len(coef)
    for i in range(len(h)):
        x = h[i]
        for _ in range(2):
            poly = coef[k - 1]
            for j in range(k - 2, -1, -1):
                poly = poly * x + coef[j]
            v = b_f + poly * x
            slope = deriv[k - 1]
            for j in range(k - 2, -1, -1):
                slope = slope * x + deriv[j]
            x = x - (v - target[i]) / slope
        poly = coef[k - 1]
        for j in range(k - 2, -1, -1):
            poly = poly * x + coef[j]
        val[i] = b_f + poly * x
        h[i] = x
