"""Rigorous fast Hardy Z, first arithmetic (fast_z_arithmetic = 1), unchanged: stores made with it re-check (fast_v1).

The Riemann-Siegel formula in float64 with a proved error bound per point. rs_rigorous is the
current version; this copy only reproduces the evidence of contracts that ask for arithmetic 1.

`enclose(points)` returns, for a whole chunk at once, (value, bound) with |Z(t) - value| <= bound,
or None where this path does not apply (the caller then uses the Arb path, the reference). A
sign counts only where |value| > bound.

Theorem used (imported, like Turing-Trudgian: a hypothesis of the contract)
----------------------------------------------------------------------------
Riemann-Siegel with the first correction term, with Gabcke's explicit remainder:
for t >= 200, tau = t/(2 pi), a = sqrt(tau), N = floor(a), p = a - N,

    Z(t) = 2 sum_{n<=N} n^{-1/2} cos(theta(t) - t log n) + (-1)^{N-1} tau^{-1/4} C0(p) + R0(t),
    C0(p) = cos(2 pi (p^2 - p - 1/16)) / cos(2 pi p),    |R0(t)| <= 0.127 tau^{-3/4}.

W. Gabcke, Neue Herleitung und explizite Restabschaetzung der Riemann-Siegel-Formel, Diss.
Goettingen 1979 (bounds c_k for the remainder after C0..C_k, t >= 200, c_0 = 0.127). The thesis
itself was not accessible here; the secondary sources found quote the constant as 0.127 with
either t^{-3/4} or (t/2pi)^{-3/4}. The larger of the two, 0.127 (t/2pi)^{-3/4}, is used, which is
valid under either reading. This path is used only for t >= RS_MIN_T = 1000.

Floating-point model (the only other assumption)
------------------------------------------------
IEEE-754 binary64, round to nearest: every +, -, *, /, sqrt returns the exact result times
(1 + d), |d| <= u = 2^-53 (numpy ufuncs on float64 arrays; no libm function is used: cos and
sinc are our own polynomials below). An inner product of length n computed in any order, with
or without fused multiply-add (BLAS), has error <= gamma_n sum |x_i y_i|, gamma_n = n u/(1 - n u)
(Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Sec. 3.1: each product x_i y_i
passes through at most n roundings whatever the summation tree). Constants from Arb (log n,
n^{-1/2}, theta(S) mod 2pi, theta's Taylor coefficients, T0 log n mod 2pi, Gram points) are
balls (hypothesis `arb-enclosures`); their radii enter the bound.

Proof of the bound (per point t; all symbols are the exact quantities, ~ marks computed floats)
-----------------------------------------------------------------------------------------------
1. Inputs. t is an exact rational (or the exact dyadic midpoint t_m of an Arb ball for g_m with
   radius r_g, and then theta(g_m) = m pi exactly). T0 is an integer base for the chunk, h0 = t - T0
   = r/d with integers r, d; h0~ = fl(fl(r)/fl(d)): |h0~ - h0| <= 3.01 u |h0| (three roundings).
   Likewise t~ = fl(fl(num)/fl(den)) has relative error <= 3.01 u.
2. theta(t) mod 2pi. For rational t, S is an integer base near t, |t - S| <= H, h = t - S.
   theta(S + h) = theta(S) + sum_{k=1..K} c_k h^k + R_K with c_k = theta^(k)(S)/k! (Arb series).
   For k >= 2, theta^(k)(t) = Im[(i/2)^k psi^(k-1)(1/4 + i t/2)] and, with psi^(m)(z) =
   (-1)^(m+1) m! sum_j (z+j)^-(m+1), |z + j| >= sqrt(j^2 + (t/2)^2), comparing the sum with an
   integral: |theta^(k)(t)| <= (k-1)! t^-k (1 + pi t/4). Lagrange: |R_K| <= (H/(S-H))^(K+1)
   (1 + pi (S+H)/4) / (K+1). Computed theta~ = fl(B~ + Horner(c~, h~)), B~ = float of the Arb ball
   of theta(S) mod 2pi; its error e_theta = |B~ - B| + Horner error gamma_{2K} sum|c~_k||h|^k
   + coefficient error sum |c~_k - c_k| |h|^k + |P'| |h~ - h| + R_K + rounding of the sum.
   h~ = t - S in float has relative error 3.01 u, hence the |P'| 3.02 u H term.
   At a Gram point theta~ = 0 or fl(pi), e_theta <= 2^-51.
3. Phase. theta(t) - t log n = theta(t) - A_n - h0 log n (mod 2pi), A_n = T0 log n mod 2pi from Arb,
   A~_n its float, |A~ - A| <= e_A. Computed phi~ = fl(fl(theta~ - A~) - fl(h0~ l~_n)), l~_n = float
   of log n (|l~ - l| <= 2u l + r_l, any rounding of a ball midpoint). With X = (|theta~| + 2pi)(1 + 2u)
   >= |theta~ - A~| and L = log N (1 + 1e-7):
   |phi~ - phi| <= e_theta + e_A + u X + 6.1 u |h0| L + u (X + 1.01 |h0| L) + 1.01 r_g L  =: e_phi.
4. Reduction. k = rint(fl(phi~ / 2pi~)) is some integer (any integer is valid: cos is 2pi-periodic),
   |k| <= K_i := (X + 1.01 |h0| L)/(2 pi) + 1 (checked < 1e8, so |phi~| < 7e8). r~ = fl(phi~ - fl(k C)), C = fl(2 pi),
   |C - 2pi| <= 2.5e-16: |r~ - (phi~ - 2 pi k)| <= K_i (2.5e-16 + 2 pi u (1 + u)) + u RMAX =: e_r.
   As |phi~ fl(1/2pi) - phi~/2pi| <= 3u |phi~|/2pi < 1e-6, |phi~ - 2 pi k| <= pi + 1e-5, and
   |r~| <= pi + 1e-5 + e_r < RMAX = 3.1416.
5. Cosine. c~ = Horner of T_D(r) = sum_{j<=D} (-1)^j y^j/(2j)!, y~ = fl(r~^2), D = 10.
   |cos r~ - T_D(r~)| <= RMAX^(2D+2)/(2D+2)!; Horner error <= gamma_{2D} cosh(RMAX); coefficient
   rounding <= u cosh(RMAX); y rounding: |dT_D/dy| <= sinh(sqrt y)/(2 sqrt y) <= 1.84, times u RMAX^2.
   Sum =: e_cos. cos is 1-Lipschitz, so |c~ - cos(phi)| <= e_cos + e_phi + e_r per term.
6. Main sum. w~_n = float of n^-1/2, |w~ - w| <= u w + r_w. M~ = fl(2 (c~ . w~)) over n <= N (terms
   n > N are exact zeros). With W = sum_{n<=N} w~_n (rounded up):
   |M~ - 2 sum w cos phi| <= 2 [gamma_{n_max} W (1 + e) + W (e_cos + e_phi + e_r) + (2.01 u + r_w) W] (+ u|M~|).
7. C0 term. a~ = sqrt(fl(t~ * fl(1/2pi))): tau~ has relative error <= 6.01 u, so |a~ - a| <= d_p :=
   4.1 u a~ + 1.01 r_g/(4 pi a~). If frac(a~) is within 4 d_p of 0 or 1, N is not certain: fall
   back. Else N = floor(a~) exactly, p~ = a~ - N exactly (Sterbenz), |p~ - p| <= d_p.
   q~ = 1/sqrt(a~) (tau^-1/4 = a^-1/2): relative error <= 5u.
   C0 is evaluated at p~ as cos(2pi(p~^2 - p~ - 1/16))/cos(2pi p~) with the cosine of step 5 when
   |p~ - 1/4|, |p~ - 3/4| >= 0.04 (then |cos 2 pi p| >= 0.248), else through the exact identity
   C0(1/4 + x) = ((1-2x)/2) sinc(pi x (1-2x)) / sinc(2 pi x) (and 3/4 + x with 1 + 2x), sinc a
   Taylor polynomial (|y| <= 0.26, 6 terms, truncation < 1e-16), so no removable singularity is
   met. |C0'| <= 2pi/0.248 + 2pi/0.248^2 <= 130 in the first region and <= 2 in the second, so
   |C0(p~) - C0(p)| <= 130 d_p. The evaluation error e_C is bounded in `_c0`.
   Term error: q~ (e_C + 130 d_p) + 6.01 u q~ |C0~| (q~'s error and two products).
8. Total: bound = [6] + [7] + 0.127 q~^3 (1 + 20 u) + u (|M~| + |C0 term|) for the final addition;
   every bound is computed in float from non-negative terms (fewer than 60 operations, relative
   error < 1e-12) and multiplied by (1 + 1e-9). Then |Z(t) - Z~| <= bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
from flint import arb, arb_series, ctx

RS_MIN_T = 1000
FIXED_P = 200  # bits of the fixed-point log n and 2 pi for the exact reduction of T0 log n
GABCKE_C0 = 0.127
U = 2.0**-53
RMAX = 3.1416
COS_DEGREE = 10
_TWO_PI = 2 * math.pi  # fl(2 pi); |fl(2pi) - 2pi| < 2.5e-16
_INV_TWO_PI = 1 / _TWO_PI
_COS_C = [(-1) ** j / math.factorial(2 * j) for j in range(COS_DEGREE + 1)]
_SINC_C = [(-1) ** j / math.factorial(2 * j + 1) for j in range(6)]
_COSH, _SINH_RATIO = math.cosh(RMAX), 1.84


def _gamma(n: int) -> float:
    return n * U / (1 - n * U)


E_COS = RMAX ** (2 * COS_DEGREE + 2) / math.factorial(2 * COS_DEGREE + 2) + (_gamma(2 * COS_DEGREE) + U) * _COSH * 1.000001 + _SINH_RATIO * U * RMAX**2
INFLATE = 1 + 1e-9


@dataclass(frozen=True)
class Enclosure:
    """A float value of Z and a proved bound: |Z(t) - value| <= bound."""

    value: float
    bound: float

    @property
    def sign(self) -> int:
        """Return +1 / -1 when |value| > bound, else 0 (undecided: fall back)."""
        if abs(self.value) > self.bound:
            return 1 if self.value > 0 else -1
        return 0


class _Tables:
    """Per-process floats of log n and n^-1/2 (correctly rounded from Arb balls) with error bounds."""

    def __init__(self) -> None:
        self.n = 0
        self.logs = np.zeros(0)
        self.weights = np.zeros(0)
        self.log_balls: list[arb] = []
        self.r_log = 0.0
        self.r_w = 0.0
        self.fixed_logs: list[int] = []
        self.fixed_two_pi = 0
        self.fixed_scale = 1.0

    def ensure(self, n_max: int) -> None:
        if n_max <= self.n:
            return
        n_new = max(n_max, 2 * self.n, 64)
        logs, ws, balls, rl, rw = [], [], [], 0.0, 0.0
        with ctx.workprec(192):
            for n in range(1, n_new + 1):
                lb = arb(n).log()
                wb = arb(n).rsqrt()
                balls.append(lb)
                logs.append(float(lb.mid()))
                ws.append(float(wb.mid()))
                rl = max(rl, float(lb.rad()))
                rw = max(rw, float(wb.rad()))
        self.n, self.log_balls = n_new, balls
        self.logs, self.weights = np.array(logs), np.array(ws)
        with ctx.workprec(FIXED_P + 64):
            scale = arb(2) ** FIXED_P
            self.fixed_logs = [int((lb * scale).mid().floor().unique_fmpz()) for lb in (arb(n).log() for n in range(1, n_new + 1))]
            self.fixed_two_pi = int((2 * arb.pi() * scale).mid().floor().unique_fmpz())
        self.fixed_scale = float(2**FIXED_P)
        # |l~ - l| <= u l + (radius, far below u): folded in as 1.01 u l below.
        self.r_log, self.r_w = rl, rw


_T = _Tables()


def _exact(x: arb) -> Fraction:
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _horner(coeffs: Sequence[float], y: np.ndarray) -> np.ndarray:
    out = np.full_like(y, coeffs[-1])
    for c in coeffs[-2::-1]:
        np.multiply(out, y, out=out)
        np.add(out, c, out=out)
    return out


def _cos_small(r: np.ndarray) -> np.ndarray:
    """Return cos(r) for |r| <= RMAX by the Taylor polynomial (error <= E_COS, step 5)."""
    y = r * r
    return _horner(_COS_C, y)


def _c0(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return C0(p~) and a bound on the evaluation error (step 7), p~ in (0, 1)."""
    out, err = np.empty_like(p), np.empty_like(p)
    x1, x3 = p - 0.25, p - 0.75  # exact (Sterbenz) where used
    near1, near3 = np.abs(x1) < 0.04, np.abs(x3) < 0.04
    reg = ~(near1 | near3)
    if reg.any():
        pr = p[reg]
        v = pr * pr - pr - 0.0625  # |v~ - v(p~)| <= 1.6 u
        num = _cos_small(_TWO_PI * v)  # arg error <= 0.32*2.5e-16 + 2pi*1.6u + 2u
        pw = np.where(pr > 0.5, pr - 1.0, pr)  # exact; 2 pi pw in [-pi, pi]
        den = _cos_small(_TWO_PI * pw)
        e_arg = 0.5 * 2.5e-16 + _TWO_PI * 1.6 * U * (1 + U) + 2 * U * math.pi
        e_n = E_COS + e_arg
        e_d = E_COS + e_arg
        val = num / den
        ad = np.abs(den) - e_d
        out[reg] = val
        err[reg] = (e_n + (np.abs(val) + 1e-6) * e_d) / ad + 2 * U * np.abs(val)
    for mask, x, s in ((near1, x1, -1.0), (near3, x3, 1.0)):
        if mask.any():
            xm = x[mask]
            f = 1.0 + s * 2.0 * xm
            u_arg = math.pi * xm * f
            v_arg = _TWO_PI * xm
            su = _horner(_SINC_C, u_arg * u_arg)
            sv = _horner(_SINC_C, v_arg * v_arg)
            out[mask] = 0.5 * f * su / sv
            err[mask] = 1e-14  # step 7: sinc errors < 2e-15 each, quotient and products < 8u
    return out, err


