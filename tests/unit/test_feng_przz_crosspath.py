"""The second, independent path for the Feng/PRZZ main term (issue 22; docs/przz.md, "A second path").

`crosspath` derives the kernel from an exponential generating function and evaluates PRZZ's (u, t) form by
quadrature; it must agree with the exact path (`main_term`) at the printed points and at other R, and a
deliberately broken step must be caught.
"""

from __future__ import annotations

import ast
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from mathloop.targets.feng_przz import crosspath
from mathloop.targets.feng_przz.crosspath import PERTURBATIONS, c_quadrature, kernel
from mathloop.targets.feng_przz.evaluate import c_ball
from mathloop.targets.feng_przz.laurent import laurent_terms
from mathloop.targets.feng_przz.main_term import main_term
from mathloop.targets.feng_przz.printed import KAPPA, KAPPA_STAR

THETA_CONTRACT = Fraction(3999999993, 7000000000)


def _exact(pieces, Q, R, theta) -> np.longdouble:
    ball = c_ball(main_term(list(pieces), Q, R, theta))
    return np.longdouble(ball.mid().str(30, radius=False))


def _rel(a, b) -> float:
    return float(abs(a - b) / abs(b))


def test_second_path_imports_nothing_of_the_first_paths_derivation():
    tree = ast.parse(Path(crosspath.__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m and m.startswith("mathloop") for m in imported), imported


def test_generating_function_kernel_equals_the_zeta_ratio_kernel_up_to_the_sign_of_each_log():
    # μ(n)Σ∏log p over k-tuples is (−1)^k (μ⋆Λ^{⋆k})(n): the two derivations agree term by term after that sign
    for k1 in range(4):
        for k2 in range(4):
            mine = {(p, q, r): c for p, q, r, c in kernel(k1, k2)}
            theirs = {(p, q, r): c * (-1) ** (k1 + k2) for p, q, r, c in laurent_terms(k1 + 1, k2 + 1)}
            assert mine == theirs, (k1, k2)


def test_second_path_reproduces_printed_kappa_star_and_the_exact_path_to_17_digits():
    pr = KAPPA_STAR
    c = c_quadrature(pr.pieces, pr.Q, pr.R, pr.theta, n=10)
    assert _rel(c, _exact(pr.pieces, pr.Q, pr.R, pr.theta)) < 1e-17
    kappa = 1 - np.log(c) / np.longdouble("1.1167")
    assert f"{float(kappa):.9f}" == pr.kappa  # 0.407511457


@pytest.mark.parametrize("perturb", [p for p in PERTURBATIONS if p != "none"])
def test_second_path_refuses_a_deliberately_perturbed_formula(perturb):
    pr = KAPPA_STAR
    exact = _exact(pr.pieces, pr.Q, pr.R, pr.theta)
    good = c_quadrature(pr.pieces, pr.Q, pr.R, pr.theta, n=8)
    bad = c_quadrature(pr.pieces, pr.Q, pr.R, pr.theta, n=8, perturb=perturb)
    assert _rel(good, exact) < 1e-12
    assert _rel(bad, exact) > 1e-2  # far outside the agreement the comparison demands


def test_wrong_logarithm_count_is_the_same_wrong_value_on_both_paths():
    pr = KAPPA.with_q0_one()
    shifted = [(i, P) for i, (_, P) in enumerate(pr.pieces)]
    c2 = c_quadrature(pr.pieces, pr.Q, pr.R, pr.theta, n=8, perturb="pieces-0-1-2")
    assert _rel(c2, _exact(shifted, pr.Q, pr.R, pr.theta)) < 1e-7  # n = 8: ~2e-8 quadrature error


def test_unknown_perturbation_nonpositive_r_and_p_not_vanishing_at_zero_are_refused():
    pr = KAPPA_STAR
    with pytest.raises(ValueError, match="unknown perturbation"):
        c_quadrature(pr.pieces, pr.Q, pr.R, pr.theta, perturb="typo")
    with pytest.raises(ValueError, match="R > 0"):
        c_quadrature(pr.pieces, pr.Q, Fraction(0), pr.theta)
    with pytest.raises(ValueError, match="vanish at 0"):
        c_quadrature([(0, [Fraction(1, 2), Fraction(1, 2)])], pr.Q, pr.R, pr.theta)


@pytest.mark.slow
@pytest.mark.parametrize("R", ["1.1167", "1.29", "1.3013", "1.3036", "1.32"])
def test_both_paths_agree_on_przz_kappa_polynomials_as_r_moves(R):
    pr = KAPPA.with_q0_one()
    c = c_quadrature(pr.pieces, pr.Q, Fraction(R), pr.theta, n=12)
    assert _rel(c, _exact(pr.pieces, pr.Q, Fraction(R), pr.theta)) < 1e-16


@pytest.mark.slow
def test_both_paths_agree_on_the_above_record_candidate_at_r_1_3013():
    # the optimum of the exact path's quadratic form at R = 1.3013, PRZZ's degrees, rounded (docs/przz.md)
    P1 = ["0", "4274096927/20000000000", "1551334840737/1000000000000", "-224015363601/1000000000000",
          "-80048371639/100000000000", "32432424113/125000000000"]
    P2 = ["0", "65544810851/62500000000", "1314310503599/1000000000000", "-234420736383/250000000000"]
    P3 = ["0", "260211446551/500000000000", "-685040096253/1000000000000", "-49812778269/1000000000000"]
    Q = ["1", "-39947699571/62500000000", "-31594832243/50000000000", "-6362842691/5000000000",
         "3969921019/1562500000", "-3969921019/3906250000"]
    pieces = [(k, [Fraction(x) for x in P]) for k, P in zip((0, 2, 3), (P1, P2, P3))]
    Qf, R = [Fraction(x) for x in Q], Fraction("1.3013")
    c = c_quadrature(pieces, Qf, R, THETA_CONTRACT, n=12)
    assert _rel(c, _exact(pieces, Qf, R, THETA_CONTRACT)) < 1e-16
    kappa = 1 - np.log(c) / np.longdouble("1.3013")
    assert kappa > np.longdouble("0.4172944293")  # above PRZZ's 0.417293962 on both paths


@pytest.mark.slow
def test_both_paths_agree_on_random_three_piece_cases_at_random_r_and_theta():
    rng = random.Random(2222)
    for _ in range(3):
        rnd = lambda: Fraction(rng.randint(-999, 999), rng.randint(1, 999))  # noqa: E731
        P1 = [Fraction(0), *(rnd() for _ in range(3))]
        P1[1] += 1 - sum(P1)  # P1(1) = 1
        pieces = [(0, P1), (2, [Fraction(0), rnd(), rnd()]), (3, [Fraction(0), rnd()])]
        Q = [Fraction(1), rnd(), rnd()]
        R, theta = Fraction(rng.randint(50, 250), 100), Fraction(rng.randint(10, 57), 100)
        c = c_quadrature(pieces, Q, R, theta, n=14)  # R up to 2.5: more nodes than at PRZZ's R
        assert _rel(c, _exact(pieces, Q, R, theta)) < 1e-15, (pieces, Q, R, theta)
