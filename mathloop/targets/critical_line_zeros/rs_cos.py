"""The cosine of the fast path: cos(2 pi x) for |x| <= 1/2 as a float polynomial in y = x^2, its error proved by Arb.

`POLYS[D]` are b_0..b_D (floats, so exact dyadics; D = 5, 6, 7) with p(y) = sum_j b_j y^j; `poly_error()` returns an
upper bound E_P of |cos(2 pi x) - p(x^2)| over |x| <= 1/2 (7.9e-7, 1.1e-8, 1.2e-10), proved once per process by Arb:

With s = 2x in [-1, 1], cos(pi s) = T_M(s) + R_M, T_M the Taylor polynomial of degree 2M and
|R_M| <= pi^(2M+2)/(2M+2)! (Lagrange). q(s) = T_M(s) - p(s^2/4) is a polynomial with ball
coefficients; written in the Chebyshev basis, q = sum_k d_k T_k(s) and |T_k(s)| <= 1 on [-1, 1], so
|q(s)| <= sum_k |d_k| (each |d_k| rounded up by Arb). E_P = |R_M| + sum_k |d_k|. Nothing here
depends on how the b_j were found: they are the Chebyshev economisation of T_M truncated at degree
2D, rounded to floats, and written out as hex literals (a test re-derives them).

`eval_constants()` returns (S_b, S_b') = (sum_j |b_j| 4^-j, sum_j j |b_j| 4^-(j-1)), upper bounds
of sum |b_j| y^j and of |p'(y)| on 0 <= y <= 1/4, used for the Horner rounding error (step 5).
"""

from __future__ import annotations

import math
from functools import lru_cache

from flint import arb, ctx

_TAYLOR_M = 16
_PREC = 256


def _mono_to_cheb(c: list[arb]) -> list[arb]:
    """Return the Chebyshev coefficients of sum_k c_k s^k (s^k = 2^(1-k) sum_j C(k, j) T_(k-2j), T_0 halved)."""
    out = [arb(0)] * len(c)
    for k, ck in enumerate(c):
        if ck == 0:
            continue
        for j in range(k // 2 + 1):
            w = arb(math.comb(k, j)) / arb(2) ** (k - 1)
            out[k - 2 * j] += ck * (w / 2 if 2 * j == k else w)
    return out


def _cheb_to_mono(k: int) -> list[int]:
    """Return the integer monomial coefficients of the Chebyshev polynomial T_k."""
    t0, t1 = [1], [0, 1]
    if k == 0:
        return t0
    for _ in range(k - 1):
        t2 = [0] + [2 * x for x in t1]
        for i, x in enumerate(t0):
            t2[i] -= x
        t0, t1 = t1, t2
    return t1


def _taylor() -> tuple[list[arb], arb]:
    """Return the coefficients of T_M(s) (cos(pi s) to degree 2M) and the Lagrange bound of R_M."""
    pi = arb.pi()
    a = [arb(0)] * (2 * _TAYLOR_M + 1)
    for j in range(_TAYLOR_M + 1):
        a[2 * j] = (-1) ** j * pi ** (2 * j) / arb(math.factorial(2 * j))
    return a, pi ** (2 * _TAYLOR_M + 2) / arb(math.factorial(2 * _TAYLOR_M + 2))


def _economised(degree: int) -> tuple[float, ...]:
    """Return b_0..b_degree: T_M's Chebyshev series cut at degree 2*degree, in y = (s/2)^2, as floats."""
    with ctx.workprec(_PREC):
        a, _ = _taylor()
        ch = _mono_to_cheb(a)
        mono = [arb(0)] * (2 * degree + 1)
        for k in range(0, 2 * degree + 1, 2):
            for i, cf in enumerate(_cheb_to_mono(k)):
                mono[i] += ch[k] * cf
        return tuple(float((mono[2 * j] * arb(4) ** j).mid()) for j in range(degree + 1))


_HEX = {
    5: ("0x1.ffffe584abf8ep-1", "-0x1.3bd2dd10c649ap+4", "0x1.03b6f1f8921dap+6", "-0x1.551623f49aeb2p+6",
        "0x1.d652ed885e36fp+5", "-0x1.51233fa7956a4p+4"),
    6: ("0x1.ffffffa204899p-1", "-0x1.3bd3c818e35fcp+4", "0x1.03c1a801e574fp+6", "-0x1.55ccf1608fac0p+6",
        "0x1.e1574ee5678cfp+5", "-0x1.9f7b49599ee9fp+4", "0x1.a1d5890add53dp+2"),
    7: ("0x1.ffffffff04545p-1", "-0x1.3bd3cc8c20d38p+4", "0x1.03c1ef35bcb04p+6", "-0x1.55d39e3cbd3bdp+6",
        "0x1.e1efe28e0b3fcp+5", "-0x1.a6798558971cap+4", "0x1.f3355a733cb8bp+2", "-0x1.73ff2b01b4165p+0"),
}
# = _economised(D), written out so that no Arb version can change them (tested).
POLYS = {d: tuple(float.fromhex(h) for h in hexes) for d, hexes in _HEX.items()}


def polynomial_for(n_max: int, remainder: float) -> tuple[float, ...]:
    """Return the lowest-degree polynomial whose error over a main sum of n_max terms stays below remainder/8.

    The main sum's share is about 2 (2 sqrt(n_max)) E_P; keeping it at an eighth of Gabcke's term
    keeps the bound, and so the share of points that fall back to Arb (each costing ~1000 fast
    signs), nearly as small as it can be. Every degree is a proof; the choice depends on n_max alone.
    """
    for d in sorted(POLYS):
        if 4 * math.sqrt(n_max) * poly_error(POLYS[d]) <= remainder / 8:
            return POLYS[d]
    return POLYS[max(POLYS)]


@lru_cache(maxsize=None)
def poly_error(coeffs: tuple[float, ...]) -> float:
    """Return a proved upper bound of |cos(2 pi x) - sum_j b_j x^(2j)| over |x| <= 1/2 (module docstring)."""
    with ctx.workprec(_PREC):
        a, tail = _taylor()
        diff = list(a)
        for j, bj in enumerate(coeffs):
            diff[2 * j] -= arb(bj) / arb(4) ** j
        e = tail + sum((abs(d) for d in _mono_to_cheb(diff)), arb(0))
        return float(e.upper()) * (1 + 2.0**-40)


@lru_cache(maxsize=None)
def eval_constants(coeffs: tuple[float, ...]) -> tuple[float, float]:
    """Return upper bounds (S_b, S_b') of sum_j |b_j| 4^-j and of sum_j j |b_j| 4^-(j-1)."""
    with ctx.workprec(_PREC):
        s = sum((abs(arb(b)) / arb(4) ** j for j, b in enumerate(coeffs)), arb(0))
        d = sum((j * abs(arb(b)) / arb(4) ** (j - 1) for j, b in enumerate(coeffs) if j), arb(0))
        return float(s.upper()) * (1 + 2.0**-40), float(d.upper()) * (1 + 2.0**-40)