@dataclass(frozen=True)
class Point:
    """One evaluation point: exact t = num/den, the radius around it where the true point lies, theta if known.

    Attributes:
        num, den: t = num/den exactly (for a Gram point: a dyadic approximation of g_m).
        r_t: |g_m - t| <= r_t for a Gram point (0 for rationals).
        gram: m for a Gram point (theta(g_m) = m pi), else None.
    """

    num: int
    den: int
    r_t: float = 0.0
    gram: int | None = None

    @classmethod
    def of(cls, t: Fraction | str) -> "Point":
        """Return the Point of an exact rational or decimal string ("282.46" is 28246/100, unreduced)."""
        if isinstance(t, str) and "/" not in t:
            whole, _, frac = t.partition(".")
            return cls(int(whole + frac), 10 ** len(frac))
        q = Fraction(t)
        return cls(q.numerator, q.denominator)

    @property
    def t(self) -> Fraction:
        return Fraction(self.num, self.den)

    def minus(self, base: int) -> float:
        """Return (t - base) in float: the exact integer numerator and the denominator each rounded
        to float, then one division, so the relative error is at most 3.01 u (step 1)."""
        return float(self.num - base * self.den) / float(self.den)


def gram_point(m: int, ball: arb | None = None) -> Point:
    """Return the Point of g_m from its Arb ball (computed at 128 bits when not given)."""
    if ball is None:
        with ctx.workprec(128):
            ball = arb.gram_point(m)
    q = _exact(ball)
    return Point(q.numerator, q.denominator, float(ball.rad()) * (1 + 1e-9), m)


