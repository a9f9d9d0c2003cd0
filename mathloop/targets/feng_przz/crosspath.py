"""A second, independent evaluation of the Feng/PRZZ main term c(P, Q, R, θ) by quadrature.

It shares no code with `laurent.py`, `expseries.py` or `main_term.py`, and no step of their derivation
beyond the twisted second moment itself (docs/przz.md, "A second path"):

1. **Kernel from an exponential generating function**, not from (1/ζ)(−ζ'/ζ)^m. On squarefree n,
   μ(n)Σ_{p₁⋯p_k|n, distinct, ordered} ∏ log p_i = μ(n)·k!·[t^k]∏_{p|n}(1 + t·log p), so the pair
   (k₁, k₂) is k₁!k₂![t^{k₁}w^{k₂}] of an Euler product whose prime sums give, to leading order,
   (XY/Z)·exp(t(1/Z − 1/X)/θ + w(1/Z − 1/Y)/θ + tw/(θZ)²), X = B+S, Y = A+U, Z = S+U (PRZZ's pieces
   with their own sign: no (−1)^k folding).
2. **PRZZ's (u, t) form** for the A, B dependence: X = B+S as (1/θ)∂_x e^{θxX} at x = 0, 1/X^k and
   1/Z^n as Laplace integrals, so every term is e^{−A·b' − B·a'}; the diagonal minus the mirror term over
   A + B is then e^{−Ab'−Ba'}·λ∫₀¹e^{−(A+B)λt}dt with λ = 1 − a' − b' (PRZZ's difference-quotient
   identity), and Q(−∂_A)Q(−∂_B) turns it into Q(b'+λt)Q(a'+λt)e^{R(a'+b'+2λt)} at A = B = −R.
3. **Numbers by tensor Gauss–Legendre quadrature** in (z, a, b, t) in numpy long double (about 18
   digits), x and y carried as dual numbers (x² = y² = 0); every ordered pair of pieces is summed
   (no symmetry factor assumed).

A cross-check, not a proof: the certificate is the exact path's Arb ball; this path only confirms that
the exact path computes the formula it claims, as a function of R. `perturb` deliberately breaks one
step (the cross term's sign, the difference quotient's factor λ, or the pieces' logarithm count) so that the tests can show that this comparison would catch such a fault.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

import mpmath
import numpy as np

DTYPE = np.longdouble
PERTURBATIONS = ("none", "lambda-one", "cross-term-sign", "pieces-0-1-2")


@lru_cache(maxsize=None)
def kernel(k1: int, k2: int, perturb: str = "none") -> tuple[tuple[int, int, int, Fraction], ...]:
    """Return θ^{k₁+k₂}·k₁!k₂![t^{k₁}w^{k₂}] (XY/Z)e^{t(1/Z−1/X) + w(1/Z−1/Y) + tw/Z²} as terms (p, q, r, c) of X^pY^qZ^r.

    >>> kernel(0, 0)
    ((1, 1, -1, Fraction(1, 1)),)
    >>> kernel(1, 0)
    ((0, 1, -1, Fraction(-1, 1)), (1, 1, -2, Fraction(1, 1)))
    """
    sign_tw = -1 if perturb == "cross-term-sign" else 1
    out: dict[tuple[int, int, int], Fraction] = {}
    for m in range(min(k1, k2) + 1):
        pre = Fraction(math.factorial(k1) * math.factorial(k2),
                       math.factorial(m) * math.factorial(k1 - m) * math.factorial(k2 - m)) * sign_tw**m
        j1, j2 = k1 - m, k2 - m
        for i1 in range(j1 + 1):  # (1/Z − 1/X)^{j1} = Σ C(j1, i1)(−1)^{i1} X^{−i1} Z^{−(j1−i1)}
            for i2 in range(j2 + 1):
                c = pre * math.comb(j1, i1) * math.comb(j2, i2) * (-1) ** (i1 + i2)
                key = (1 - i1, 1 - i2, -1 - (j1 - i1) - (j2 - i2) - 2 * m)
                out[key] = out.get(key, Fraction(0)) + c
    return tuple(sorted((p, q, r, c) for (p, q, r), c in out.items() if c))


# dual numbers in x and y with x² = y² = 0: a tuple (value, ∂x, ∂y, ∂x∂y) of arrays
def _dmul(u, v):
    return (u[0] * v[0], u[0] * v[1] + u[1] * v[0], u[0] * v[2] + u[2] * v[0],
            u[0] * v[3] + u[1] * v[2] + u[2] * v[1] + u[3] * v[0])


def _dexp(u):
    e = np.exp(u[0])
    return (e, e * u[1], e * u[2], e * (u[3] + u[1] * u[2]))


def _dpoly(coeffs: Sequence, u):
    """Return Σ c_j u^j (Horner) for a dual u."""
    zero = u[0] * 0
    acc = (zero, zero, zero, zero)
    for c in reversed(coeffs):
        acc = _dmul(acc, u)
        acc = (acc[0] + c, acc[1], acc[2], acc[3])
    return acc


@lru_cache(maxsize=None)
def _nodes(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return Gauss–Legendre nodes and weights on [0, 1] at long-double precision (computed by mpmath at 40 digits)."""
    with mpmath.workdps(40):
        xs, ws = [], []
        for k in range(1, n + 1):  # Newton on P_n from the classical start; P_n' = n(xP_n − P_{n−1})/(x² − 1)
            x = mpmath.cos(mpmath.pi * (k - mpmath.mpf(1) / 4) / (n + mpmath.mpf(1) / 2))
            for _ in range(100):
                p = mpmath.legendre(n, x)
                dp = n * (x * p - mpmath.legendre(n - 1, x)) / (x**2 - 1)
                dx = p / dp
                x -= dx
                if abs(dx) < mpmath.mpf(10) ** -38:
                    break
            dp = n * (x * mpmath.legendre(n, x) - mpmath.legendre(n - 1, x)) / (x**2 - 1)
            xs.append((1 - x) / 2)
            ws.append(1 / ((1 - x**2) * dp**2))
        to = lambda v: np.array([DTYPE(mpmath.nstr(t, 30)) for t in v], dtype=DTYPE)  # noqa: E731
        return to(xs), to(ws)


