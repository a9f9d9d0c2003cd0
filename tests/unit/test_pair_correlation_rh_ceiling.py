"""Target `pair-correlation-rh-ceiling` (assuming RH): should-prove / should-refuse pairs, parsing, proposer."""

from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest

from mathloop.targets import load_contract
from mathloop.domain import Kind, Label, Verdict
from mathloop.domain import Head
from mathloop.propose.base import Context
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import Malformed
from mathloop.targets.pair_correlation_rh_ceiling import conditions, lp
from mathloop.targets.pair_correlation_rh_ceiling.arb_positivity import DualFunction, certify_dual_positive
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate
from mathloop.targets.pair_correlation_rh_ceiling.cross_check import f_mpmath
from mathloop.targets.pair_correlation_rh_ceiling.proposer import (CONFIGS, back_off, convex_combination, lp_tail, mass_points,
                                                                  mixing_weights, rationalise, refine)


@pytest.fixture(scope="module")
def contract():
    return load_contract("pair-correlation-rh-ceiling")


@pytest.fixture(scope="module")
def target(contract):
    return build_target(contract)


@pytest.fixture(scope="module")
def seed(contract):
    return dict(contract.seed)


@pytest.fixture(scope="module")
def lp_dual():
    """A tight certified dual from the LP at h = 1/10, A = 3 (ceiling about 0.72079)."""
    return rationalise(lp.solve(10, 30, margin=1e-5))


def verdicts(ev):
    return {r.id: r.verdict for r in ev.results}


def with_L(c: DualCandidate, L: F) -> DualCandidate:
    """Return c with a new L: nodes on [0, 1] on the new line, the others clamped to >= -L."""
    nodes = [j * c.h - L if j <= c.N else max(v, -L) for j, v in enumerate(c.nodes)]
    nodes[-1] = F(0)
    return replace(c, L=L, nodes=tuple(nodes))


def test_seed_certifies_its_ceiling(target, seed):
    ev = target.check(None, target.parse(seed))
    assert ev.bounds == {"ceiling": F(759, 1000)}
    assert all(r.rank == 0 for r in ev.results)
    assert ev.artifacts["range"]["method"].startswith("period")


def test_lp_dual_certifies_below_the_seed(target, lp_dual):
    ev = target.check(None, target.parse(lp_dual.payload()))
    assert ev.bounds["ceiling"] == 2 - lp_dual.L and F(7207, 10000) < ev.bounds["ceiling"] < F(7209, 10000)


def test_refuses_a_dual_with_L_133_below_the_certified_primal(target, lp_dual):
    # 2 - 1.33 = 0.67 < 0.67928 certified by pair-correlation-rh: no valid dual can exist
    bad = with_L(lp_dual, F(133, 100))
    ev = target.check(None, target.parse(bad.payload()))
    assert verdicts(ev)["dual-nonnegative"] is Verdict.REFUTED and not ev.bounds
    pos = ev.artifacts["positivity"]
    t = pos["witness_t"]
    assert pos["witness_x"] == t / bad.h and f_mpmath(bad, t, 30) < 0


def test_refuses_a_node_on_zero_one_off_the_line(target, seed):
    nodes = list(seed["nodes"])
    nodes[2] = "-841001/1000000"
    ev = target.check(None, target.parse({**seed, "nodes": nodes}))
    assert verdicts(ev)["k-on-the-line"] is Verdict.REFUTED and not ev.bounds
    assert "node j = 2" in " ".join(ev.result("k-on-the-line").reasons)


def test_refuses_a_node_below_minus_L_beyond_one(target, seed):
    nodes = list(seed["nodes"])
    nodes[7] = "-1242/1000"
    ev = target.check(None, target.parse({**seed, "nodes": nodes}))
    assert verdicts(ev)["k-above-floor"] is Verdict.REFUTED and not ev.bounds


def test_accepts_a_node_exactly_at_minus_L_beyond_one(target, seed):
    nodes = list(seed["nodes"])
    nodes[7] = "-1241/1000"  # (ii) allows equality; positivity decides the rest
    ev = target.check(None, target.parse({**seed, "nodes": nodes}))
    assert verdicts(ev)["k-above-floor"] is Verdict.PROVED


