"""Rigorous Z, Gram points and Turing's K for `critical-line-zeros` (fast)."""

from fractions import Fraction

import mpmath
import pytest

from mathloop.targets.critical_line_zeros.gram import expected_sign, gram_ceil, gram_floor
from mathloop.targets.critical_line_zeros.hardy_z import ball_strings, definite, z_ball_rational
from mathloop.targets.critical_line_zeros.turing import above_trudgian_range, close, trudgian_k

LADDER = (64, 128, 256)


def test_gram_points_bracket_known_values():
    assert abs(float(gram_floor(-1, 30)) - 9.66690805613) < 1e-10
    assert 0 < gram_ceil(-1, 30) - gram_floor(-1, 30) <= Fraction(2, 10**30)
    assert abs(float(gram_floor(0, 30)) - 17.8455995404) < 1e-9
    assert gram_floor(126, 30) < gram_ceil(126, 30)
    assert abs(float(gram_floor(126, 30)) - 282.4547208) < 1e-6


def test_z_changes_sign_at_the_first_zero():
    assert definite("q", Fraction(14), LADDER).sign == -1
    assert definite("q", Fraction("14.2"), LADDER).sign == 1


def test_gram_law_fails_first_at_g126():
    signs = [definite("g", m, LADDER).sign for m in range(-1, 127)]
    good = [s == expected_sign(m) for m, s in zip(range(-1, 127), signs)]
    assert all(good[:-1]) and not good[-1]


@pytest.mark.parametrize("t", ["100", "7005.0762689071", "10000.5"])
def test_z_ball_agrees_with_mpmath_siegelz(t):
    ball = z_ball_rational(Fraction(t), 64)
    with mpmath.workdps(25):
        ref = mpmath.siegelz(mpmath.mpf(t))
    mid, rad = ball_strings(ball)
    assert abs(ref - mpmath.mpf(mid)) <= mpmath.mpf(rad) + mpmath.mpf("1e-15")


def test_sign_is_undecided_when_the_ball_contains_zero():
    # a rational within 1e-40 of the first zero: no precision on the ladder separates Z from 0
    with mpmath.workdps(60):
        rho = mpmath.zetazero(1).imag
    t = Fraction(str(mpmath.nstr(rho, 50)))
    assert definite("q", t, (64,)).sign == 0


def test_trudgian_k_matches_flint_formula():
    assert trudgian_k(300) == 1
    assert trudgian_k(10141) == 2
    assert trudgian_k(138100) == 2


def test_turing_window_must_start_above_168_pi():
    assert not above_trudgian_range(280)  # g_280 ~ 518 < 168*pi ~ 527.79
    assert above_trudgian_range(300)
    assert close([270, 280]) is None
    c = close([298, 299, 300])
    assert c is not None and c.closed_at == 299 and c.window_blocks == 1