@dataclass(frozen=True)
class ThetaBase:
    """theta near an integer base S as a float polynomial with proved error terms (step 2).

    Attributes:
        s: the base S; theta(S) = 2 pi j + b exactly, b~ = b_f with |b~ - b| <= e_b.
        j: that integer j.
        coef: c~_1..c~_K (floats of theta^(k)(S)/k!), e_coef their errors.
        h_abs: the |t - S| this base covers; tail: the Lagrange remainder bound for it.
        d1_low: a lower bound of theta'(t) on [S - h_abs, S + h_abs].
    """

    s: int
    j: int
    b_f: float
    e_b: float
    coef: tuple[float, ...]
    e_coef: tuple[float, ...]
    h_abs: float
    tail: float
    d1_low: float

    @classmethod
    def at(cls, s_base: int, h_abs: float) -> "ThetaBase":
        """Return the base at S = s_base covering |h| <= h_abs (S - h_abs >= 1000)."""
        k_terms, tail = 2, 1.0
        for k_terms in range(2, 16):
            tail = (h_abs / (s_base - h_abs)) ** (k_terms + 1) * (1 + math.pi * (s_base + h_abs) / 4) / (k_terms + 1)
            if tail < 1e-15:
                break
        with ctx.workprec(128):
            cs = arb_series([arb(s_base), 1], prec=k_terms + 1).riemann_siegel_theta().coeffs()
            tp = 2 * arb.pi()
            jb = (cs[0] / tp).floor()
            b = cs[0] - jb * tp
            j = int(jb.unique_fmpz())
            coef = tuple(float(c.mid()) for c in cs[1 : k_terms + 1])
            e_coef = tuple(float(c.rad()) + 2 * U * abs(f) for c, f in zip(cs[1 : k_terms + 1], coef))
            # theta'' <= (1 + pi t/4)/t^2 (step 2 with k = 2), so theta' >= theta'(S) - h_abs * that.
            d1 = cs[1].lower() - arb(h_abs) * (1 + arb.pi() * (s_base + h_abs) / 4) / (arb(s_base) - h_abs) ** 2
            d1_low = float(d1.lower()) * (1 - 4 * U)
        return cls(s_base, j, float(b.mid()), float(b.rad()) + 2 * U * abs(float(b.mid())), coef, e_coef, h_abs, tail, d1_low)

    def eval(self, hs: np.ndarray) -> tuple[np.ndarray, float]:
        """Return theta~(S + h) - 2 pi j (the value B + P(h)) and one error bound for all |h| <= h_abs."""
        coef, h_abs = self.coef, self.h_abs
        poly = np.full_like(hs, coef[-1])
        for c in coef[-2::-1]:
            poly = poly * hs + c
        poly = poly * hs
        absum = sum(abs(c) * h_abs ** (k + 1) for k, c in enumerate(coef))
        dsum = sum((k + 1) * abs(c) * h_abs**k for k, c in enumerate(coef))
        csum = sum(e * h_abs ** (k + 1) for k, e in enumerate(self.e_coef))
        err = (self.e_b + _gamma(2 * len(coef)) * absum + csum + dsum * 3.02 * U * h_abs + self.tail
               + U * (abs(self.b_f) + absum) * 2)
        return self.b_f + poly, err