def test_refuses_a_nonzero_last_node(target, seed):
    nodes = list(seed["nodes"])
    nodes[-1] = "1/1000"
    ev = target.check(None, target.parse({**seed, "nodes": nodes}))
    assert verdicts(ev)["k-supported"] is Verdict.REFUTED and not ev.bounds


@pytest.mark.parametrize("masses, why", [
    ([{"at": "9/10", "weight": "1/10"}], "< 1"),
    ([{"at": "1", "weight": "-1/10"}], "< 0"),
])
def test_refuses_inadmissible_masses(target, seed, masses, why):
    ev = target.check(None, target.parse({**seed, "masses": masses}))
    assert verdicts(ev)["masses-admissible"] is Verdict.REFUTED and not ev.bounds
    assert why in " ".join(ev.result("masses-admissible").reasons)


@pytest.fixture(scope="module")
def heavy_dual():
    """A certified dual from the LP at h = 1/10, A = 3 with masses at alpha = 1, 3/2, ..., 6 (total weight > 1/2)."""
    return rationalise(lp.solve(10, 30, margin=1e-5, at=mass_points(10, 6)))


def test_heavy_masses_certify_below_the_single_mass_dual(target, heavy_dual, lp_dual):
    assert conditions.mass_sum(heavy_dual) > F(1, 2) and len(heavy_dual.masses) == 11
    ev = target.check(None, target.parse(heavy_dual.payload()))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] == 2 - heavy_dual.L
    assert ev.bounds["ceiling"] < lp_dual.ceiling - F(5, 1000)  # the half-integer masses are worth > 0.005 here
    floor = ev.result("mass-cosines-nonnegative")
    assert floor.trust.value == "rigorous" and "Arb cells" in floor.reasons[0]
    assert ev.artifacts["mass_floor"]["status"] == "positive" and ev.artifacts["range"]["tail_end"] is None
    assert ev.artifacts["range"]["method"].startswith("period") and ev.artifacts["range"]["end"] == 1


def test_heavy_mass_dual_with_L_raised_is_refused_at_a_witness(target, heavy_dual):
    bad = with_L(heavy_dual, heavy_dual.L + F(1, 100))  # the masses stay: a(t) >= 0 still holds, (iii) fails
    ev = target.check(None, target.parse(bad.payload()))
    assert verdicts(ev)["mass-cosines-nonnegative"] is Verdict.PROVED
    assert verdicts(ev)["dual-nonnegative"] is Verdict.REFUTED and not ev.bounds
    t = ev.artifacts["positivity"]["witness_t"]
    assert f_mpmath(bad, t, 30) < 0


def test_light_masses_pass_the_floor_exactly(target, seed):
    ev = target.check(None, target.parse(seed))
    floor = ev.result("mass-cosines-nonnegative")
    assert floor.verdict is Verdict.PROVED and floor.trust.value == "exact" and "mass_floor" not in ev.artifacts


def test_heavy_masses_with_a_nonnegative_pass_the_floor(target, seed):
    # a = 1 + 6/5 cos(th) + 3/5 cos(2 th) = 2/5 + 6/5 c + 6/5 c^2 >= 1/10 (c = cos th = -1/2): W = 9/10 >= 1/2
    masses = [{"at": "1", "weight": "3/5"}, {"at": "2", "weight": "3/10"}]
    ev = target.check(None, target.parse({**seed, "masses": masses}))
    assert verdicts(ev)["masses-admissible"] is Verdict.PROVED
    assert verdicts(ev)["mass-cosines-nonnegative"] is Verdict.PROVED
    assert 0 < ev.artifacts["mass_floor"]["min_lower_bound"] <= F(1, 10)  # a Taylor lower bound of min a = 1/10


