"""The primal's LP on the dense interior point: the same optimum as HiGHS, and a proposal the exact checker decides."""

from fractions import Fraction as F

import numpy as np
import pytest
from scipy.optimize import linprog

from mathloop.targets.pair_correlation_rh import lp
from mathloop.targets.pair_correlation_rh.cosine_positivity import (
    certify_cosine_nonnegative,
)
from mathloop.targets.pair_correlation_rh.functional import rh_functional
from mathloop.targets.pair_correlation_rh.proposer import DENOMINATOR, lift

H, N = F(1, 10), 30  # A = 3


def _highs_on_a_fine_grid(margin: float) -> float:
    """The same LP through scipy's HiGHS, P >= margin on a uniform grid 512 n points fine (no cutting planes)."""
    w = lp.objective_weights(H, N)
    bounds = [(-20.0, 0.0) if j * H >= 1 else (-20.0, 20.0) for j in range(N)]
    theta = np.linspace(0.0, np.pi, 512 * N + 1)
    res = linprog(w, A_ub=-lp.p_matrix(theta, N), b_ub=np.full(len(theta), -margin),
                  A_eq=np.array([[float(H)] + [2.0 * float(H)] * (N - 1)]), b_eq=[1.0], bounds=bounds, method="highs")
    assert res.status == 0
    return 2.0 - res.fun


@pytest.fixture(scope="module")
def solved():
    return lp.solve(H, N, margin=1e-9)


def test_the_ipm_cutting_plane_lp_reaches_the_highs_optimum(solved):
    ref = _highs_on_a_fine_grid(1e-9)
    # the grid LP is a relaxation between its points (its optimum dips to -2e-7 there; at 64 n points -1.2e-5 and
    # 2.3e-6 higher): it lies a little above the cutting-plane LP, whose optimum stays >= 0 at its refined minima
    assert solved is not None and -1e-9 < ref - solved.bound < 1e-7, (solved.bound, ref)
    assert float((lp.p_matrix(lp.local_minima(solved.nodes, 16 * N + 1), N) @ solved.nodes).min()) > 0
    assert abs(float(F(1) - H * (solved.nodes[0] + 2 * solved.nodes[1:].sum()))) < 1e-9  # the mass equation holds


def test_the_lifted_proposal_is_proved_and_the_unlifted_one_refused(solved):
    rounded = [F(round(x * DENOMINATOR), DENOMINATOR) for x in solved.nodes]
    lifted = lift(rounded, 1e-10)
    assert certify_cosine_nonnegative(lifted).status == "nonnegative"  # should-prove
    low = [lifted[0] - F(1, 10**6), *lifted[1:]]  # P lowered by 1e-6 everywhere: its minimum (~1e-10) goes negative
    assert certify_cosine_nonnegative(low).status != "nonnegative"  # should-refuse
    assert abs(float(rh_functional(H, H * N, lifted).B) - solved.bound) < 1e-6  # the rounding and lift cost little