def _theta_rational(pts: list[Point]) -> tuple[np.ndarray, np.ndarray]:
    """Return theta~(t) (mod 2pi, not reduced) and its error bound for rational points (step 2)."""
    out, err = np.empty(len(pts)), np.empty(len(pts))
    tf = [p.minus(0) for p in pts]
    order = sorted(range(len(pts)), key=tf.__getitem__)
    i = 0
    while i < len(order):
        first = tf[order[i]]
        width = min(256.0, first / 64)
        s_base = math.floor(first + width)
        j = i
        while j < len(order) and tf[order[j]] <= s_base + width:
            j += 1
        idx = order[i:j]
        hs = np.array([pts[q].minus(s_base) for q in idx])  # relative error <= 3.01 u
        base = ThetaBase.at(s_base, float(np.abs(hs).max()) * (1 + 2 * U))
        out[idx], err[idx] = base.eval(hs)
        i = j
    return out, err


@dataclass(frozen=True)
class _Shared:
    """What one enclose() call computes once: the base T0, A~_n = T0 log n mod 2pi, its error."""

    t0: int
    a_n: np.ndarray
    e_a: float


def _shared(t0: int, n_max: int) -> _Shared:
    """Return A~_n = T0 log n mod 2pi by exact integer arithmetic on 2^-P fixed-point log n and 2 pi.

    L_n, M are within 1 of 2^P log n and 2^P 2pi (floors of Arb midpoints, radius < 2^-8), so
    |T0 L_n 2^-P - T0 log n| <= T0 2^-P and the reduction by k M adds k 2^-P: the exact residue
    r 2^-P is within (T0 + k) 2^-(P-1) < 2^-140 of T0 log n - 2 pi k; its float has error 2u |A|.
    """
    _T.ensure(n_max)
    big_m = _T.fixed_two_pi
    a_list = []
    for ln in _T.fixed_logs[:n_max]:
        y = t0 * ln
        a_list.append(float(y % big_m) / _T.fixed_scale)
    a_n = np.array(a_list)
    return _Shared(t0, a_n, 2 * U * 2 * math.pi + 2.0**-140)