def test_heavy_masses_with_a_negative_are_refused_with_a_witness(target, seed):
    # a = 1 + 7/5 cos(th) + 1/5 cos(2 th) = -1/5 at th = pi, i.e. t = 1/10 (b = 5 for the mass at 1, h = 1/5)
    masses = [{"at": "1", "weight": "7/10"}, {"at": "2", "weight": "1/10"}]
    c = target.parse({**seed, "masses": masses})
    ev = target.check(None, c)
    assert verdicts(ev)["mass-cosines-nonnegative"] is Verdict.REFUTED and not ev.bounds
    assert verdicts(ev)["dual-nonnegative"] is Verdict.UNKNOWN and "range" not in ev.artifacts
    t = ev.artifacts["mass_floor"]["witness_t"]
    assert lp.a_values(np.array([float(t)]), [F(7, 10), F(1, 10)], [5, 10])[0] < 0


def test_a_single_mass_of_weight_one_half_is_unknown_never_proved(target, seed):
    # a = 1 + cos(2 pi 5 t) >= 0 holds but touches 0: cells cannot certify it, and nothing is claimed
    ev = target.check(None, target.parse({**seed, "masses": [{"at": "1", "weight": "1/2"}]}))
    assert verdicts(ev)["mass-cosines-nonnegative"] is Verdict.UNKNOWN and not ev.bounds


def test_grid_lp_violation_between_grid_points_is_refused_and_its_backed_off_version_proves(target, seed):
    # an LP that imposes (iii) only on the grid t = 0, 1/40, ..., 1 (no cutting planes)
    grid = lp.solve(5, 10, margin=1e-6, grid_factor=4, max_rounds=1)
    on_grid = lp.f_values(np.linspace(0, 1, 41), 0.2, grid.nodes, grid.weights, grid.at)
    assert on_grid.min() > 0
    bad = rationalise(grid, 10**9)
    ev = target.check(None, target.parse(bad.payload()))
    assert verdicts(ev)["dual-nonnegative"] is Verdict.REFUTED and not ev.bounds
    t = ev.artifacts["positivity"]["witness_t"]
    assert (t * 40).denominator != 1 and f_mpmath(bad, t, 40) < 0
    # backing L off: a convex combination with the strictly positive seed (same grid) is a valid dual
    lam, good = back_off(bad, target.parse(seed), target.max_cells)
    ev2 = target.check(None, target.parse(good.payload()))
    assert all(r.rank == 0 for r in ev2.results) and ev2.bounds["ceiling"] == 2 - good.L
    assert good.L == lam * bad.L + (1 - lam) * F(1241, 1000) and 0 < lam < 1
    assert verdicts(target.check(None, target.parse(convex_combination(bad, target.parse(seed), 2 * lam).payload())))[
        "dual-nonnegative"] is Verdict.REFUTED


def test_tail_reduction_is_used_when_the_period_is_long(target, seed):
    c = target.parse({**seed, "masses": [{"at": "1001/1000", "weight": "1/5"}]})
    rng = conditions.reduced_range(c)
    assert rng.method.startswith("tail") and rng.period == 200 and rng.end == rng.tail
    S = conditions.abs_sum(c)
    assert rng.end**2 * (1 - 2 * F(1, 5)) * conditions.PI_SQUARED_BELOW >= c.h * S


def test_period_of_masses_off_the_grid(target, seed):
    c = target.parse({**seed, "masses": [{"at": "4/3", "weight": "1/10"}]})
    assert conditions.period(c) == 3  # (4/3) / (1/5) = 20/3


@pytest.mark.parametrize("which", ["lp_dual", "heavy_dual"])  # per-mass sines, and the harmonic polynomial
def test_arb_derivatives_match_mpmath(which, request):
    import flint
    import mpmath

    lp_dual = request.getfixturevalue(which)
    fn = DualFunction(lp_dual)
    assert (fn.harmonics is None) == (which == "lp_dual")
    t = F(3, 7)
    old = flint.ctx.prec
    flint.ctx.prec = fn.prec
    try:
        f0, f1, f2 = fn.at(t)
    finally:
        flint.ctx.prec = old
    assert abs(float(f0.mid()) - float(f_mpmath(lp_dual, t, 40))) < 1e-20
    with mpmath.workdps(30):
        x0 = mpmath.mpf(3) / 7
        d1 = mpmath.diff(lambda x: _mp_f(lp_dual, x), x0)
        d2 = mpmath.diff(lambda x: _mp_f(lp_dual, x), x0, 2)
    assert abs(float(f1.mid()) - float(d1)) < 1e-6 * max(1, abs(float(d1)))
    assert abs(float(f2.mid()) - float(d2)) < 1e-6 * max(1, abs(float(d2)))


