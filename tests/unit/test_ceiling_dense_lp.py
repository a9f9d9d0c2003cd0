"""The wide ceiling's in-session pipeline: the dense IPM, the kink-form LP, the float sample, mixing, the proposer."""

from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.optimize import linprog

from mathloop.domain import Head
from mathloop.propose.base import Context
from mathloop.targets import build_target, load_contract
from mathloop.targets.pair_correlation_rh import ipm
from mathloop.targets.pair_correlation_rh_ceiling import lp, lp_dense, mixing
from mathloop.targets.pair_correlation_rh_ceiling.lp_warm import Graded
from mathloop.targets.pair_correlation_rh_ceiling.proposer import mass_points, rationalise_knots
from mathloop.targets.pair_correlation_rh_ceiling.sample import FloatDual, sample_dual
from mathloop.targets.pair_correlation_rh_ceiling.wide_proposer import WideConfig, WideProposer, inside_head
from tests.support.ceiling_scan import sampled_minimum

pytest.importorskip("threadpoolctl")
TINY = (WideConfig(10, 3, Graded(((3, 10),)), 3, 4), WideConfig(10, 4, Graded(((4, 10),)), 4, 4))


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract("pair-correlation-rh-ceiling-wide"))


@pytest.fixture(scope="module")
def tiny_run():
    N, A = 10, 3
    knots = Graded(((A, N),)).knots(N, N * A)
    return knots, lp_dense.solve(N, N * A, knots=knots, at=mass_points(N, A), grid_factor=4)


def test_the_dense_ipm_agrees_with_highs_on_a_random_tall_lp():
    rng = np.random.default_rng(3)
    G = rng.normal(size=(600, 40))
    g = rng.normal(size=600) - 3
    c = rng.normal(size=40)
    res = ipm.solve(c, np.full(40, 5.0), [ipm.Block(G, g, slice(0, 40))])
    ref = linprog(-c, A_ub=-G, b_ub=-g, bounds=[(0, 5)] * 40, method="highs")
    assert res.status == "optimal" and abs(c @ res.x + ref.fun) < 1e-8 and (G @ res.x - g).min() > -1e-9


def test_a_block_on_some_columns_equals_the_same_rows_padded_with_zeros():
    rng = np.random.default_rng(4)
    G1, G2 = rng.normal(size=(300, 12)), rng.normal(size=(200, 5))
    x0 = rng.uniform(0.5, 2.5, 12)  # feasible by construction
    g1, g2 = G1 @ x0 - rng.uniform(0, 1, 300), G2 @ x0[7:] - rng.uniform(0, 1, 200)
    c, u = rng.normal(size=12), np.full(12, 3.0)
    split = ipm.solve(c, u, [ipm.Block(G1, g1, slice(0, 12)), ipm.Block(G2, g2, slice(7, 12))])
    padded = ipm.solve(c, u, [ipm.Block(np.vstack([G1, np.hstack([np.zeros((200, 7)), G2])]),
                                        np.concatenate([g1, g2]), slice(0, 12))])
    assert split.status == padded.status == "optimal" and abs(c @ split.x - c @ padded.x) < 1e-9


def test_an_infeasible_lp_ends_failed_not_with_nans():
    G = np.array([[1.0], [-1.0]])
    res = ipm.solve(np.array([1.0]), np.array([1.0]), [ipm.Block(G, np.array([0.8, -0.2]), slice(0, 1))])
    assert res.status != "optimal"


def test_the_fft_sample_and_the_kink_form_agree_with_the_node_form():
    rng = np.random.default_rng(5)
    N, M, at = 10, 40, (10, 15, 20)
    K, k0 = lp.knot_map(N, M, (13, 20, 31))
    k = K @ np.concatenate([[1.2], rng.uniform(0, 2, 3)]) + k0
    w = rng.uniform(0, 0.3, 3)
    d = FloatDual.of(N, k, w, at)
    s = sample_dual(d, 16 * M)
    ref = lp.f_values(s.t, 1.0 / N, k, w, at)
    assert np.max(np.abs(s.f - ref)) < 1e-12 and np.max(np.abs(d.f_at(s.t[1:]) - ref[1:])) < 1e-12
    assert np.max(np.abs(s.a - lp.a_values(s.t, w, at))) < 1e-12


def test_the_kink_rows_reproduce_f_of_the_lp_variables():
    N, M, at = 10, 30, mass_points(10, 3)
    cols = lp_dense.columns(N, M, (12, 15, 22), at)
    x = np.random.default_rng(6).uniform(0, 1, cols.nv)
    t = np.linspace(0.001, 1, 97)
    rows, const = lp_dense.f_rows(cols, t)
    assert np.max(np.abs(rows @ x + const - lp.f_values(t, 1 / N, lp_dense.nodes_of(cols, x), x[cols.nk:], at))) < 1e-12


