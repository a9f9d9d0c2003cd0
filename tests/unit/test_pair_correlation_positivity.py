"""Exact positivity certificates: should-prove / should-reject pairs (never sampling)."""

from fractions import Fraction as F

import math

from mathloop.targets.pair_correlation_rh.cosine_positivity import (
    certify_cosine_nonnegative,
    chebyshev_to_monomial,
)
from mathloop.targets.polynomial import evaluate
from mathloop.targets.positivity import certify_nonnegative

HALF = (F(-1, 2), F(1, 2))


def test_proves_polynomial_touching_zero_at_both_endpoints():
    assert certify_nonnegative([F(1), F(0), F(-4)], *HALF).status == "nonnegative"  # 1 - 4x^2


def test_rejects_polynomial_dipping_below_zero_near_the_endpoints():
    rep = certify_nonnegative([F(1), F(0), F(-4) - F(1, 10**9)], *HALF)
    assert rep.status == "negative"
    assert rep.witness is not None and evaluate([F(1), F(0), F(-4) - F(1, 10**9)], rep.witness) < 0


def test_proves_interior_double_root():
    sq = [F(1), F(0), F(-16), F(0), F(64)]  # (1 - 8x^2)^2, double roots at +-1/sqrt(8)
    rep = certify_nonnegative(sq, *HALF)
    assert rep.status == "nonnegative"
    assert rep.certificate["factors"][0]["multiplicity"] == 2


def test_rejects_double_root_pushed_below_zero():
    sq = [F(1) - F(1, 10**12), F(0), F(-16), F(0), F(64)]
    assert certify_nonnegative(sq, *HALF).status == "negative"


def test_rejects_odd_multiplicity_root_at_a_rational_interior_point():
    cube = [F(0), F(0), F(0), F(1)]  # x^3 changes sign at 0
    assert certify_nonnegative(cube, *HALF).status == "negative"


def test_cells_cover_the_interval_in_order():
    ref = [10039, 8901, 6374, 3708, 1422, 0, -312, -113, 0, 0]
    p = chebyshev_to_monomial([F(c, 10**4) for c in ref])
    rep = certify_nonnegative(p, F(-1), F(1))
    assert rep.status == "nonnegative"
    cells = rep.certificate["cells"]
    assert cells[0][0] == -1 and cells[-1][1] == 1
    assert all(a[1] == b[0] for a, b in zip(cells, cells[1:]))


def _dipping_cosine(delta: F) -> list[F]:
    """P(theta) = (cos theta - 89/100)^2 - delta as c_0 + 2 sum c_j cos(j theta)."""
    a = F(89, 100)
    return [F(1, 2) + a * a - delta, -a, F(1, 4)]


def _p(nodes: list[F], theta: float) -> float:
    return float(nodes[0]) + 2 * sum(float(c) * math.cos(j * theta) for j, c in enumerate(nodes) if j)


def test_rejects_sign_changing_cosine_polynomial_positive_on_a_coarse_grid():
    nodes = _dipping_cosine(F(1, 1000))
    assert min(_p(nodes, k * math.pi / 10) for k in range(11)) > 0  # a sampler would accept it
    rep = certify_cosine_nonnegative(nodes)
    assert rep.status == "negative"
    assert rep.witness is not None


def test_proves_cosine_polynomial_with_interior_double_zero():
    assert certify_cosine_nonnegative(_dipping_cosine(F(0))).status == "nonnegative"


def test_proves_cosine_polynomial_vanishing_at_pi():
    rep = certify_cosine_nonnegative([F(1), F(1, 2)])  # 1 + cos(theta), zero at theta = pi
    assert rep.status == "nonnegative"
    assert rep.certificate["endpoint_roots"]["lo"] is True


def test_chebyshev_conversion_matches_cosines():
    nodes = [F(3, 2), F(-1, 3), F(1, 5), F(1, 7)]
    p = chebyshev_to_monomial(nodes)
    for theta in (0.1, 1.0, 2.5):
        assert abs(float(evaluate(p, F(math.cos(theta)))) - _p(nodes, theta)) < 1e-12