def _mp_f(c, x):
    import mpmath

    P = mpmath.mpf(float(c.nodes[0])) + 2 * mpmath.fsum(float(v) * mpmath.cospi(2 * j * x) for j, v in enumerate(c.nodes) if j)
    out = 1 + mpmath.mpf(float(c.h)) * mpmath.sincpi(x) ** 2 * P
    for m in c.masses:
        out += 2 * float(m.weight) * mpmath.cospi(2 * float(m.at / c.h) * x)
    return out


def test_undecided_is_unknown_never_proved(target, seed):
    c = target.parse(seed)
    rep = certify_dual_positive(c, F(1), max_cells=20)
    assert rep.status == "unknown" and "limit" in rep.reason
    # a dual touching 0 exactly at t = 0 (f(0) = 0) can never be certified by cells
    touching = DualCandidate(F(1), F(1), F(1), (F(-1), F(0)))
    assert certify_dual_positive(touching, F(1), max_cells=2000).status == "unknown"


def test_value_below_class_maximum_is_refused_by_the_gate(contract, seed):
    raised = tuple(
        replace(o, bound=replace(o.bound, class_maximum=F(4, 5))) if o.kind is Kind.BOUND else o for o in contract.obligations
    )
    t = build_target(replace(contract, obligations=raised))
    decision = decide(t.contract, None, t.check(None, t.parse(seed)))
    assert decision.label is Label.ERROR and not decision.commits and "beyond the class floor" in decision.reasons[0]


def test_evidence_is_deterministic(target, seed):
    a = target.check(None, target.parse(seed)).canonical_bytes()
    b = target.check(None, target.parse(seed)).canonical_bytes()
    assert a == b


def test_statement_says_assuming_rh(contract):
    assert "ASSUMING THE RIEMANN HYPOTHESIS" in contract.statement
    assert {h.id for h in contract.hypotheses} == {"riemann-hypothesis", "montgomery-pair-correlation"}
    assert all(h.citation for h in contract.hypotheses)
    assert contract.obligation("weak-duality").kind is Kind.LEMMA
    assert contract.obligation("ceiling-bound").title.startswith("ASSUMING RH")


@pytest.mark.parametrize("patch, field", [
    ({"extra": 1}, "extra"),
    ({"h": 0.2}, "h"),
    ({"L": 1.241}, "L"),
    ({"h": "2/7"}, "h"),
    ({"h": "1/1000"}, "h"),
    ({"A": "11/10"}, "A"),
    ({"A": "1/2"}, "A"),
    ({"L": "1" * 60}, "L"),
    ({"nodes": ["0"] * 3}, "nodes"),
    ({"nodes": "0,0"}, "nodes"),
    ({"masses": [{"at": "1", "weight": "1/10", "x": "1"}]}, "x"),
    ({"masses": [{"at": "1", "weight": "1/100"}] * 129}, "masses"),
    ({"masses": {"at": "1"}}, "masses"),
    ({"masses": [{"at": "1e3", "weight": "0"}]}, "masses[0].at"),
])
def test_rejects_malformed_payloads(target, seed, patch, field):
    with pytest.raises(Malformed, match=field.replace("[", r"\[").replace("]", r"\]")):
        target.parse({**seed, **patch})


def test_rejects_huge_digit_nodes(target, seed):
    nodes = list(seed["nodes"])
    nodes[8] = "-" + "3" * 50 + "/" + "1" + "0" * 50
    with pytest.raises(Malformed, match=r"nodes\[8\]"):
        target.parse({**seed, "nodes": nodes})


