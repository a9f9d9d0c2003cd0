"""The exact closed form c = a + b·e^{2R} against the issue's references and independent integrals."""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mathloop.targets.polynomial import reflect
from mathloop.targets.levinson_conrey.closed_form import closed_form, closed_form_reference, exp_moments

SEED_P, SEED_Q = (F(0), F(1)), (F(1), F(-1))


def c_and_kappa(cf, R, dps=50):
    with mpmath.workdps(dps):
        c = mpmath.mpf(cf.a.numerator) / cf.a.denominator + mpmath.mpf(cf.b.numerator) / cf.b.denominator * mpmath.exp(
            2 * mpmath.mpf(R.numerator) / R.denominator)
        return c, 1 - mpmath.log(c) / (mpmath.mpf(R.numerator) / R.denominator)


def random_admissible(rng: random.Random, dP: int, dQ_odd: int) -> tuple[tuple[F, ...], tuple[F, ...], F]:
    """Return a random admissible (P, Q, R): P(0)=0, P(1)=1, Q(0)=1, Q symmetric."""
    high = [F(rng.randint(-200, 200), rng.randint(1, 100)) for _ in range(dP - 1)]
    P = (F(0), 1 - sum(high, F(0)), *high)
    d = {k: F(rng.randint(-100, 100), rng.randint(1, 50)) for k in range(1, dQ_odd + 1, 2)}
    Q = [F(0)] * (dQ_odd + 1)
    Q[0] = 1 - sum(d.values(), F(0))
    for k, v in d.items():  # Q = 1 − Σd + Σ d_k (1 − 2x)^k
        y = reflect(tuple([F(0)] * k + [F(1)]))  # (1 − x)^k
        for j, coef in enumerate(y):
            Q[j] += v * coef * 2**j
    return P, tuple(Q), F(rng.randint(1, 500), rng.randint(1, 100))


def test_reproduces_the_issue_closed_form_for_the_seed_at_theta_one_half():
    cf = closed_form(SEED_P, SEED_Q, F(13, 10), F(1, 2))
    assert (cf.a, cf.b) == (F(-302021, 263640), F(6845, 26364))
    c, kappa = c_and_kappa(cf, F(13, 10))
    assert mpmath.nstr(c, 23) == "2.3500677761184407059856"
    assert mpmath.nstr(kappa, 33) == "0.342735254891045445088401631665786"


def test_reproduces_levinsons_best_linear_q():
    # Q = 1 − q·x with q ≈ 1.032175, R ≈ 1.246176 at θ = 1/2: Levinson's published 0.3474.
    cf = closed_form(SEED_P, (F(1), F(-1032175, 10**6)), F(1246176, 10**6), F(1, 2))
    _, kappa = c_and_kappa(cf, F(1246176, 10**6))
    assert abs(kappa - mpmath.mpf("0.3474392")) < 1e-7


def test_exp_moments_match_the_issue_finite_sum_formula():
    lam = F(7, 3)
    alpha, beta = exp_moments(lam, 8)
    for k in range(9):
        fact = 1
        a = F(0)
        for j in range(k + 1):
            a += (-1) ** j * F(fact) / lam ** (j + 1)
            fact *= k - j
        kfact = 1
        for i in range(2, k + 1):
            kfact *= i
        assert alpha[k] == a
        assert beta[k] == -((-1) ** k) * F(kfact) / lam ** (k + 1)


def test_integer_fast_path_equals_the_fraction_reference():
    rng = random.Random(7)
    for dP, dQ in [(1, 1), (2, 3), (5, 5), (12, 11)]:
        P, Q, R = random_admissible(rng, dP, dQ)
        theta = F(rng.randint(1, 4000), 7000)
        assert closed_form(P, Q, R, theta) == closed_form_reference(P, Q, R, theta)


def _gauss_legendre_c(P, Q, R, theta, n=80):
    """Independent float value of c by a tensor Gauss–Legendre rule on the original double integral."""
    x, w = np.polynomial.legendre.leggauss(n)
    t, w = (x + 1) / 2, w / 2
    pf = np.polynomial.Polynomial([float(c) for c in P])
    qf = np.polynomial.Polynomial([float(c) for c in Q])
    Pu, dPu = pf(t), pf.deriv()(t)
    Qv, dQv = qf(t), qf.deriv()(t)
    R, theta = float(R), float(theta)
    inner = dPu[:, None] * Qv[None, :] + theta * Pu[:, None] * (dQv + R * Qv)[None, :]
    return 1 + (w[:, None] * w[None, :] * np.exp(2 * R * t)[None, :] * inner**2).sum() / theta


def test_closed_form_agrees_with_an_independent_float_double_integral():
    rng = random.Random(11)
    for dP, dQ in [(1, 1), (3, 3), (6, 5)]:
        P, Q, R = random_admissible(rng, dP, dQ)
        R = min(R, F(8))
        theta = F(4, 7)
        c, _ = c_and_kappa(closed_form(P, Q, R, theta), R, dps=40)
        assert abs(float(c) / _gauss_legendre_c(P, Q, R, theta) - 1) < 1e-11


@pytest.mark.slow
def test_closed_form_agrees_with_mpmath_quad_two_dimensional_integral():
    """mpmath.quad over the unit square at 15 digits (≈ 3 s) for a random admissible candidate."""
    P, Q, R = random_admissible(random.Random(3), 3, 3)
    R = min(R, F(3))
    theta = F(4, 7)
    cf = closed_form(P, Q, R, theta)
    with mpmath.workdps(15):
        def poly(c, x):
            acc = mpmath.mpf(0)
            for a in reversed(c):
                acc = acc * x + mpmath.mpf(a.numerator) / a.denominator
            return acc
        dP = tuple(i * c for i, c in enumerate(P))[1:]
        dQ = tuple(i * c for i, c in enumerate(Q))[1:]
        th, Rm = mpmath.mpf(4) / 7, mpmath.mpf(R.numerator) / R.denominator
        f = lambda u, v: mpmath.exp(2 * Rm * v) * (poly(dP, u) * poly(Q, v) + th * poly(P, u) * (poly(dQ, v) + Rm * poly(Q, v))) ** 2
        c_quad = 1 + mpmath.quad(f, [0, 1], [0, 1]) / th
    c_exact, _ = c_and_kappa(cf, R, dps=30)
    assert abs(c_quad / c_exact - 1) < mpmath.mpf(10) ** -12
