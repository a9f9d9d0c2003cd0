"""Exact closed form c = a + b·e^{2R} of the Levinson–Conrey constant, in rationals (no quadrature).

c(P, Q, R, θ) = 1 + (1/θ) ∫₀¹∫₀¹ e^{2Rv} (P'(u)Q(v) + θ·P(u)(Q'(v) + R·Q(v)))² du dv.

Expanding the square separates the variables: the u-integrals ∫P'², ∫P'P, ∫P² are rationals and
every v-integral is ∫₀¹ v^k e^{λv} dv = α_k·e^λ + β_k with α_k, β_k rational (λ = 2R), so
c = a + b·e^{2R} exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from mathloop.targets.polynomial import Poly, add, derivative, int_mul, integral_01, mul, scale


@dataclass(frozen=True)
class ClosedForm:
    """c = a + b·e^{lam}.

    Attributes:
        a, b: the exact rationals of c = a + b·e^{lam}.
        lam: the exponent 2R.
        theta: the mollifier length θ the constant was computed for.
    """

    a: Fraction
    b: Fraction
    lam: Fraction
    theta: Fraction


def exp_moments(lam: Fraction, k_max: int) -> tuple[list[Fraction], list[Fraction]]:
    """Return (α, β) with ∫₀¹ v^k e^{λv} dv = α_k·e^λ + β_k for k = 0..k_max (λ ≠ 0).

    Integration by parts gives I_k = e^λ/λ − (k/λ)·I_{k−1}, I_0 = (e^λ − 1)/λ, which is the
    issue's finite sum e^λ Σ_j (−1)^j k!/(k−j)! λ^{−(j+1)} − (−1)^k k!/λ^{k+1}, term by term.

    >>> exp_moments(Fraction(2), 1)
    ([Fraction(1, 2), Fraction(1, 4)], [Fraction(-1, 2), Fraction(1, 4)])
    """
    inv = 1 / lam
    alpha, beta = [inv], [-inv]
    for k in range(1, k_max + 1):
        alpha.append(inv - k * inv * alpha[-1])
        beta.append(-k * inv * beta[-1])
    return alpha, beta


def g_polynomial(P: Poly, Q: Poly, R: Fraction, theta: Fraction) -> Poly:
    """Return g(v) = ∫P'²·Q² + 2θ∫P'P·Q·(Q'+RQ) + θ²∫P²·(Q'+RQ)², the u-integrated square."""
    dP = derivative(P)
    i_pp = integral_01(mul(dP, dP))
    i_pq = integral_01(mul(dP, P))
    i_qq = integral_01(mul(P, P))
    B = add(derivative(Q), scale(Q, R))
    return add(add(scale(mul(Q, Q), i_pp), scale(mul(Q, B), 2 * theta * i_pq)), scale(mul(B, B), theta * theta * i_qq))


def closed_form_reference(P: Poly, Q: Poly, R: Fraction, theta: Fraction) -> ClosedForm:
    """Return the exact a, b with c = a + b·e^{2R}, computed plainly in Fractions (slow reference).

    Raises:
        ValueError: R or θ is not positive (admissibility is checked before this is called).
    """
    if R <= 0 or theta <= 0:
        raise ValueError("closed form needs R > 0 and θ > 0")
    lam = 2 * R
    g = g_polynomial(P, Q, R, theta)
    alpha, beta = exp_moments(lam, len(g) - 1)
    a = 1 + sum((x * y for x, y in zip(g, beta)), Fraction(0)) / theta
    b = sum((x * y for x, y in zip(g, alpha)), Fraction(0)) / theta
    return ClosedForm(a=a, b=b, lam=lam, theta=theta)


def _common(p: Sequence[Fraction]) -> tuple[list[int], int]:
    """Return (integer numerators, common denominator d) with p = numerators/d."""
    d = math.lcm(*(x.denominator for x in p))
    return [x.numerator * (d // x.denominator) for x in p], d


def _integral_product(p: Sequence[int], q: Sequence[int]) -> Fraction:
    """Return ∫₀¹ p·q for integer polynomials, with a single reduction at the end."""
    c = int_mul(p, q)
    L = math.lcm(*range(1, len(c) + 1))
    return Fraction(sum(x * (L // (m + 1)) for m, x in enumerate(c)), L)


def closed_form(P: Poly, Q: Poly, R: Fraction, theta: Fraction) -> ClosedForm:
    """Return the exact a, b with c = a + b·e^{2R}, in integer arithmetic over common denominators.

    Same algebra as closed_form_reference (the tests hold them equal), ~10× faster: with
    P = NP/dp, Q = NQ/dq, R = r/s, B = Q' + RQ = NB/(s·dq) and λ = 2r/s, the moments are
    α_k = A_k/(2r)^{k+1}, β_k = B_k/(2r)^{k+1} with A_k = s(2r)^k − k·s·A_{k−1}, B_k = −k·s·B_{k−1}.

    Raises:
        ValueError: R or θ is not positive (admissibility is checked before this is called).
    """
    if R <= 0 or theta <= 0:
        raise ValueError("closed form needs R > 0 and θ > 0")
    NP, dp = _common(P)
    NQ, dq = _common(Q)
    r, s = R.numerator, R.denominator
    dNP = [i * x for i, x in enumerate(NP)][1:] or [0]
    dNQ = [i * x for i, x in enumerate(NQ)][1:] or [0]
    i_pp = _integral_product(dNP, dNP) / (dp * dp)
    i_pq = _integral_product(dNP, NP) / (dp * dp)
    i_qq = _integral_product(NP, NP) / (dp * dp)
    NB = [s * (dNQ[i] if i < len(dNQ) else 0) + r * x for i, x in enumerate(NQ)]
    # g·s²·dq² = (i_pp·s²)·NQ² + (2θ·i_pq·s)·NQ·NB + (θ²·i_qq)·NB², weights over one denominator W
    w = (i_pp * s * s, 2 * theta * i_pq * s, theta * theta * i_qq)
    Wn, W = _common(w)
    G = [0] * (2 * len(NQ) - 1)
    for weight, poly in zip(Wn, (int_mul(NQ, NQ), int_mul(NQ, NB), int_mul(NB, NB))):
        for k, x in enumerate(poly):
            G[k] += weight * x
    K = len(G) - 1
    two_r = 2 * r
    A, Bm = [s], [-s]
    for k in range(1, K + 1):
        A.append(s * two_r**k - k * s * A[-1])
        Bm.append(-k * s * Bm[-1])
    pw = [two_r ** (K - k) for k in range(K + 1)]
    den = two_r ** (K + 1) * W * s * s * dq * dq
    b = Fraction(sum(g * x * y for g, x, y in zip(G, A, pw)), den) / theta
    a = 1 + Fraction(sum(g * x * y for g, x, y in zip(G, Bm, pw)), den) / theta
    return ClosedForm(a=a, b=b, lam=2 * R, theta=theta)
