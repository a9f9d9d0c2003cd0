"""The ceiling's warm-started highspy LP (lp_warm): graded knots, the knot map, a certified dual, the missing extra."""

import sys
from fractions import Fraction as F

import numpy as np
import pytest

from mathloop.targets import build_target, load_contract
from mathloop.targets.pair_correlation_rh_ceiling import lp, lp_warm
from mathloop.targets.pair_correlation_rh_ceiling.proposer import CONFIGS, CeilingProposer, mass_points, rationalise
from tests.support.ceiling_scan import sampled_minimum

pytest.importorskip("highspy")


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract("pair-correlation-rh-ceiling"))


def test_graded_knots_are_fine_near_one_and_coarse_far_out():
    knots = lp_warm.graded_knots(20, 200, [(F(2), 20), (F(5), 5), (F(10), 2)])
    assert knots[:20] == tuple(range(21, 41))  # every node on (1, 2]
    assert knots[20:26] == (44, 48, 52, 56, 60, 64)  # then 1/5 apart up to 5 ...
    assert knots[-1] == 190 and all(b - a == 10 for a, b in zip(knots[35:], knots[36:]))  # ... then 1/2 up to A (k_A = 0)
    assert lp_warm.Graded(((3, 40), (10, 10), (40, 4))).fits(40) and not lp_warm.Graded(((3, 40),)).fits(20)
    with pytest.raises(ValueError, match="not a multiple"):
        lp_warm.graded_knots(20, 200, [(F(2), 40)])


def test_knot_map_interpolates_between_knots_and_keeps_k_above_minus_L():
    N, M = 5, 40
    knots = (6, 7, 10, 16, 25)
    K, k0 = lp.knot_map(N, M, knots)
    L = 1.3
    y = np.random.default_rng(1).uniform(0.0, 2.0, len(knots))
    k = K @ np.concatenate([[L], y]) + k0
    assert np.allclose(k[:N + 1], np.arange(N + 1) / N - L) and k[M] == 0
    anchors = np.array([N, *knots, M])
    assert np.allclose(k[N:], np.interp(np.arange(N, M + 1), anchors, k[anchors]))  # linear between anchors
    zero = K @ np.concatenate([[L], np.zeros(len(knots))]) + k0
    assert zero[N:].min() >= -L - 1e-12
    with pytest.raises(ValueError, match="strictly between"):
        lp.knot_map(N, M, (5, 7))


def test_warm_lp_on_a_graded_grid_certifies_as_rationalised_and_the_second_path_agrees(target):
    at = mass_points(10, 4)
    knots = lp_warm.Graded(((2, 10), (4, 2))).knots(10, 40)
    res = lp_warm.solve(10, 40, knots=knots, at=at, margin=1e-5, method="ipm")
    same = lp.solve(10, 40, margin=1e-5, at=at, grid_factor=4, coarse=(20, 5))  # the same knots in the scipy LP
    assert res.min_f > 0 and abs(res.ceiling - same.ceiling) < 2e-5
    c = rationalise(res)
    ev = target.check(None, target.parse(c.payload()))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] == c.ceiling
    low, _ = sampled_minimum(c.payload())  # a second path: the second-difference formula, mpmath minima
    assert 0 < F(ev.artifacts["positivity"]["min_lower_bound"]) <= F(low)  # Arb's cell floor is below the true minimum
    raised = dict(c.payload(), L=str(c.L + F(1, 10**3)))
    raised["nodes"] = [str(j * c.h - c.L - F(1, 10**3)) if j <= c.N else v for j, v in enumerate(raised["nodes"])]
    ev = target.check(None, target.parse(raised))
    assert not ev.bounds and sampled_minimum(raised)[0] < 0


def test_a_graded_configuration_is_shipped_and_fits_the_contract(target):
    proposer = target.local_proposer(0)
    graded = [c for c in CONFIGS if isinstance(c[3], lp_warm.Graded)]
    assert graded and all(proposer._fits(N, A, Aw) and tail.fits(N) for N, A, Aw, tail in graded)


def test_without_highspy_the_solver_and_the_proposer_name_the_extra(monkeypatch, target):
    monkeypatch.setitem(sys.modules, "highspy", None)  # import highspy now raises ImportError
    with pytest.raises(lp_warm.MissingSolver, match=r"mathloop\[ceiling\]"):
        lp_warm.require_highspy()
    with pytest.raises(lp_warm.MissingSolver, match=r"mathloop\[ceiling\]"):
        CeilingProposer(target, 0)


def test_run_without_highspy_exits_2_naming_the_extra(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    monkeypatch.setitem(sys.modules, "highspy", None)
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, ["run", "pair-correlation-rh-ceiling", "--budget", "1", "--no-lean", "--no-progress"],
                             env={"COLUMNS": "300", "NO_COLOR": "1"})
    assert out.exit_code == 2 and "mathloop[ceiling]" in out.output, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit)
