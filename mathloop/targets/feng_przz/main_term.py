"""The main term c(P₁..P_K, Q, R, θ) of the Feng mollifier, exactly: c = Σ_k w_k·e^{c₀,k}.

c = Σ_{ℓ₁,ℓ₂} Q(−∂_A)Q(−∂_B) M_{ℓ₁ℓ₂}(A, B) at A = B = −R, where
M = [F(A, B) − e^{−A−B}·F(−B, −A)]/(A + B)  (the diagonal and the T^{−α−β} off-diagonal terms) and
F(A, B) = θ^{−(ℓ₁+ℓ₂−2)} Σ_{(p,q,r,c) ∈ kernel} c · ∫₀^θ x^{n−1}/(n−1)! Φ₁(θ−x) Φ₂(θ−x) dx, n = −r
(docs/przz.md, steps 1–5). Every quantity is a rational or a rational times e^{rational}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from mathloop.targets.feng_przz.expseries import (
    Series,
    _add,
    exp_neg_ab,
    integrate_x,
    inv_a_plus_b,
    mul_trunc,
    phi,
    series_mul,
)
from mathloop.targets.feng_przz.laurent import laurent_terms

Poly = Sequence[Fraction]


@dataclass(frozen=True)
class ExpSum:
    """c = Σ coeff·e^{exponent}, exactly.

    Attributes:
        terms: ((exponent, coefficient), ...) sorted by exponent, rationals, no zero coefficient.
    """

    terms: tuple[tuple[Fraction, Fraction], ...]


def _F(P1: Poly, P2: Poly, l1: int, l2: int, theta: Fraction, sx, sy, deg: int) -> Series:
    """Return F for the pair (ℓ₁, ℓ₂) with side shifts sx (P₁ side, X = β+s) and sy (P₂ side)."""
    out: Series = {}
    for p, q, r, c in laurent_terms(l1, l2):
        n = -r
        f = mul_trunc(phi(P1, p, sx, theta, deg), phi(P2, q, sy, theta, deg), deg)
        f = {(i + n - 1, a, b, k, c0): v / math.factorial(n - 1) for (i, a, b, k, c0), v in f.items()}
        for key, v in integrate_x(f, theta).items():
            _add(out, key, c * v)
    scale = theta ** (l1 + l2 - 2)
    return {k: v / scale for k, v in out.items()}


def pair_series(P1: Poly, P2: Poly, l1: int, l2: int, deg: int, R: Fraction, theta: Fraction) -> Series:
    """Return M_{ℓ₁ℓ₂} around A = B = −R as {(a, b, c₀): v} (coefficient of α^a β^b e^{c₀}), truncated at deg.

    c_{ℓ₁ℓ₂} = Σ Q_a Q_b (−1)^{a+b} a! b! v e^{c₀} for any Q of degree <= deg (`apply_q`), so the
    series serves every Q at once (the proposer's quadratic form in Q).

    Raises:
        ValueError: R or θ not positive.
    """
    if R <= 0 or theta <= 0:
        raise ValueError("main term needs R > 0 and θ > 0")
    # F(A, B): X-side shift B = −R + β, Y-side A = −R + α;  F(−B, −A): X-side −A = R − α, Y-side −B = R − β
    F1 = _F(P1, P2, l1, l2, theta, (-R, 1, 1), (-R, 0, 1), deg)
    F2 = _F(P1, P2, l1, l2, theta, (R, 0, -1), (R, 1, -1), deg)
    num = dict(F1)
    for key, v in series_mul(exp_neg_ab(R, deg), F2, deg).items():
        _add(num, key, -v)
    return series_mul(num, inv_a_plus_b(R, deg), deg)


def apply_q(M: Series, Q: Poly) -> ExpSum:
    """Return Q(−∂_A)Q(−∂_B)M at the evaluation point, as an exact ExpSum."""
    out: dict[Fraction, Fraction] = {}
    for (a, b, c0), v in M.items():
        if a < len(Q) and b < len(Q):
            w = Q[a] * Q[b] * (-1) ** (a + b) * math.factorial(a) * math.factorial(b)
            _add(out, c0, w * v)
    return ExpSum(tuple(sorted(out.items())))


def pair_main_term(P1: Poly, P2: Poly, l1: int, l2: int, Q: Poly, R: Fraction, theta: Fraction) -> ExpSum:
    """Return c_{ℓ₁ℓ₂} = Q(−∂_A)Q(−∂_B)M_{ℓ₁ℓ₂} at A = B = −R (P₁ on the ψ side, P₂ on ψ̄).

    Raises:
        ValueError: R or θ not positive.
    """
    return apply_q(pair_series(P1, P2, l1, l2, max(len(Q) - 1, 0), R, theta), Q)


def main_term(pieces: Sequence[tuple[int, Poly]], Q: Poly, R: Fraction, theta: Fraction) -> ExpSum:
    """Return c for Feng's mollifier with the given pieces (k, P_k), exactly.

    Piece (k, P) has coefficients μ(n)·Σ_{p₁⋯p_k | n} log p₁⋯log p_k / log^k y · P(log(y/n)/log y)
    (Feng; PRZZ (3.x)), which to leading order is (−1)^k (μ⋆Λ^{⋆k})(n)/log^k y: kernel index
    ℓ = k + 1 with the sign (−1)^k folded into P. PRZZ's K = 3 mollifier is [(0, P₁), (2, P₂), (3, P₃)]
    (the k = 1 piece is Conrey's: μ⋆Λ = −μ·log, docs/przz.md step 6).

    Raises:
        ValueError: repeated or negative k, R or θ not positive.
    """
    ks = [k for k, _ in pieces]
    if len(set(ks)) != len(ks) or min(ks, default=0) < 0:
        raise ValueError(f"piece log-counts must be distinct and >= 0, got {ks}")
    signed = [(k + 1, tuple(p * (-1) ** k for p in P)) for k, P in pieces]
    out: dict[Fraction, Fraction] = {}
    for i, (l1, P1) in enumerate(signed):
        for j, (l2, P2) in enumerate(signed):
            if j < i:
                continue
            mult = 1 if i == j else 2  # c_{ℓ₁ℓ₂} = c_{ℓ₂ℓ₁}: the form is real and symmetric
            for c0, v in pair_main_term(P1, P2, l1, l2, Q, R, theta).terms:
                _add(out, c0, mult * v)
    return ExpSum(tuple(sorted(out.items())))
