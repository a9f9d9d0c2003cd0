"""Rational Taylor enclosures of e^x and the one-inequality κ certificate N1 <= N2."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from mathloop.targets.levinson_conrey.certificate import GRID, build_certificate, recompute, verify_certificate
from mathloop.targets.levinson_conrey.closed_form import closed_form
from mathloop.targets.levinson_conrey.taylor import exp_lower, exp_upper, order_for, taylor_remainder

CONREY_RANGE = F(4, 7)  # theta_sup of the levinson-conrey contract (Conrey 1989)

P, Q, R = (F(0), F(1)), (F(1), F(-1)), F(13, 10)
THETA_LEVINSON = F(1, 2) - F(1, 10**9)
THETA_CONREY = F(4, 7) - F(1, 10**9)


def cert_for(theta, k0):
    cf = closed_form(P, Q, R, theta)
    return build_certificate(P, Q, R, theta, cf.a, cf.b, k0)


@pytest.mark.parametrize("x", [F(0), F(1, 3), F(13, 5), F(20), F(1234567, 100000)])
@pytest.mark.parametrize("n", [20, 40, 60])
def test_taylor_bounds_enclose_exp(x, n):
    with mpmath.workdps(300):
        e = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
        lo = exp_lower(x, n)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= e
        if x < n + 2:
            hi = exp_upper(x, n)
            assert e <= mpmath.mpf(hi.numerator) / hi.denominator


def test_taylor_remainder_refuses_x_outside_its_range():
    with pytest.raises(ValueError):
        taylor_remainder(F(5), 3)
    with pytest.raises(ValueError):
        exp_lower(F(-1), 3)


def test_order_for_meets_its_tolerance():
    n = order_for(F(20), F(1), 30)
    assert taylor_remainder(F(20), n) <= F(1, 10**30)
    assert taylor_remainder(F(20), n - 1) > F(1, 10**30) or n == 20


def test_certifies_the_levinson_reference_on_the_grid_and_not_one_step_higher():
    cert = cert_for(THETA_LEVINSON, F(342735254170, 10**12))
    assert cert is not None and verify_certificate(cert, CONREY_RANGE)
    assert cert_for(THETA_LEVINSON, F(342735254171, 10**12)) is None


def test_certifies_the_conrey_seed_on_the_grid_and_not_one_step_higher():
    assert cert_for(THETA_CONREY, F(386839251075, 10**12)) is not None
    assert cert_for(THETA_CONREY, F(386839251076, 10**12)) is None


def test_certificate_has_the_shape_the_lean_renderer_reads():
    cert = cert_for(THETA_CONREY, F(386839251075, 10**12))
    assert set(cert) == {"theta", "R", "P", "Q", "a", "b", "k0", "exp_2R", "exp_rhs", "lhs", "rhs", "D", "N1", "N2"}
    assert set(cert["exp_2R"]) == set(cert["exp_rhs"]) == {"x", "n", "side", "value"}
    assert cert["exp_2R"]["side"] == "upper" and cert["exp_rhs"]["side"] == "lower"
    assert cert["exp_2R"]["x"] == "13/5" and F(cert["exp_rhs"]["x"]) == R * (1 - F(cert["k0"]))
    D, N1, N2 = (int(cert[k]) for k in ("D", "N1", "N2"))
    assert D > 0 and N1 <= N2
    assert F(cert["lhs"]) == F(N1, D) and F(cert["rhs"]) == F(N2, D)
    assert F(cert["lhs"]) == F(cert["a"]) + F(cert["b"]) * F(cert["exp_2R"]["value"])
    assert recompute(cert) == (D, N1, N2)
    assert F(cert["k0"]) % GRID == 0


def test_lower_side_is_used_when_b_is_negative():
    # a negative b never arises from an admissible candidate; test the branch on synthetic a, b.
    cert = build_certificate(P, Q, R, THETA_CONREY, F(20), F(-1, 10), F(-2))
    assert cert is not None and cert["exp_2R"]["side"] == "lower"
    assert recompute(cert) == (int(cert["D"]), int(cert["N1"]), int(cert["N2"]))


@pytest.mark.parametrize("field, value", [
    ("k0", "34273525418/100000000000"), ("a", "0"), ("N1", "1"), ("D", "-1"), ("theta", "1/2"), ("R", "6/5"),
])
def test_verify_rejects_a_tampered_certificate(field, value):
    cert = cert_for(THETA_LEVINSON, F(342735254170, 10**12))
    assert verify_certificate(cert, CONREY_RANGE)
    assert not verify_certificate({**cert, field: value}, CONREY_RANGE)


def test_verify_rejects_a_wrong_side_or_order():
    cert = cert_for(THETA_LEVINSON, F(342735254170, 10**12))
    assert not verify_certificate({**cert, "exp_2R": {**cert["exp_2R"], "side": "lower"}}, CONREY_RANGE)
    assert not verify_certificate({**cert, "exp_rhs": {**cert["exp_rhs"], "n": cert["exp_rhs"]["n"] + 1}}, CONREY_RANGE)
    assert not verify_certificate({**cert, "exp_2R": {**cert["exp_2R"], "n": "40"}}, CONREY_RANGE)
