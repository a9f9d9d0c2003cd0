"""The Riemann-Siegel main sum of the fast path: per-n tables and the (points x terms) kernel in turns.

`main_sums(theta, h0, n_pt, a_n, b)` returns S~_i ~ sum_{n <= N_i} n^-1/2 cos(2 pi (h0_i l_n + A_n - Theta_i))
for a whole chunk, l_n = log n / (2 pi), in blocks of points sized to stay in cache. Its error is
bounded in rs_rigorous's docstring (steps 3-6). Every operation is an elementwise numpy ufunc
(IEEE-754 binary64, round to nearest, one rounding each; no BLAS, no libm, no FMA) and the sum
over n is an explicit fold in a fixed order (row k := row 2k + row 2k+1 until one row is left), so
the result is the same bit for bit on every numpy build. Exact zeros past N_i only ever meet
x + 0 = x in that tree, so a point's sum does not depend on the other points of its block.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from flint import arb, ctx

from mathloop.targets.critical_line_zeros import rs_sum_jit

FIXED_P = 128  # bits of the fixed-point l_n = log n / (2 pi) for the exact reduction of T0 l_n mod 1
_MASK = (1 << FIXED_P) - 1
_BLOCK_ELEMS = 51_200  # terms x points per block: the two work arrays stay in L2 (fastest measured)


class Tables:
    """Per-process floats of l_n = log n/(2 pi) and w_n = n^-1/2, and 2^P l_n as integers.

    Attributes:
        ell, w: correctly rounded floats of Arb balls (radius < 2^-150): |ell~ - l| <= 1.01 u l,
            |w~ - w| <= u w + r_w.
        w_cum: upper bounds of sum_{k<=n} w~_k.
        fixed: floor(2^P l_n) as Python ints, within 2 of 2^P l_n.
    """

    def __init__(self) -> None:
        self.n = 0
        self.ell = self.w = self.w_cum = np.zeros(0)
        self.fixed: list[int] = []
        self.r_w = 0.0

    def ensure(self, n_max: int) -> None:
        """Grow the tables to cover n <= n_max."""
        if n_max <= self.n:
            return
        n_new = max(n_max, 2 * self.n, 64)
        ell, ws, fixed, rw = [], [], [], 0.0
        with ctx.workprec(FIXED_P + 64):
            inv = 1 / (2 * arb.pi())
            scale = arb(2) ** FIXED_P
            for n in range(1, n_new + 1):
                lb = arb(n).log() * inv
                wb = arb(n).rsqrt()
                if lb.rad() > 2.0**-150 or wb.rad() > 2.0**-150:
                    raise ArithmeticError("table ball too wide")
                ell.append(float(lb.mid()))
                ws.append(float(wb.mid()))
                fixed.append(int((lb * scale).mid().floor().unique_fmpz()))
                rw = max(rw, float(wb.rad()))
        self.n, self.fixed, self.r_w = n_new, fixed, rw
        self.ell, self.w = np.array(ell), np.array(ws)
        self.w_cum = np.cumsum(self.w) * (1 + 2 * n_new * 2.0**-53)  # sequential sum: error <= gamma_n sum


TABLES = Tables()


@lru_cache(maxsize=16)
def base_phases(t0: int, n_max: int) -> np.ndarray:
    """Return A~_n = float((T0 floor(2^P l_n)) mod 2^P) 2^-P for n <= n_max: within u + 2 T0 2^-P of T0 l_n mod 1."""
    TABLES.ensure(n_max)
    ys = [float((t0 * ln) & _MASK) for ln in TABLES.fixed[:n_max]]  # int -> float is correctly rounded
    return np.array(ys) * 2.0**-FIXED_P  # exact: a power of two, no underflow


def main_sums(theta: np.ndarray, h0: np.ndarray, n_pt: np.ndarray, a_n: np.ndarray, b: tuple[float, ...]) -> np.ndarray:
    """Return S~_i with the cosine polynomial b (rs_cos), points sorted by t (so N_i is nearly constant in a block)."""
    tb = TABLES
    out = np.empty(len(theta))
    jit = rs_sum_jit.available() and len(b) <= 8
    b_pad = rs_sum_jit.padded(b) if jit else None
    s = 0
    while s < len(theta):
        pb = max(1, min(len(theta) - s, _BLOCK_ELEMS // max(1, int(n_pt[s]))))
        nb = int(n_pt[s : s + pb].max())
        buf_x, buf_y = _buffers(pb * nb)
        # Layout (terms x points): per-n columns, per-point rows; the fold then adds whole rows.
        x = buf_x[: pb * nb].reshape(nb, pb)
        y = buf_y[: pb * nb].reshape(nb, pb)
        n_lo = int(n_pt[s : s + pb].min())
        if not (jit and rs_sum_jit.run(theta[s : s + pb], h0[s : s + pb], n_pt[s : s + pb], n_lo, a_n, tb.ell, tb.w, b_pad, y)):
            _block(theta[s : s + pb], h0[s : s + pb], n_pt[s : s + pb], n_lo, a_n, b, x, y)
        out[s : s + pb] = y[0]
        s += pb
    return out


def _block(theta: np.ndarray, h0: np.ndarray, n_pt: np.ndarray, n_lo: int, a_n: np.ndarray, b: tuple[float, ...],
           x: np.ndarray, y: np.ndarray) -> None:
    """Fill y (terms x points) with the terms and fold its rows into y[0] (the reference the jit block matches)."""
    tb = TABLES
    nb = y.shape[0]
    deg = len(b) - 1
    np.multiply(tb.ell[:nb, None], h0[None, :], out=x)
    np.add(x, a_n[:nb, None], out=x)
    np.subtract(x, theta[None, :], out=x)  # -psi~ (cos is even)
    np.rint(x, out=y)
    np.subtract(x, y, out=x)  # x~ = -psi~ - k, exact, |x~| <= 1/2
    np.multiply(x, x, out=x)  # y~
    np.multiply(x, b[deg], out=y)
    np.add(y, b[deg - 1], out=y)
    for j in range(deg - 2, -1, -1):
        np.multiply(y, x, out=y)
        np.add(y, b[j], out=y)
    np.multiply(y, tb.w[:nb, None], out=y)
    if n_lo < nb:  # terms n > N_i are exact zeros
        y[n_lo:] *= np.arange(n_lo + 1, nb + 1)[:, None] <= n_pt[None, :]
    r = nb
    while r > 1:  # adjacent pairs: y[k] = y[2k] + y[2k+1], an odd last row moves up unchanged
        h = r // 2
        np.add(y[0 : 2 * h : 2], y[1 : 2 * h : 2], out=y[:h])  # numpy buffers the overlap
        if r % 2:
            y[h] = y[r - 1]
        r -= h


_BUF: list[np.ndarray] = [np.zeros(0), np.zeros(0)]


def _buffers(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Return two reusable work arrays of at least `size` floats (fresh pages cost more than the arithmetic)."""
    if _BUF[0].size < size:
        _BUF[0], _BUF[1] = np.empty(size), np.empty(size)
    return _BUF[0], _BUF[1]


def gamma(n):
    """Return gamma_n = n u / (1 - n u), u = 2^-53 (Higham's bound for n roundings), for an int or an array.

    Computed in float (relative error < 1e-15, far below the bound's 1e-9 inflation).
    """
    u = 2.0**-53
    return n * u / (1 - n * u)


INV_TWO_PI = 1 / (2 * math.pi)
with ctx.workprec(128):
    E_INV_TWO_PI = float(abs(arb(INV_TWO_PI) - 1 / (2 * arb.pi())).upper())  # |fl(1/fl(2pi)) - 1/(2pi)|
