"""Gates of issue 22 for the Feng/PRZZ main term c(P, Q, R, θ) (docs/przz.md).

(a) K = 1 equals levinson-conrey's closed form exactly; (b) PRZZ's printed polynomials reproduce their
printed c and κ, κ*; (c) two precisions agree and coefficient perturbations move c as predicted.
"""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest

from mathloop.targets.feng_przz.evaluate import c_ball, certifies, crosscheck, kappa_ball
from mathloop.targets.feng_przz.laurent import laurent_terms, laurent_terms_sympy
from mathloop.targets.feng_przz.main_term import main_term
from mathloop.targets.feng_przz.printed import C_PRINTED, KAPPA, KAPPA_STAR
from mathloop.targets.levinson_conrey.closed_form import closed_form
from mathloop.targets.polynomial import add, mul, scale

X, ONE_MINUS = (Fraction(0), Fraction(1)), (Fraction(1), Fraction(-1))


def _random_case(rng: random.Random):
    """Return a random admissible (P, Q, R, θ): P(0) = 0, P(1) = 1, Q(0) = 1, R > 0, 0 < θ < 4/7."""
    tail = tuple(Fraction(rng.randint(-999, 999), rng.randint(1, 999)) for _ in range(rng.randint(0, 3)))
    P = add(X, mul(mul(X, ONE_MINUS), tail)) if tail else X
    Q = (Fraction(1),) + tuple(Fraction(rng.randint(-99, 99), rng.randint(1, 99)) for _ in range(rng.randint(0, 3)))
    R = Fraction(rng.randint(1, 300), 100)
    theta = Fraction(rng.randint(1, 56), 98)
    return P, Q, R, theta


def test_gate_a_one_piece_equals_levinson_conrey_closed_form_exactly():
    rng = random.Random(22)
    for _ in range(8):
        P, Q, R, theta = _random_case(rng)
        cf = closed_form(P, Q, R, theta)
        c = dict(main_term([(0, P)], Q, R, theta).terms)
        assert set(c) <= {Fraction(0), 2 * R}
        assert (c.get(Fraction(0), Fraction(0)), c.get(2 * R, Fraction(0))) == (cf.a, cf.b)


def test_mu_log_piece_is_conrey_with_the_log_weight_folded_into_p():
    # Feng's k = 1 piece μ(n)·log n/log y·P₂ is μ(n)·(1−v)P₂(v): the pair must equal Conrey with P₁ + (1−v)P₂
    P1 = add(X, scale(mul(X, ONE_MINUS), Fraction(-1, 3)))
    P2 = (Fraction(0), Fraction(5, 4), Fraction(-1, 2))
    Q, R, theta = (Fraction(1), Fraction(-1, 2)), Fraction(13, 10), Fraction(1, 2)
    two = main_term([(0, P1), (1, P2)], Q, R, theta)
    one = main_term([(0, add(P1, mul(ONE_MINUS, P2)))], Q, R, theta)
    assert two == one


def test_fast_kernel_matches_the_sympy_derivation():
    for pair in [(1, 1), (1, 2), (2, 2), (1, 3)]:
        assert laurent_terms(*pair) == laurent_terms_sympy(*pair)


@pytest.mark.slow
def test_fast_kernel_matches_the_sympy_derivation_up_to_three_logs():
    for pair in [(2, 3), (3, 3), (1, 4)]:
        assert laurent_terms(*pair) == laurent_terms_sympy(*pair)


def test_rejects_repeated_piece():
    with pytest.raises(ValueError, match="distinct"):
        main_term([(0, X), (0, X)], (Fraction(1),), Fraction(1), Fraction(1, 2))


@pytest.fixture(scope="module")
def kappa_star_c():
    return main_term(KAPPA_STAR.pieces, KAPPA_STAR.Q, KAPPA_STAR.R, KAPPA_STAR.theta)


def test_gate_b_kappa_star_reproduces_printed_0_407511457(kappa_star_c):
    k = kappa_ball(kappa_star_c, KAPPA_STAR.R)
    assert float(k.rad()) < 1e-20
    assert abs(float(k.mid()) - 0.407511457) < 1e-9  # κ* = 0.40751145707…
    assert certifies(kappa_star_c, KAPPA_STAR.R, Fraction("0.407511457"))
    assert not certifies(kappa_star_c, KAPPA_STAR.R, Fraction("0.4075114571"))


@pytest.mark.slow
def test_gate_b_kappa_reproduces_printed_c_to_ten_digits_and_certifies_0_41729():
    pr = KAPPA.with_q0_one()
    c = main_term(pr.pieces, pr.Q, pr.R, pr.theta)
    ball = c_ball(c)
    with mpmath.workdps(40):
        rel = abs(mpmath.mpf(ball.mid().str(30, radius=False)) / mpmath.mpf(C_PRINTED) - 1)
    assert rel < 1e-10  # 2.137454406052 vs printed 2.137454406132: 10 significant digits
    assert certifies(c, pr.R, Fraction("0.41729"))
    assert certifies(c, pr.R, Fraction("0.417293962"))
    assert not certifies(c, pr.R, Fraction("0.417293963"))


@pytest.mark.slow
def test_printed_q_with_q0_0_999999_gives_c_to_six_digits_only():
    # the printed Q coefficients sum to Q(0) = 0.999999; c scales like Q², so 2e-6 relative is lost
    c = main_term(KAPPA.pieces, KAPPA.Q, KAPPA.R, KAPPA.theta)
    mid = float(c_ball(c).mid())
    assert abs(mid - 2.1374501311077661) < 1e-12
    assert 1e-6 < abs(mid / float(C_PRINTED) - 1) < 3e-6


def test_gate_c_two_precisions_agree(kappa_star_c):
    cc = crosscheck(kappa_star_c, KAPPA_STAR.R)
    assert cc.agree_digits >= 20


def _with_coeff(pieces, i, j, delta):
    out = []
    for n, (k, P) in enumerate(pieces):
        if n == i:
            P = tuple(P) + (Fraction(0),) * max(0, j + 1 - len(P))
            P = P[:j] + (P[j] + delta,) + P[j + 1 :]
        out.append((k, P))
    return out


@pytest.mark.parametrize("i,j", [pytest.param(1, 2, marks=pytest.mark.slow), (2, 1)])  # (1, 2): ~3 s
def test_gate_c_perturbing_a_coefficient_moves_c_as_the_quadratic_cross_check_predicts(i, j):
    # c is a quadratic form in the coefficients of the P's: from the high-precision values at ±h,
    # c(p + δ) = c(p) + δ·(c₊ − c₋)/(2h) + δ²·(c₊ + c₋ − 2c)/(2h²) exactly
    pr = KAPPA_STAR
    h, delta = Fraction(1, 1000), Fraction(3, 100)

    def c_at(d):
        return crosscheck(main_term(_with_coeff(pr.pieces, i, j, d), pr.Q, pr.R, pr.theta), pr.R).c_high

    with mpmath.workdps(45):
        c0, cp, cm, cd = (mpmath.mpf(c_at(d)) for d in (Fraction(0), h, -h, delta))
        hh, dd = mpmath.mpf(h.numerator) / h.denominator, mpmath.mpf(delta.numerator) / delta.denominator
        predicted = c0 + dd * (cp - cm) / (2 * hh) + dd**2 * (cp + cm - 2 * c0) / (2 * hh**2)
        assert abs(cd - c0) > mpmath.mpf(10) ** -6  # the coefficient matters
        assert abs(predicted - cd) < mpmath.mpf(10) ** -30
