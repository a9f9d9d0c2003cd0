"""PRZZ's printed optima as gates on the R-dependence of the main term (issue 22; docs/przz.md, "Was R optimised?").

At κ* (R = 1.1167) PRZZ's printed point is stationary in P, Q **and** R under this main term; at κ
(R = 1.3036) it is stationary in P and Q but not in R. These tests pin both facts.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from mathloop.targets.feng_przz.evaluate import kappa_ball
from mathloop.targets.feng_przz.main_term import main_term
from mathloop.targets.feng_przz.printed import KAPPA, KAPPA_STAR
from mathloop.targets.feng_przz.quadform import WORK_DPS, QuadForm

H = Fraction(1, 10000)


def _kappa(pr, R: Fraction) -> mpmath.mpf:
    ball = kappa_ball(main_term(list(pr.pieces), pr.Q, R, pr.theta), R)
    return mpmath.mpf(ball.mid().str(30, radius=False))


def _argmax_r(pr) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Return (dκ/dR at the printed R, the R of the parabola's maximum) from κ at R ± 10⁻⁴, printed P and Q."""
    with mpmath.workdps(30):
        km, k0, kp = (_kappa(pr, pr.R + d) for d in (-H, 0, H))
        h = mpmath.mpf(1) / 10000
        d1, d2 = (kp - km) / (2 * h), (kp - 2 * k0 + km) / h**2
        return d1, mpmath.mpf(pr.R.numerator) / pr.R.denominator - d1 / d2


@pytest.mark.slow
def test_kappa_star_printed_r_is_stationary_for_the_printed_polynomials():
    d1, r_star = _argmax_r(KAPPA_STAR)
    assert abs(d1) < 5e-5  # measured −2.3·10⁻⁵; curvature −0.38
    assert abs(r_star - mpmath.mpf("1.1167")) < 1e-4  # measured 1.11664


@pytest.mark.slow
def test_kappa_printed_r_is_not_stationary_for_the_printed_polynomials():
    d1, r_star = _argmax_r(KAPPA.with_q0_one())
    assert d1 < -3e-4  # measured −3.81·10⁻⁴
    assert mpmath.mpf("1.3015") < r_star < mpmath.mpf("1.3028")  # measured 1.30216
    assert _kappa(KAPPA.with_q0_one(), Fraction("1.3022")) > mpmath.mpf("0.4172942")  # above 0.417293962


@pytest.mark.slow
def test_optimum_at_kappa_star_r_is_przz_printed_kappa_star_polynomials():
    pr = KAPPA_STAR
    qf = QuadForm([0, 2, 3], [5, 2, 2], 1, pr.R, pr.theta)
    with mpmath.workdps(WORK_DPS):
        v, _, _ = qf.optimise([float(x) for x in pr.Q])
        polys = qf.polynomials(v)
        for (_, printed), opt in zip(pr.pieces, polys):
            for a, b in zip(printed, opt):
                assert abs(mpmath.mpf(a.numerator) / a.denominator - b) < 1e-5
        assert abs(qf.last_q[0] - mpmath.mpf("0.483777")) < 1e-6  # Q = 0.483777 + 0.516223(1 − 2x)