def enclose(points: Sequence[Point], batch: int = 128) -> list[Enclosure | None]:
    """Return an Enclosure of Z at every point, or None where this path does not apply (t < 1000, a ~ integer)."""
    res: list[Enclosure | None] = [None] * len(points)
    tf = [p.minus(0) for p in points]
    use = [i for i, t in enumerate(tf) if t >= RS_MIN_T]  # floats: t < 1000 exactly only matters above
    if not use:
        return res
    use.sort(key=tf.__getitem__)  # any order is valid; batches of nearby t keep N uniform
    t_last = tf[use[-1]]
    shared = _shared(math.floor(tf[use[0]]) - 1, int(math.sqrt(t_last / (2 * math.pi)) * (1 + 1e-9)) + 1)
    theta, e_theta = np.zeros(len(use)), np.full(len(use), 2.0**-51)
    rat = [k for k, i in enumerate(use) if points[i].gram is None]
    for k, i in enumerate(use):
        if points[i].gram is not None and points[i].gram % 2:
            theta[k] = math.pi
    if rat:
        theta[rat], e_theta[rat] = _theta_rational([points[use[k]] for k in rat])
    for s in range(0, len(use), batch):
        part = use[s : s + batch]
        encs = _enclose_batch([points[i] for i in part], theta[s : s + batch], e_theta[s : s + batch], shared,
                              np.array([tf[i] for i in part]))
        for i, e in zip(part, encs):
            res[i] = e
    return res