def _f(q) -> DTYPE:
    q = Fraction(q)
    return DTYPE(q.numerator) / DTYPE(q.denominator)


def _monomial(P1, P2, Q, p: int, q: int, r: int, R, th, n: int, perturb: str) -> DTYPE:
    """Return the (u, t) integral of one kernel monomial X^pY^qZ^r for the ordered pair (P₁ on X, P₂ on Y)."""
    xg, wg = _nodes(n)
    nz = -r
    # axes: z, a, b, t (an unused axis has one node with weight 1 at 0)
    z = (th * xg)[:, None, None, None]
    wz = (th * wg * (th * xg) ** (nz - 1) / math.factorial(nz - 1))[:, None, None, None]
    one = np.ones(1, dtype=DTYPE)
    span = th - z  # the P's support: z + a < θ, z + b < θ

    def side(pp, axis):
        if pp >= 0:
            return np.zeros(1, dtype=DTYPE).reshape([1] * 4), one.reshape([1] * 4)
        k = -pp
        shape = [1, 1, 1, 1]
        shape[axis] = n
        s = xg.reshape(shape)
        return span * s, span * wg.reshape(shape) * (span * s) ** (k - 1) / math.factorial(k - 1)

    a, wa = side(p, 1)
    b, wb = side(q, 2)
    t = xg.reshape(1, 1, 1, n)
    wt = wg.reshape(1, 1, 1, n)
    zero = z * 0 * a * b * t
    x_on, y_on = DTYPE(1 if p == 1 else 0), DTYPE(1 if q == 1 else 0)
    # P1(1 + x − (z+a)/θ), P2(1 + y − (z+b)/θ); a' = a − θx, b' = b − θy (x only when p = 1, y only when q = 1)
    u1 = (1 - (z + a) / th + zero, x_on + zero, zero, zero)
    u2 = (1 - (z + b) / th + zero, zero, y_on + zero, zero)
    ap = (a + zero, -th * x_on + zero, zero, zero)
    bp = (b + zero, zero, -th * y_on + zero, zero)
    lam = (1 - ap[0] - bp[0], -ap[1], -bp[2], zero)
    lt = tuple(c * t for c in lam)
    qa, qb = _dpoly(Q, tuple(x + y for x, y in zip(ap, lt))), _dpoly(Q, tuple(x + y for x, y in zip(bp, lt)))
    expo = tuple(R * (x + y + 2 * w) for x, y, w in zip(ap, bp, lt))
    if perturb == "lambda-one":  # drop the factor λ = log(N^{x+y}T)/log T of the difference quotient
        lam = (lam[0] * 0 + 1, zero, zero, zero)
    f = _dmul(_dmul(_dpoly(P1, u1), _dpoly(P2, u2)), _dmul(_dmul(lam, _dmul(qa, qb)), _dexp(expo)))
    weight = wz * wa * wb * wt
    comp = (1 if p == 1 else 0) + (2 if q == 1 else 0)  # which dual component: value, ∂x, ∂y, ∂x∂y
    scale = th ** ((p == 1) + (q == 1))
    return np.sum(f[comp] * weight) / scale


def c_quadrature(pieces: Sequence[tuple[int, Sequence]], Q: Sequence, R, theta, n: int = 12,
                 perturb: str = "none") -> DTYPE:
    """Return c for Feng's pieces [(k, P_k)] (k prime logarithms, P in monomial coefficients) by quadrature.

    n Gauss–Legendre nodes per axis: at PRZZ's degrees n = 12 agrees with the exact path to ~10⁻¹⁷.

    Raises:
        ValueError: an unknown perturbation, R or θ not positive, or a P with P(0) ≠ 0 (the support
            1_{z+a<θ} is differentiated in x only because P vanishes at its edge).
    """
    if any(P and Fraction(P[0]) != 0 for _, P in pieces):
        raise ValueError("every P must vanish at 0")
    if perturb not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturb!r}; expected one of {PERTURBATIONS}")
    if Fraction(R) <= 0 or Fraction(theta) <= 0:
        raise ValueError("c needs R > 0 and θ > 0")
    if perturb == "pieces-0-1-2":  # the wrong convention: the extra pieces read as 1 and 2 logarithms
        pieces = [(i, P) for i, (_, P) in enumerate(pieces)]
    th, RR = _f(theta), _f(R)
    Qf = [_f(c) for c in Q]
    total = DTYPE(0)
    for k1, P1 in pieces:
        for k2, P2 in pieces:
            P1f, P2f = [_f(c) for c in P1], [_f(c) for c in P2]
            pair = DTYPE(0)
            for p, q, r, c in kernel(k1, k2, perturb):
                pair += _f(c) * _monomial(P1f, P2f, Qf, p, q, r, RR, th, n, perturb)
            total += pair / th ** (k1 + k2)
    return total