def test_local_proposer_beats_the_head_deterministically(contract, target, seed):
    ev = target.check(None, target.parse(seed))
    head = Head("c0", 0, ev.state, {r.id: r.rank for r in ev.results}, ev.bounds)
    ctx = Context(contract, head, (), (), frozenset(), 0)
    a = target.local_proposer(0).propose(ctx)
    b = target.local_proposer(1).propose(ctx)
    assert len(a) == 1 and a[0].payload == b[0].payload
    ev2 = target.check(None, target.parse(a[0].payload))
    assert ev2.bounds["ceiling"] <= F(759, 1000) - contract.bound_spec("ceiling").min_improvement


def test_candidate_schema_matches_the_parser(target, seed):
    s = target.candidate_schema()
    assert set(s["required"]) == {"h", "A", "L", "nodes"} and "masses" in s["properties"]
    assert set(s["properties"]) == set(seed) and not s["additionalProperties"]


def test_refining_the_seed_onto_a_finer_grid_keeps_k_and_its_certificate(target, seed):
    c = target.parse(seed)
    at = tuple(F(b, 20) for b in mass_points(20, 3))
    fine = refine(c, 20, F(3), at)
    assert (fine.h, fine.A, fine.L, len(fine.nodes)) == (F(1, 20), F(3), c.L, 61)
    assert fine.nodes[::4][:len(c.nodes)] == c.nodes and fine.nodes[2] == (c.nodes[0] + c.nodes[1]) / 2
    for t in (F(1, 7), F(3, 11), F(5, 6)):  # the same k, so the same 1 + k-check at x = t/h (t is in units of h)
        assert abs(f_mpmath(fine, t / 4, 40) - f_mpmath(c, t, 40)) < 1e-30
    ev = target.check(None, target.parse(fine.payload()))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] == c.ceiling


@pytest.mark.parametrize("N, A, at, why", [
    (12, F(3), (F(1),), "multiple"),  # 1/5 does not divide 1/12
    (20, F(1), (F(1),), "A >= c.A"),
    (20, F(3), (F(3, 2),), "masses"),  # the seed's mass at 1 has nowhere to go
])
def test_refining_onto_an_incompatible_grid_is_refused(target, seed, N, A, at, why):
    with pytest.raises(ValueError, match="refine needs"):
        refine(target.parse(seed), N, A, at)


def test_pointwise_mixing_weight_proves_and_a_larger_one_is_refuted(target, seed):
    # the grid-only LP (violations between grid points) backed off towards the refined seed
    bad = rationalise(lp.solve(5, 10, margin=1e-6, grid_factor=4, max_rounds=1), 10**9)
    inner = refine(target.parse(seed), 5, F(2), tuple(m.at for m in bad.masses))
    lams = mixing_weights(bad, inner)
    assert 0 < lams[-1] < lams[0] < 1
    ok = [x for x in lams if verdicts(target.check(None, target.parse(convex_combination(bad, inner, x).payload())))[
        "dual-nonnegative"] is Verdict.PROVED]
    assert ok and ok[0] == lams[0]  # the largest weight, within 10^-3 of the float boundary, already certifies
    over = ((1 + lams[0] / F(999, 1000)) / 2).limit_denominator(1000)  # halfway between the float boundary and 1
    ev = target.check(None, target.parse(convex_combination(bad, inner, over).payload()))
    assert verdicts(ev)["dual-nonnegative"] is Verdict.REFUTED and not ev.bounds


def test_back_off_partners_are_the_head_and_the_seed_refined_where_they_fit(target, seed, lp_dual):
    proposer = target.local_proposer(0)
    fine = refine(lp_dual, 20, F(6), tuple(F(b, 20) for b in mass_points(20, 6)))
    partners = proposer._inners(fine, lp_dual.payload())
    assert [name for _, name in partners] == ["the head", "the seed"]
    assert all((p.h, p.A, [m.at for m in p.masses]) == (fine.h, fine.A, [m.at for m in fine.masses]) for p, _ in partners)
    assert partners[0][0].L == lp_dual.L and partners[1][0].L == F(1241, 1000)
    coarse = refine(target.parse(seed), 5, F(2), (F(1),))  # a head on a finer grid than the LP's does not refine
    assert [name for _, name in proposer._inners(coarse, lp_dual.payload())] == ["the seed"]


