"""Rigorous fast Hardy Z: the Riemann-Siegel formula in float64 with a proved error bound per point.

`enclose_points(points)` returns, for a whole chunk at once, (value, bound, ok) with |Z(t) - value|
<= bound wherever ok; `enclose(points)` is the same per Point (None where this path does not
apply; the caller then uses the Arb path, the reference). A sign counts only where |value| > bound.

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
(1 + d), |d| <= u = 2^-53; rint and floor are exact (numpy ufuncs on float64 arrays, each one
operation with one rounding: no fused multiply-add, no BLAS, no libm: cos and sinc are our own
polynomials). A sum of n floats computed in any order has error <= gamma_{n-1} sum |x_i|,
gamma_n = n u/(1 - n u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 4.2);
Horner's rule for a degree-d polynomial has error <= gamma_{2d} sum |c_j||y|^j (ibid. 5.1).
Constants from Arb (l_n = log n/(2 pi), n^-1/2, theta(S) mod 2pi, theta's Taylor coefficients,
floor(2^P l_n), Gram points, 1/(2 pi)) are balls (hypothesis `arb-enclosures`); their radii enter
the bound. Phases are in turns (units of 2 pi) from step 2 on, so the reduction mod 1 is exact.

Proof of the bound (per point t; all symbols are the exact quantities, ~ marks computed floats)
-----------------------------------------------------------------------------------------------
1. Inputs. t = base + off + e with base an integer (< 2^53), off a float, |e| <= e_off: for a
   rational num/den, base = floor, off = fl(fl(num - base den)/fl(den)) in [0, 1), e_off = 3.01 u
   off (three roundings); for a Gram point t* = S + h* exactly (rs_gram: off = h*, e_off = 0) or the
   dyadic midpoint of an Arb ball for g_m (as a rational), |g_m - t*| <= r_t, theta(g_m) = m pi.
   t~ = fl(base + off): relative error <= u + e_off/t <= 1.01 u. T0 = 256 floor(t~/256) (exact; any integer
   is valid), h0 = t - T0, h0~ = fl((base - T0) + off) (base - T0 exact): |h0~ - h0| <= e_h := 1.01 u |h0~| + e_off
   (+ r_t for a Gram point: the value sought is at g_m).
2. theta(t)/(2 pi) mod 1 =: Theta. Gram point: Theta = m/2 mod 1 exactly (0 or 1/2), e_Theta = 0.
   Rational t: S is an integer base near t, |t - S| <= H, h = t - S (S on a fixed grid: theta_grid).
   theta(S + h) = theta(S) + sum_{k=1..K} c_k h^k + R_K with c_k = theta^(k)(S)/k! (Arb series).
   For k >= 2, theta^(k)(t) = Im[(i/2)^k psi^(k-1)(1/4 + i t/2)] and, with psi^(m)(z) =
   (-1)^(m+1) m! sum_j (z+j)^-(m+1), |z + j| >= sqrt(j^2 + (t/2)^2), comparing the sum with an
   integral: |theta^(k)(t)| <= (k-1)! t^-k (1 + pi t/4). Lagrange: |R_K| <= (H/(S-H))^(K+1)
   (1 + pi (S+H)/4) / (K+1). Computed theta~ = fl(B~ + Horner(c~, h~)), B~ = float of the Arb ball
   of theta(S) mod 2pi; its error e_theta = |B~ - B| + Horner error gamma_{2K} sum|c~_k||h|^k
   + coefficient error sum |c~_k - c_k| |h|^k + |P'| |h~ - h| + R_K + rounding of the sum.
   h~ = t - S in float has relative error 3.01 u, hence the |P'| 3.02 u H term.
   Theta~ = fl(theta~ c), c = fl(1/fl(2 pi)) with |c - 1/(2 pi)| <= E_INV (Arb): |Theta~ - Theta| <=
   e_Theta := |theta~| (1.01 u c + E_INV) + 0.16 e_theta (1/(2 pi) < 0.16), up to an integer.
3. Phase. psi_n = Theta - A_n - h0 l_n is theta(t)/(2 pi) - t l_n mod 1, A_n = T0 l_n mod 1. With
   F_n = floor(2^P l_n) (P = 128; |F_n - 2^P l_n| < 2 from an Arb ball of radius < 1/4),
   y_n = T0 F_n mod 2^P exactly (Python integers) and A~_n = float(y_n) 2^-P (int -> float correctly
   rounded, the power of two exact): |A~_n - A_n| <= e_A := u + 2 T0 2^-P up to an integer, A~_n in [0, 1].
   l~_n = float of the Arb ball of l_n, |l~_n - l_n| <= 1.01 u l_n, and l_n, l~_n <= L' := l~_N (1 + 2u)
   for n <= N (l~ increasing). The kernel computes -psi (cos is even): psi~ = fl(fl(fl(h0~ l~_n) +
   A~_n) - Theta~). With X = |Theta~| + 1 the three roundings are <= u |h0~| L', u (|h0~| L' (1 + u)
   + 1) and u (|h0~| L' + X)(1 + 2u), in all <= 3.01 u |h0~| L' + 2.01 u X; and |h0~ l~ - h0 l| <=
   (e_h + r_t) L' + 1.02 u (|h0~| + e_h + r_t) L'. So up to an integer
   |psi~ - (-psi_n)| <= e_psi := e_Theta + e_A + 2.01 u X + L' (1.03 (e_h + r_t) + 4.03 u |h0~|).
4. Reduction. k = rint(psi~) and x~ = fl(psi~ - k) = psi~ - k exactly: |psi~ - k| <= 1/2, and for
   |psi~| >= 1/2 Sterbenz's lemma applies (k/2 <= psi~ <= 2k); |psi~| < 2^50 is checked, so rint
   is exact. cos is even and 1-periodic in turns: cos(2 pi psi_n) = cos(2 pi (x~ + d)), |d| <= e_psi.
5. Cosine and weight. p(y) = sum_{j<=D} b_j y^j (rs_cos, D = 5, 6 or 7 by T0's cell alone) with |cos(2 pi x)
   - p(x^2)| <= E_P for |x| <= 1/2, proved by Arb in rs_cos (Chebyshev basis; 7.9e-7, 1.1e-8, 1.2e-10). w~_n = float of the
   Arb ball of n^-1/2, |w~ - w| <= u w + r_w. The term is fl(Horner(b, y~) w~_n), y~ = fl(x~^2) <= 1/4
   (the b_j are floats: no coefficient rounding). Its error against w_n cos(2 pi psi_n) is at most
   w~_n [gamma_{2D} S_b (Horner) + u S_b'/4 (y~: |p'| <= S_b' on [0, 1/4], |y~ - x~^2| <= u/4)
   + E_P + 2 pi e_psi (cos(2 pi .) is 2 pi-Lipschitz) + 2.03 u (the product, |p~| <= 1.001; w~)]
   + r_w =: w~_n e_term + r_w, S_b = sum |b_j| 4^-j, S_b' = sum j |b_j| 4^-(j-1) (rs_cos, by Arb);
   and |term~_n| <= w~_n (1 + e_term). Terms n > N are multiplied by 0: exact zeros.
6. Main sum. S~ = the adjacent-pair tree sum of the terms (rs_sum; the exact zeros past N add
   nothing): |S~ - sum term~| <= gamma_N W (1 + e_term), W = sum_{n<=N} w~_n (rounded up). M~ = 2 S~ (exact):
   |M~ - 2 sum w cos 2 pi psi| <= 2 [gamma_N W (1 + e_term) + W e_term + N r_w] (+ u|M~|).
7. C0 term. a~ = sqrt(fl(t~ * c)): tau~ has relative error <= 6.01 u, so |a~ - a| <= d_p :=
   4.1 u a~ + 1.01 r_g/(4 pi a~). If frac(a~) is within 4 d_p of 0 or 1, N is not certain: fall
   back. Else N = floor(a~) exactly, p~ = a~ - N exactly (Sterbenz), |p~ - p| <= d_p.
   q~ = 1/sqrt(a~) (tau^-1/4 = a^-1/2): relative error <= 5u.
   C0 is evaluated at p~ as cos(2pi(p~^2 - p~ - 1/16))/cos(2pi p~) with the cosine below (Taylor,
   degree 10 in r^2, |r| <= RMAX, error E_COS) when |p~ - 1/4|, |p~ - 3/4| >= 0.04 (then
   |cos 2 pi p| >= 0.248), else through the exact identity
   C0(1/4 + x) = ((1-2x)/2) sinc(pi x (1-2x)) / sinc(2 pi x) (and 3/4 + x with 1 + 2x), sinc a
   Taylor polynomial (|y| <= 0.26, 6 terms, truncation < 1e-16), so no removable singularity is
   met. |C0'| <= 2pi/0.248 + 2pi/0.248^2 <= 130 in the first region and <= 2 in the second, so
   |C0(p~) - C0(p)| <= 130 d_p. The evaluation error e_C is bounded in `_c0`.
   Term error: q~ (e_C + 130 d_p) + 6.01 u q~ |C0~| (q~'s error and two products).
8. Total: bound = [6] + [7] + 0.127 q~^3 (1 + 20 u) + u (|M~| + |C0 term|) for the final addition;
   every bound is computed in float from non-negative terms (fewer than 60 operations, relative
   error < 1e-12) and multiplied by (1 + 1e-9). Then |Z(t) - Z~| <= bound.

Determinism: every step is an elementwise IEEE operation or exact integer arithmetic, and the one
reduction (step 6) has a fixed order, so value and bound, hence which points fall back, are the
same on every numpy build and CPU (the constants E_P, S_b are Arb upper bounds of fixed floats;
T0, the theta base and the cosine degree depend on t alone, and the tree sum ignores the
padding), so a point's value and bound are a function of the point: not of the chunk it came
with, nor of how `workers` split the chunk (tested). The compiled kernels (numba without
fast-math: rs_sum_jit for the main sum, rs_point_jit for the per-point steps before and after it,
rs_gram_jit for the Gram points) perform the numpy code's operations in the same order: the same
bits (tested); the numpy code here is what the proof describes.
No libm function is used anywhere a bit of the evidence depends on: powers are IEEE products
(_ipow), cosh(RMAX) is a literal, and the Gram points' Newton seed uses rs_gram.log_ieee.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from fractions import Fraction
from typing import NamedTuple, Sequence

import numpy as np
from flint import arb, arb_series, ctx

from mathloop.targets.critical_line_zeros import rs_cos, rs_point_jit, rs_sum
from mathloop.targets.critical_line_zeros.rs_sum import E_INV_TWO_PI, INV_TWO_PI

RS_MIN_T = 1000
T_MAX = 2.0**52  # step 1 needs the integer base below 2^53 (exact as a float); far above any contract's height
GABCKE_C0 = 0.127
U = 2.0**-53
RMAX = 3.1416
COS_DEGREE = 10  # of the radian cosine used by C0 (step 7)
_TWO_PI = 2 * math.pi  # fl(2 pi); |fl(2pi) - 2pi| < 2.5e-16
_COS_C = [(-1) ** j / math.factorial(2 * j) for j in range(COS_DEGREE + 1)]
_SINC_C = [(-1) ** j / math.factorial(2 * j + 1) for j in range(6)]
_COS_ARR, _SINC_ARR = np.array(_COS_C), np.array(_SINC_C)  # the same floats, for the compiled kernel
_COSH, _SINH_RATIO = 11.5925, 1.84  # >= cosh(RMAX) = 11.59204...; literals, not libm
if E_INV_TWO_PI > 2 * U * INV_TWO_PI:  # step 7 takes c's error as at most 2u relative
    raise ArithmeticError("fl(1/fl(2 pi)) is not within 2u of 1/(2 pi)")


_gamma = rs_sum.gamma


def _ipow(x: float, k: int) -> float:
    """Return x^k by k - 1 IEEE products (not libm's pow, so every platform gives the same bits)."""
    out = 1.0
    for _ in range(k):
        out *= x
    return out


E_COS = _ipow(RMAX, 2 * COS_DEGREE + 2) / math.factorial(2 * COS_DEGREE + 2) * 1.000001 + (_gamma(2 * COS_DEGREE) + U) * _COSH * 1.000001 + _SINH_RATIO * U * RMAX * RMAX * 1.000001


def _cos_error(b: tuple[float, ...]) -> float:
    """Return E_P + the Horner, y~ and product terms of step 5 for the polynomial b."""
    s_b, s_b1 = rs_cos.eval_constants(b)
    return rs_cos.poly_error(b) + _gamma(2 * (len(b) - 1)) * s_b + U * s_b1 / 4 + 2.03 * U


INFLATE = 1 + 1e-9
T0_CELL = 256.0


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


_E_ARG = 0.5 * 2.5e-16 + _TWO_PI * 1.6 * U * (1 + U) + 2 * U * math.pi  # C0's cosine arguments (step 7)
_C0_E_N = E_COS + _E_ARG  # numerator cosine: Taylor + argument error
_C0_E_D = E_COS + _E_ARG  # denominator cosine


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
        e_n, e_d = _C0_E_N, _C0_E_D
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


class Point(NamedTuple):
    """One evaluation point: exact t = num/den, the radius around it where the true point lies, theta if known.

    A NamedTuple (immutable, typed) rather than a dataclass: a chunk builds one per sample point.

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
        """Return the base at S = s_base covering |h| <= h_abs (0 < S - h_abs; step 2 holds for every t > 0)."""
        k_terms, tail = 2, 1.0
        for k_terms in range(2, 16):
            tail = _ipow(h_abs / (s_base - h_abs), k_terms + 1) * (1 + math.pi * (s_base + h_abs) / 4) / (k_terms + 1) * 1.000001
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
        coef = self.coef
        poly = np.full_like(hs, coef[-1])
        for c in coef[-2::-1]:
            poly = poly * hs + c
        poly = poly * hs
        return self.b_f + poly, self.error

    @cached_property
    def deriv(self) -> tuple[float, ...]:
        """Return the coefficients of theta~'s derivative in h (k c~_k), for Newton steps on Gram points."""
        return tuple((n + 1) * c for n, c in enumerate(self.coef))

    @cached_property
    def error(self) -> float:
        """Return the bound of step 2 on |theta~ - theta| for every |h| <= h_abs (computed once)."""
        coef, h_abs = self.coef, self.h_abs
        absum = sum(abs(c) * _ipow(h_abs, k + 1) for k, c in enumerate(coef)) * 1.000001
        dsum = sum((k + 1) * abs(c) * _ipow(h_abs, k) for k, c in enumerate(coef)) * 1.000001
        csum = sum(e * _ipow(h_abs, k + 1) for k, e in enumerate(self.e_coef)) * 1.000001
        return (self.e_b + _gamma(2 * len(coef)) * absum + csum + dsum * 3.02 * U * h_abs + self.tail
                + U * (abs(self.b_f) + absum) * 2)


def theta_grid(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the bases (S, H) that serve the t: S a multiple of G = min(256, 2^k <= t/64), |t - S| <= G/2 < H.

    Exact float operations only (frexp, a power-of-two division, rint), so the choice is the same
    on every build; the base depends on t alone, so points share (cached) bases across chunks and
    a point's theta does not depend on which other points came with it.
    """
    _, e = np.frexp(t / 64)
    g = np.where(t >= 16384, 256.0, np.ldexp(1.0, np.maximum(e - 1, 0)))
    return np.rint(t / g) * g, g / 2 + 1.0


def theta_groups(t: np.ndarray) -> dict[tuple[int, float], np.ndarray]:
    """Return the indices of the t grouped by their theta base (S, H)."""
    s_b, h_b = theta_grid(t)
    keys = s_b + h_b / 1024  # exact and one-to-one: S is an integer, H - 1 a power of two <= 128
    if len(keys) and bool((keys[1:] >= keys[:-1]).all()):  # sorted t (a chunk's Gram points): runs, same result
        cut = (np.flatnonzero(keys[1:] != keys[:-1]) + 1).tolist()
        return {(int(s_b[a]), float(h_b[a])): np.arange(a, b) for a, b in zip([0] + cut, cut + [len(keys)])}
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(inv, kind="stable")
    parts = np.split(order, np.searchsorted(inv[order], np.arange(1, len(uniq))))
    return {(int(s_b[f]), float(h_b[f])): idx for f, idx in zip(first.tolist(), parts)}


@lru_cache(maxsize=256)
def theta_base(s_base: int, h_abs: float) -> ThetaBase:
    """Return ThetaBase.at(s_base, h_abs), once per process."""
    return ThetaBase.at(s_base, h_abs)


def _theta_rational(pts: list[Point], t_f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return theta~(t) (mod 2pi, not reduced) and its error bound for rational points (step 2); t_f: floats of t."""
    out, err = np.empty(len(pts)), np.empty(len(pts))
    for (s_base, h_abs), idx in theta_groups(t_f).items():
        hs = np.array([pts[q].minus(s_base) for q in idx.tolist()])  # relative error <= 3.01 u; |h| < h_abs
        out[idx], err[idx] = theta_base(s_base, h_abs).eval(hs)
    return out, err


@dataclass(frozen=True)
class Points:
    """A chunk's points as arrays: t = base + off + e, |e| <= e_off, theta(t)/(2 pi) = theta_turn + e' (mod 1), |e'| <= e_theta.

    Attributes:
        base: integers (as floats, < 2^53); off: floats; e_off: bounds on |t - base - off| (step 1).
        r_t: for a Gram point, |g_m - t| <= r_t (the value sought is Z(g_m)); 0 for rationals.
        theta_turn, e_theta: theta(g_m)/(2 pi) = m/2 exactly for Gram points; step 2 for rationals.
    """

    base: np.ndarray
    off: np.ndarray
    e_off: np.ndarray
    r_t: np.ndarray
    theta_turn: np.ndarray
    e_theta: np.ndarray

    @classmethod
    def of(cls, pts: Sequence[Point]) -> "Points":
        """Return the arrays of Point objects (rationals get theta from ThetaBase, Gram points m/2)."""
        base = [p.num // p.den for p in pts]
        off = np.array([p.minus(b) for p, b in zip(pts, base)])  # in [0, 1), relative error <= 3.01 u
        base_f = np.array(base, dtype=float)
        t_f = base_f + off  # the same float enclose_points serves by
        gram = [p.gram for p in pts]
        th, e_th = np.array([0.0 if m is None else 0.5 * (m % 2) for m in gram]), np.zeros(len(pts))
        rat = np.nonzero(np.array([m is None for m in gram], dtype=bool) & (t_f >= RS_MIN_T))[0]
        if len(rat):
            theta, e_theta = _theta_rational([pts[k] for k in rat.tolist()], t_f[rat])
            th[rat] = theta * INV_TWO_PI  # step 2: to turns
            e_th[rat] = np.abs(theta) * (1.01 * U * INV_TWO_PI + E_INV_TWO_PI) + e_theta * 0.16
        return cls(base_f, off, 3.01 * U * off, np.array([p.r_t for p in pts]), th, e_th)

    @staticmethod
    def concat(parts: Sequence["Points"]) -> "Points":
        """Return the points of all parts, in order."""
        return Points(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("base", "off", "e_off", "r_t", "theta_turn", "e_theta")))

    def __len__(self) -> int:
        return len(self.base)


def enclose(points: Sequence[Point]) -> list[Enclosure | None]:
    """Return an Enclosure of Z at every point, or None where this path does not apply (t < 1000, a ~ integer)."""
    value, bound, ok = enclose_points(Points.of(points))
    return [Enclosure(float(v), float(b)) if k else None for v, b, k in zip(value, bound, ok)]


def enclose_points(pts: Points) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (value, bound, ok): |Z(t) - value| <= bound wherever ok (steps 1-8); ok is False outside [RS_MIN_T, T_MAX)."""
    n = len(pts)
    value, bound, ok = np.zeros(n), np.full(n, np.inf), np.zeros(n, dtype=bool)
    t_f = pts.base + pts.off  # relative error <= 1.01 u (step 1)
    use = np.nonzero((t_f >= RS_MIN_T) & (t_f < T_MAX))[0]
    if not len(use):
        return value, bound, ok
    use = use[np.argsort(t_f[use], kind="stable")]  # nearby t share a block's N (any order is valid)
    t_f, base, off, e_off, r_t = t_f[use], pts.base[use], pts.off[use], pts.e_off[use], pts.r_t[use]
    theta, e_theta = pts.theta_turn[use], pts.e_theta[use]
    t0, h0, e_h, a, d_a, frac, ok_u, n_i, q, gab, x_max = _steps_before_the_sum(t_f, base, off, e_off, r_t, theta)
    if float((x_max + np.abs(h0) * 2).max()) > 2.0**50:
        raise ValueError("phase out of the range this module's proof covers")
    main, e_cos = np.empty(len(use)), np.empty(len(use))
    cells = np.unique(t0)
    for lo, hi, cell in zip(np.searchsorted(t0, cells, "left"), np.searchsorted(t0, cells, "right"), cells.tolist()):
        # Everything here depends on the cell alone: A_n, the cosine degree, so a point's value is a
        # function of the point (not of the chunk it came with, nor of how workers split it).
        n_cell = int(math.sqrt((cell + T0_CELL) / (2 * math.pi))) + 1
        poly = rs_cos.polynomial_for(n_cell, GABCKE_C0 / ((n_cell + 1) * math.sqrt(n_cell + 1)))
        a_n = rs_sum.base_phases(int(cell), n_cell)
        main[lo:hi] = 2.0 * rs_sum.main_sums(theta[lo:hi], h0[lo:hi], n_i[lo:hi], a_n, poly)
        e_cos[lo:hi] = _cos_error(poly)
    value[use], bound[use] = _steps_after_the_sum(main, e_cos, t0, h0, e_h, r_t, e_theta, x_max, d_a, frac, ok_u, n_i, q, gab)
    ok[use] = ok_u
    return value, bound, ok


def _steps_before_the_sum(t_f, base, off, e_off, r_t, theta) -> tuple[np.ndarray, ...]:
    """Return (T0, h0~, e_h, a~, d_p, p~, ok, N, q~, Gabcke term, X) per point (steps 1 and 7), compiled when possible."""
    if rs_point_jit.available():
        out = np.empty((11, len(t_f)))
        if rs_point_jit.before(t_f, base, off, e_off, r_t, theta, GABCKE_C0, out):
            t0, h0, e_h, a, d_a, frac, ok_u, n_i, q, gab, x_max = out
            return t0, h0, e_h, a, d_a, frac, ok_u != 0, n_i.astype(np.int64), q, gab, x_max
    t0 = np.floor(t_f / T0_CELL) * T0_CELL  # step 1: T0 from t alone (a multiple of 256), exact
    h0 = (base - t0) + off  # base - t0: an exact integer; one rounding
    e_h = 1.01 * U * np.abs(h0) + e_off
    # Step 7 (a, N, p) first: N_i fixes how many terms each point takes.
    a = np.sqrt(t_f * INV_TWO_PI)
    d_a = 4.1 * U * a + r_t / (4 * math.pi * a) * 1.01
    n_pt = np.floor(a)
    frac = a - n_pt
    ok_u = (frac > 4 * d_a) & (frac < 1 - 4 * d_a)
    n_i = np.maximum(n_pt.astype(np.int64), 1)
    q = 1.0 / np.sqrt(a)
    gab = GABCKE_C0 * (q * q * q) * (1 + 20 * U)  # IEEE products, not libm's pow
    return t0, h0, e_h, a, d_a, frac, ok_u, n_i, q, gab, np.abs(theta) + 1.0


def _steps_after_the_sum(main, e_cos, t0, h0, e_h, r_t, e_theta, x_max, d_a, frac, ok_u, n_i, q, gab) -> tuple[np.ndarray, np.ndarray]:
    """Return (value, bound) per point from the main sum and the inputs (steps 3-8), compiled when possible."""
    tb = rs_sum.TABLES
    if rs_point_jit.available():
        out = np.empty((2, len(main)))
        if rs_point_jit.after(main, e_cos, t0, h0, e_h, r_t, e_theta, x_max, d_a, frac, ok_u, n_i, q, gab,
                              (tb.ell, tb.w_cum, tb.r_w), (INFLATE, _C0_E_N, _C0_E_D, _COS_ARR, _SINC_ARR), out):
            return out[0], out[1]
    # Steps 3-6: phase error, term error, sum error.
    ell_max = tb.ell[n_i - 1] * (1 + 2 * U)
    e_a = U + 2.0 * t0 * 2.0**-rs_sum.FIXED_P
    e_psi = e_theta + e_a + 2.01 * U * x_max + ell_max * (1.03 * (e_h + r_t) + 4.03 * U * np.abs(h0))
    e_term = e_cos + 2 * math.pi * e_psi * (1 + 2 * U)
    w_sum = tb.w_cum[n_i - 1]
    e_main = 2 * (rs_sum.gamma(n_i) * w_sum * (1 + e_term) + w_sum * e_term + n_i * tb.r_w) + U * np.abs(main)
    # Step 7: the C0 term; step 8: Gabcke's remainder and the final addition.
    c0, e_c0 = _c0(np.where(ok_u, frac, 0.5))
    c0_term = np.where(n_i % 2 == 1, 1.0, -1.0) * q * c0
    e_c0t = q * (e_c0 + 130 * d_a) + 6.01 * U * q * np.abs(c0)
    return main + c0_term, (e_main + e_c0t + gab + U * (np.abs(main) + np.abs(c0_term))) * INFLATE