_BUF: dict[str, np.ndarray] = {}


def _buffers(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Return two reusable (rows, cols) work arrays (fresh pages cost more than the arithmetic)."""
    need = rows * cols
    if _BUF.get("a") is None or _BUF["a"].size < need:
        _BUF["a"], _BUF["b"] = np.empty(need), np.empty(need)
    return _BUF["a"][:need].reshape(rows, cols), _BUF["b"][:need].reshape(rows, cols)


def _enclose_batch(pts: list[Point], theta: np.ndarray, e_theta: np.ndarray, sh: _Shared, t_f: np.ndarray) -> list[Enclosure | None]:
    a = np.sqrt(t_f * _INV_TWO_PI)
    r_t = np.array([p.r_t for p in pts])
    d_a = 4.1 * U * a + r_t / (4 * math.pi * a) * 1.01
    n_pt = np.floor(a)
    frac = a - n_pt
    ok = (frac > 4 * d_a) & (frac < 1 - 4 * d_a)
    n_max = int(n_pt.max())
    a_n, e_a = sh.a_n[:n_max], sh.e_a
    h0 = np.array([p.minus(sh.t0) for p in pts])
    logs, ws = _T.logs[:n_max], _T.weights[:n_max]
    # Steps 3-5, vectorised over (point, n). |phi~| < 1e9 (checked), so k = rint(phi~/2pi~) gives
    # |phi~ - 2 pi k| <= pi + 1e-6 and r~ stays within RMAX = pi + 7.3e-6 (step 4).
    phi, tmp = _buffers(len(pts), n_max)
    np.subtract(theta[:, None], a_n[None, :], out=phi)
    np.multiply(h0[:, None], logs[None, :], out=tmp)
    np.subtract(phi, tmp, out=phi)
    np.multiply(phi, _INV_TWO_PI, out=tmp)
    np.rint(tmp, out=tmp)
    np.multiply(tmp, _TWO_PI, out=tmp)
    np.subtract(phi, tmp, out=phi)
    np.multiply(phi, phi, out=phi)  # y = r~^2
    np.multiply(phi, _COS_C[-1], out=tmp)
    np.add(tmp, _COS_C[-2], out=tmp)
    for cf in _COS_C[-3::-1]:
        np.multiply(tmp, phi, out=tmp)
        np.add(tmp, cf, out=tmp)
    n_lo = int(n_pt.min())
    if n_lo < n_max:
        tmp[:, n_lo:] *= np.arange(n_lo + 1, n_max + 1)[None, :] <= n_pt[:, None]  # exact zeros past N
    main = 2.0 * (tmp @ ws)
    # Bounds (steps 3-8).
    big_l = np.log(np.maximum(n_pt, 1.0)) * 1.0000001 + 1e-300
    habs = np.abs(h0)
    x_max = (np.abs(theta) + _TWO_PI) * (1 + 2 * U)  # bounds |theta~ - A~_n| and its float
    e_phi = e_theta + e_a + U * x_max + 6.1 * U * habs * big_l + U * (x_max + 1.01 * habs * big_l) + r_t * big_l * 1.01
    k_i = (x_max + 1.01 * habs * big_l) / _TWO_PI + 1
    if float(k_i.max()) > 1e8:
        raise ValueError("phase out of the range this module's proof covers")
    e_red = k_i * (2.5e-16 + _TWO_PI * U * (1 + U)) + U * RMAX
    cw = np.cumsum(ws) * (1 + n_max * U * 2)
    w_sum = cw[np.maximum(n_pt.astype(int), 1) - 1]
    e_term = E_COS + e_phi + e_red
    e_main = 2 * (_gamma(n_max + 1) * w_sum * (1 + e_term) + w_sum * e_term + (2.01 * U + _T.r_w) * w_sum) + U * np.abs(main)
    p_f = np.where(ok, frac, 0.5)
    c0, e_c0 = _c0(p_f)
    q = 1.0 / np.sqrt(a)
    sgn = np.where(n_pt % 2 == 1, 1.0, -1.0)
    c0_term = sgn * q * c0
    e_c0t = q * (e_c0 + 130 * d_a) + 6.01 * U * q * np.abs(c0)
    val = main + c0_term
    gab = GABCKE_C0 * q**3 * (1 + 20 * U)
    bound = (e_main + e_c0t + gab + U * (np.abs(main) + np.abs(c0_term))) * INFLATE
    out: list[Enclosure | None] = []
    for i in range(len(pts)):
        out.append(Enclosure(float(val[i]), float(bound[i])) if ok[i] else None)
    return out
