"""The per-point steps of rs_rigorous.enclose_points compiled by numba: the numpy reference's operations in its order.

`before` is `rs_rigorous._steps_before_the_sum` (steps 1 and 7: T0, h0, a, N, p, q, Gabcke's term)
and `after` is `_steps_after_the_sum` with `_c0` (steps 3-8: the error terms, C0, value and bound),
one element at a time: each line below is one line of the numpy code, with Python's left-to-right
evaluation written out, and numba compiles without fast-math (no reassociation, no fused
multiply-add), so value and bound have the same bits either way (tested). This module is not part
of the proof: rs_rigorous's docstring and numpy code are; this is a faster way to run the same
operations. Run through rs_sum_jit.call (one switch, MATHLOOP_FAST_Z_JIT, for all kernels).
"""

from __future__ import annotations

import math

import numpy as np

from mathloop.targets.critical_line_zeros import rs_sum, rs_sum_jit

JIT_HELPERS = ("_horner",)
U = 2.0**-53
_PI4 = 4 * math.pi
_TWO_PI = 2 * math.pi
# Constants of other modules are arguments, never globals: numba freezes a global into the cached
# machine code, and its cache is refreshed only when this file changes.


def available() -> bool:
    """Return whether the compiled kernels can be used."""
    return rs_sum_jit.available()


def before(t_f, base, off, e_off, r_t, theta, gabcke, out) -> bool:
    """Fill out[0..10] with _steps_before_the_sum's arrays (the flag and N as floats); False if not compiled."""
    return rs_sum_jit.call(_before, t_f, base, off, e_off, r_t, theta, gabcke, rs_sum.INV_TWO_PI, out)


def after(main, e_cos, t0, h0, e_h, r_t, e_theta, x_max, d_a, frac, ok_u, n_i, q, gab, tables, consts, out) -> bool:
    """Fill out[0], out[1] with _steps_after_the_sum's value and bound; False if not compiled.

    tables: (ell, w_cum, r_w) of rs_sum.TABLES; consts: (INFLATE, C0's e_n, e_d, the cosine and sinc
    Taylor coefficients) exactly as rs_rigorous uses them.
    """
    ell, w_cum, r_w = tables
    inflate, e_n, e_d, cos_c, sinc_c = consts
    return rs_sum_jit.call(_after, main, e_cos, t0, h0, e_h, r_t, e_theta, x_max, d_a, frac, ok_u, n_i, q, gab,
                           ell, w_cum, r_w, inflate, e_n, e_d, cos_c, sinc_c, 2.0**-rs_sum.FIXED_P, out)


def _before(t_f, base, off, e_off, r_t, theta, gabcke, inv_two_pi, out):  # pragma: no cover - compiled
    for i in range(len(t_f)):
        t0 = np.floor(t_f[i] / 256.0) * 256.0  # np.floor: a float (math.floor would be an int64)
        h0 = (base[i] - t0) + off[i]
        a = math.sqrt(t_f[i] * inv_two_pi)
        d_a = 4.1 * U * a + r_t[i] / (_PI4 * a) * 1.01
        n_pt = np.floor(a)
        frac = a - n_pt
        q = 1.0 / math.sqrt(a)
        out[0, i] = t0
        out[1, i] = h0
        out[2, i] = 1.01 * U * abs(h0) + e_off[i]
        out[3, i] = a
        out[4, i] = d_a
        out[5, i] = frac
        out[6, i] = 1.0 if (frac > 4 * d_a) and (frac < 1 - 4 * d_a) else 0.0
        out[7, i] = max(n_pt, 1.0)  # = max(int64(floor a), 1) as a float: exact below 2^53
        out[8, i] = q
        out[9, i] = gabcke * (q * q * q) * (1 + 20 * U)
        out[10, i] = abs(theta[i]) + 1.0


def _horner(c, y):  # pragma: no cover - compiled; rs_rigorous._horner for one element
    out = c[len(c) - 1]
    for j in range(len(c) - 2, -1, -1):
        out = out * y
        out = out + c[j]
    return out


def _after(main, e_cos, t0, h0, e_h, r_t, e_theta, x_max, d_a, frac, ok_u, n_i, q, gab, ell, w_cum, r_w,
           inflate, e_n, e_d, cos_c, sinc_c, fixed_scale, out):  # pragma: no cover - compiled
    for i in range(len(main)):
        n = n_i[i]
        ell_max = ell[n - 1] * (1 + 2 * U)
        e_a = U + 2.0 * t0[i] * fixed_scale
        e_psi = e_theta[i] + e_a + 2.01 * U * x_max[i] + ell_max * (1.03 * (e_h[i] + r_t[i]) + 4.03 * U * abs(h0[i]))
        e_term = e_cos[i] + 2 * math.pi * e_psi * (1 + 2 * U)
        w_sum = w_cum[n - 1]
        nf = float(n)
        g = nf * U / (1 - nf * U)
        e_main = 2 * (g * w_sum * (1 + e_term) + w_sum * e_term + nf * r_w) + U * abs(main[i])
        p = frac[i] if ok_u[i] else 0.5
        x1 = p - 0.25
        x3 = p - 0.75
        if abs(x1) < 0.04 or abs(x3) < 0.04:  # _c0 near 1/4 or 3/4: the sinc identity
            xm, s = (x3, 1.0) if abs(x3) < 0.04 else (x1, -1.0)
            f = 1.0 + s * 2.0 * xm
            u_arg = math.pi * xm * f
            v_arg = _TWO_PI * xm
            c0 = 0.5 * f * _horner(sinc_c, u_arg * u_arg) / _horner(sinc_c, v_arg * v_arg)
            e_c0 = 1e-14
        else:  # _c0's regular region
            v = p * p - p - 0.0625
            r = _TWO_PI * v
            num = _horner(cos_c, r * r)
            pw = p - 1.0 if p > 0.5 else p
            r = _TWO_PI * pw
            den = _horner(cos_c, r * r)
            c0 = num / den
            e_c0 = (e_n + (abs(c0) + 1e-6) * e_d) / (abs(den) - e_d) + 2 * U * abs(c0)
        sgn = 1.0 if n % 2 == 1 else -1.0
        c0_term = sgn * q[i] * c0
        e_c0t = q[i] * (e_c0 + 130 * d_a[i]) + 6.01 * U * q[i] * abs(c0)
        out[0, i] = main[i] + c0_term
        out[1, i] = (e_main + e_c0t + gab[i] + U * (abs(main[i]) + abs(c0_term))) * inflate