def test_the_dense_lp_matches_the_warm_highs_lp(tiny_run):
    pytest.importorskip("highspy")
    from mathloop.targets.pair_correlation_rh_ceiling import lp_warm

    knots, run = tiny_run
    ref = lp_warm.solve(10, 30, knots=knots, at=mass_points(10, 3), margin=1e-8, grid_factor=4, keep_cuts=True)
    assert abs(run.result.ceiling - ref.ceiling) < 1e-6 and run.partner.ceiling > run.result.ceiling


def test_the_lp_dual_dips_and_is_refused_while_its_mixture_certifies(target, tiny_run):
    knots, run = tiny_run
    c = rationalise_knots(run.result, knots)
    assert mixing.float_minimum(c) < 0  # the LP's optimum dips between its rows
    ev = target.check(None, target.parse(c.payload()))
    assert "ceiling" not in ev.bounds  # should-refuse: the checker does not certify the LP dual itself
    p = rationalise_knots(run.partner, knots)
    w = mixing.weight(c, p)
    assert w is not None and 0 < w.lam < 1 and w.low >= mixing.SAFETY
    mixed = mixing.mix(c, p, w.lam)
    ev = target.check(None, target.parse(mixed.payload()))  # should-prove: the mixture certifies
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] == mixed.ceiling
    assert mixed.ceiling - F(run.result.ceiling) < F(1, 10**5)  # the mixing costs little
    assert 0 < sampled_minimum(mixed.payload())[0]  # the second path agrees


def test_a_mixture_is_exactly_the_convex_combination(tiny_run):
    knots, run = tiny_run
    c, p = rationalise_knots(run.result, knots), rationalise_knots(run.partner, knots)
    m = mixing.mix(c, p, F(3, 4))
    assert m.L == F(3, 4) * c.L + F(1, 4) * p.L
    assert all(x == F(3, 4) * a + F(1, 4) * b for x, a, b in zip(m.nodes, c.nodes, p.nodes))
    with pytest.raises(ValueError, match="same h, A and mass positions"):
        mixing.mix(c, replace(p, masses=p.masses[:-1]), F(1, 2))


def test_the_proposer_beats_the_seed_and_then_moves_to_the_next_configuration(target):
    contract = target.contract
    seed = target.check(None, target.parse(dict(contract.seed)))
    head = Head("root", 0, seed.state, seed.ranks, dict(seed.bounds))
    proposer = WideProposer(target, 0, TINY)
    (prop,) = proposer.propose(Context(contract, head, (), (), frozenset(), 0))
    assert prop.meta["config"] == TINY[0].describe() and "lam" in prop.meta["how"]
    ev = target.check(seed.state, target.parse(prop.payload))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] < seed.bounds["ceiling"]
    new = Head("c1", 1, ev.state, ev.ranks, dict(ev.bounds))
    assert inside_head(TINY[0], target.parse(ev.state))
    (nxt,) = proposer.propose(Context(contract, new, (), (), frozenset(), 1))
    assert nxt.meta["config"] == TINY[1].describe()
    assert target.check(ev.state, target.parse(nxt.payload)).bounds["ceiling"] < ev.bounds["ceiling"]


def test_a_refused_candidate_is_followed_by_a_more_cautious_mixture(target):
    from mathloop.domain import payload_sha

    contract = target.contract
    proposer = WideProposer(target, 0, TINY[:1])
    (first,) = proposer.propose(Context(contract, None, (), (), frozenset(), 0))
    (second,) = proposer.propose(Context(contract, None, (), (), frozenset({payload_sha(first.payload)}), 1))
    lam = lambda p: F(p.meta["how"].split()[2])  # noqa: E731
    assert lam(second) < lam(first) and F(second.payload["L"]) < F(first.payload["L"])


def test_a_candidate_the_contract_would_refuse_as_malformed_is_never_offered(target, monkeypatch):
    """A mixture with the refined head can carry more digits than max_digits (a session offered three such L's of
    43-45 digits, each refused as malformed); the proposer skips it and offers the next candidate."""
    import dataclasses

    contract = target.contract
    proposer = WideProposer(target, 0, TINY[:1])
    (good,) = proposer.propose(Context(contract, None, (), (), frozenset(), 0))
    cand = target.parse(good.payload)
    long_L = dataclasses.replace(cand, L=cand.L + F(1, 10**45))
    assert len(long_L.payload()["L"]) > contract.limits["max_digits"]
    monkeypatch.setattr(proposer, "candidates", lambda cfg, run, head: [(long_L, "too many digits"), (cand, "fits")])
    (prop,) = proposer.propose(Context(contract, None, (), (), frozenset(), 1))
    assert prop.meta["how"] == "fits" and prop.payload == good.payload


def test_run_of_the_wide_lineage_without_threadpoolctl_exits_2_naming_the_extra(monkeypatch, tmp_path):
    import sys

    from typer.testing import CliRunner

    from mathloop.cli.app import app

    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # import threadpoolctl now raises ImportError
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, ["run", "pair-correlation-rh-ceiling-wide", "--budget", "1", "--no-lean",
                                   "--no-progress"], env={"COLUMNS": "300", "NO_COLOR": "1"})
    assert out.exit_code == 2 and "mathloop[ceiling]" in out.output and "threadpoolctl" in out.output, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit)