def test_coarse_tail_nodes_interpolate_the_knots_and_stay_above_minus_L():
    N, M, c0, step = 5, 30, 15, 3  # h = 1/5, A = 6, knots beyond alpha = 3 spaced 3/5
    K, k0 = lp.node_map(N, M, (c0, step))
    rng = np.random.default_rng(0)
    L = 1.3
    y = rng.uniform(0.0, 2.0, K.shape[1] - 1)
    k = K @ np.concatenate([[L], y]) + k0
    assert K.shape[1] == 1 + (c0 - N) + (M - c0) // step - 1  # L, the fine nodes N < j <= c0, the knots before M
    assert np.allclose(k[:N + 1], np.arange(N + 1) / N - L) and k[M] == 0
    knots = np.arange(c0, M + 1, step)
    assert np.allclose(k[c0:], np.interp(np.arange(c0, M + 1), knots, k[knots]))  # linear between knots
    assert np.allclose(k[N + 1:c0 + 1], y[:c0 - N] - L)
    zero = K @ np.concatenate([[L], np.zeros_like(y)]) + k0  # y = 0 at every knot: k = -L there, interpolation >= -L
    assert zero[N:].min() >= -L - 1e-12
    Kf, kf = lp.node_map(N, M, None)  # no tail: every node N < j < M is its own column
    assert Kf.shape[1] == M - N and np.allclose(Kf[N + 1:M, 1:], np.eye(M - N - 1))
    with pytest.raises(ValueError, match="coarse tail"):
        lp.node_map(N, M, (16, 3))


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_coarse_tail_lp_certifies_as_rationalised_and_costs_little(target):
    full = lp.solve(10, 60, margin=1e-5, at=mass_points(10, 12), grid_factor=4)
    tail = lp.solve(10, 60, margin=1e-5, at=mass_points(10, 12), grid_factor=4, coarse=(30, 2))
    assert 0 <= tail.ceiling - full.ceiling < 1e-3  # fewer columns: a slightly weaker LP, never a better one
    c = rationalise(tail)
    assert c.N == 10 and len(c.nodes) == 61  # the candidate is still on the fine grid; only the LP was smaller
    ev = target.check(None, target.parse(c.payload()))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] == c.ceiling
    ev = target.check(None, target.parse(with_L(c, c.L + F(1, 10**4)).payload()))
    assert verdicts(ev)["dual-nonnegative"] is Verdict.REFUTED and not ev.bounds


@pytest.mark.parametrize("N, A, tail", [(10, 6, (3, 3)), (10, 6, (6, 5)), (10, 6, (0, 5))])
def test_a_coarse_tail_that_does_not_fit_the_grid_is_refused(N, A, tail):
    with pytest.raises(ValueError, match="coarse tail"):
        lp_tail(N, A, tail)


def test_every_shipped_configuration_fits_the_contract_and_its_tail_fits_its_grid(target):
    proposer = target.local_proposer(0)
    for N, A, Aw, tail in CONFIGS:
        assert proposer._fits(N, A, Aw), (N, A, Aw)
        coarse = lp_tail(N, A, tail)
        assert coarse is None or lp.node_map(N, N * A, coarse)[0].shape[1] < N * A - N  # fewer columns than free nodes


@pytest.mark.slow
def test_the_coarse_tail_lp_at_one_twentieth_certifies_a_ceiling_at_most_0_68(target):
    # the moonshot of issue 15: 1/h = 20, A = 40, masses at 1, 3/2, ..., 40, tail knots 1/5 apart beyond 5
    proposer = target.local_proposer(0)
    c, how = proposer._search(20, 40, 40, None, tail=(5, 5))
    assert c.ceiling <= F(68, 100) and c.N == 20 and len(c.nodes) == 801
    ev = target.check(None, target.parse(c.payload()))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] == c.ceiling <= F(68, 100)
