"""The wide ceiling lineage (knot-form duals, A up to 120) and its kink checker, in should-prove / should-refuse pairs."""

from dataclasses import replace
from fractions import Fraction as F

import flint
import pytest

from mathloop.domain import Verdict
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.pair_correlation_rh_ceiling import lp
from mathloop.targets.pair_correlation_rh_ceiling.arb_positivity import DualFunction
from mathloop.targets.pair_correlation_rh_ceiling.candidate import Mass
from mathloop.targets.pair_correlation_rh_ceiling.cross_check import f_mpmath
from mathloop.targets.pair_correlation_rh_ceiling.kink_positivity import PREC, KinkFunction, kinks, node_fourth_bound
from mathloop.targets.pair_correlation_rh_ceiling.knots import KnotDual, expand
from mathloop.targets.pair_correlation_rh_ceiling.proposer import as_knots, rationalise, rationalise_knots
from tests.support.ceiling_scan import parse as scan_parse


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract("pair-correlation-rh-ceiling-wide"))


@pytest.fixture(scope="module")
def seed(target):
    return dict(target.contract.seed)


@pytest.fixture(scope="module")
def knot_dual():
    """A tight certified dual from the LP at h = 1/10, A = 3, in knot form (ceiling about 0.72079)."""
    return as_knots(rationalise(lp.solve(10, 30, margin=1e-5)))


def verdicts(ev):
    return {r.id: r.verdict for r in ev.results}


def raised(c: KnotDual, bump: F) -> KnotDual:
    """Return c with L raised by bump and the same knots (k on [0, 1] moves down with the line)."""
    L = c.L + bump
    return KnotDual(c.h, c.A, L, expand(c.N, len(c.nodes) - 1, L, c.knots), c.masses, c.knots)


def test_the_wide_lineage_is_the_ceiling_implementation_with_knots_and_a_wider_support(target):
    old = load_contract("pair-correlation-rh-ceiling")
    assert target.contract.target == old.target and target.contract.sha256 != old.sha256
    assert target.knot_form and target.limits.A_max == 120 and target.knot_limits.max_knots == 4000
    assert "knots" in target.candidate_schema()["required"]


def test_the_wide_seed_certifies_the_old_seeds_ceiling(target, seed):
    ev = target.check(None, target.parse(seed))
    assert ev.bounds == {"ceiling": F(759, 1000)} and all(r.rank == 0 for r in ev.results)
    assert ev.artifacts["positivity"]["method"] == "arb-kink-taylor3-cells"
    assert ev.artifacts["positivity"]["kinks"] == 7  # alpha = 0, 1, four knots, A


def test_an_lp_dual_in_knot_form_certifies(target, knot_dual):
    ev = target.check(None, target.parse(knot_dual.payload()))
    assert all(r.rank == 0 for r in ev.results) and F(7207, 10000) < ev.bounds["ceiling"] < F(7209, 10000)


def test_the_same_dual_with_L_raised_is_refused_at_a_witness(target, knot_dual):
    bad = raised(knot_dual, F(1, 10**3))
    ev = target.check(None, target.parse(bad.payload()))
    assert verdicts(ev)["dual-nonnegative"] is Verdict.REFUTED and not ev.bounds
    t = ev.artifacts["positivity"]["witness_t"]
    assert f_mpmath(bad, t, 30) < 0


def test_a_knot_below_minus_L_is_refused_and_one_at_minus_L_passes_the_floor(target, seed):
    c = target.parse(seed)
    for value, verdict in ((-c.L - F(1, 10**6), Verdict.REFUTED), (-c.L, Verdict.PROVED)):
        kt = ((c.knots[0][0], value),) + c.knots[1:]
        bad = KnotDual(c.h, c.A, c.L, expand(c.N, len(c.nodes) - 1, c.L, kt), c.masses, kt)
        ev = target.check(None, target.parse(bad.payload()))
        assert verdicts(ev)["k-above-floor"] is verdict


@pytest.mark.parametrize("knots, why", [
    ([{"at": "1", "k": "0"}], "strictly between 1 and A"),
    ([{"at": "2", "k": "0"}], "strictly between 1 and A"),
    ([{"at": "13/10", "k": "0"}], "on hZ"),
    ([{"at": "8/5", "k": "0"}, {"at": "7/5", "k": "0"}], "strictly increasing"),
    ([{"at": "7/5", "k": "0", "extra": "1"}], "unknown key"),
])
def test_refuses_malformed_knots(target, seed, knots, why):
    with pytest.raises(Malformed, match=why.replace("(", r"\(")):
        target.parse(dict(seed, knots=knots))


def test_refuses_a_node_form_payload_in_the_wide_lineage(target):
    old = load_contract("pair-correlation-rh-ceiling")
    with pytest.raises(Malformed):
        target.parse(dict(old.seed))


def test_knot_form_round_trips_and_bends_only_at_the_knots(target, knot_dual):
    c = target.parse(knot_dual.payload())
    assert c.nodes == knot_dual.nodes
    M = len(c.nodes) - 1
    assert set(kinks(c)) <= {0, c.N, M} | {j for j, _ in c.knots}
    assert scan_parse(knot_dual.payload())["nodes"] == list(c.nodes)  # the second path expands it alike


def test_rationalised_knot_lp_keeps_only_its_knots():
    res = lp.solve(10, 30, margin=1e-5)
    c = rationalise_knots(res, (12, 15, 20, 25))
    assert [j for j, _ in c.knots] == [12, 15, 20, 25] and all(v >= -c.L for _, v in c.knots)
    assert set(kinks(c)) <= {0, 10, 12, 15, 20, 25, 30}


@pytest.mark.parametrize("t", [F(1, 1000), F(1, 7), F(1, 3), F(9, 10)])
def test_the_kink_form_agrees_with_the_node_form_to_the_ball(knot_dual, t):
    c = replace(knot_dual, masses=knot_dual.masses + (Mass(F(3, 2), F(1, 10)),))
    node, kink = DualFunction(c), KinkFunction(c)
    flint.ctx.prec, old = node.prec, flint.ctx.prec
    try:
        a = node.at(t)
        flint.ctx.prec = PREC
        b = kink.at(t)
    finally:
        flint.ctx.prec = old
    for x, y in zip(a, b[:3]):
        assert x.overlaps(y) and y.rad() < 1e-20 * (1 + abs(float(y.mid())))


def test_the_local_fourth_derivative_bound_holds_and_decays(knot_dual):
    c = replace(knot_dual, masses=())
    fn = KinkFunction(c)
    assert float(fn.fourth(F(0)).upper()) >= float(node_fourth_bound(c))
    assert fn.fourth(F(1, 2)).upper() < fn.fourth(F(1, 100)).upper() <= fn.fourth(F(0)).upper()
    # f'''' by a float fourth difference stays below the bound on [1/2, 1)
    import numpy as np

    k = np.array([float(v) for v in c.nodes])
    t = np.linspace(0.5, 0.99, 400)
    e = 1e-3
    f = lambda x: lp.f_values(x, float(c.h), k, np.zeros(0), ())  # noqa: E731
    d4 = (f(t + 2 * e) - 4 * f(t + e) + 6 * f(t) - 4 * f(t - e) + f(t - 2 * e)) / e**4
    assert float(np.max(np.abs(d4))) < float(fn.fourth(F(1, 2) - F(2, 1000)).upper())
