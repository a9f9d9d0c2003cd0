"""Target `pair-correlation`: reference values, refusals, class maximum, parsing, determinism."""

from dataclasses import replace
from fractions import Fraction as F

import flint
import pytest

from mathloop.targets import load_contract
from mathloop.domain import Kind, Label, Scores, Verdict
from mathloop.order import compare
from mathloop.propose.base import Context, Head
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import Malformed


@pytest.fixture(scope="module")
def contract():
    return load_contract("pair-correlation")


@pytest.fixture(scope="module")
def target(contract):
    return build_target(contract)


def certify(target, g):
    return target.check(None, target.parse({"g": g}))


@pytest.mark.parametrize(
    "g, value",
    [(["1"], F(2, 3)), (["29", "-28"], F(269, 400)), (["3241", "-3240", "528"], F(26282, 39081))],
)
def test_reproduces_reference_values(target, g, value):
    ev = certify(target, g)
    assert ev.bounds == {"proportion": value}
    assert all(r.verdict is Verdict.PROVED and r.rank == 0 for r in ev.results)
    assert ev.artifacts["moments"]["B"] == value


def test_proves_g_touching_zero_at_the_support_ends(target):
    assert "proportion" in certify(target, ["1", "-4"]).bounds  # 1 - 4x^2 >= 0 on [-1/2, 1/2]


def test_refuses_g_dipping_below_zero_near_the_support_ends(target):
    ev = certify(target, ["1", "-4.000001"])
    assert ev.bounds == {}
    assert ev.result("g-nonnegative").verdict is Verdict.REFUTED
    assert ev.result("proportion-bound").rank == 1
    assert ev.reasons()


def test_proves_double_root_touching_inside(target):
    assert certify(target, ["1", "-16", "64"]).result("g-nonnegative").verdict is Verdict.PROVED


def test_refuses_double_root_pushed_below_zero(target):
    ev = certify(target, ["999999999999/1000000000000", "-16", "64"])
    assert ev.result("g-nonnegative").verdict is Verdict.REFUTED and not ev.bounds


def test_refuses_zero_mass(target):
    ev = certify(target, ["1", "-12"])  # int (1 - 12 x^2) = 1 - 1 = 0
    assert ev.result("mass-nonzero").verdict is Verdict.REFUTED and not ev.bounds


def test_value_above_class_maximum_is_refused_by_the_gate(contract):
    lowered = tuple(
        replace(o, bound=replace(o.bound, class_maximum=F(2, 3))) if o.kind is Kind.BOUND else o for o in contract.obligations
    )
    t = build_target(replace(contract, obligations=lowered))
    assert decide(t.contract, None, t.check(None, t.parse({"g": ["1"]}))).commits  # exactly at the maximum: allowed
    decision = decide(t.contract, None, t.check(None, t.parse({"g": ["29", "-28"]})))
    assert decision.label is Label.ERROR and not decision.commits and "class maximum" in decision.reasons[0]


def test_class_maximum_is_just_above_b_star(contract):
    cm = contract.bound_spec("proportion").class_maximum
    flint.ctx.prec = 300
    s = flint.arb(2).sqrt()
    b_star = flint.arb(3) / 2 - (1 / s).cot() / s
    gap = flint.arb(flint.fmpq(cm.numerator, cm.denominator)) - b_star
    assert gap > 0 and gap < flint.arb("1e-28")


def test_evidence_is_deterministic(target):
    a = certify(target, ["3241", "-3240", "528"]).canonical_bytes()
    b = certify(target, ["3241", "-3240", "528"]).canonical_bytes()
    assert a == b


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"g": ["1"], "x": "1"}, "x"),
        ({}, "g"),
        ({"g": [1]}, "g[0]"),
        ({"g": ["nan"]}, "g[0]"),
        ({"g": ["inf"]}, "g[0]"),
        ({"g": ["1e5"]}, "g[0]"),
        ({"g": ["1/0"]}, "g[0]"),
        ({"g": ["1" * 121]}, "g[0]"),
        ({"g": ["1"] * 17}, "g"),
        ({"g": []}, "g"),
        ({"g": "1"}, "g"),
        (["1"], "payload"),
    ],
)
def test_rejects_malformed_payloads(target, payload, field):
    with pytest.raises(Malformed) as e:
        target.parse(payload)
    assert str(e.value).startswith(field + ":")


def test_canonical_state_drops_trailing_zeros(target):
    assert target.parse({"g": ["2/4", "0"]}).payload() == {"g": ["1/2"]}


def test_local_proposer_offers_strict_progress(contract, target):
    ev = certify(target, ["1"])
    head = Head("root", 0, ev.state, ev.ranks, dict(ev.bounds))
    ctx = Context(contract, head, (), (), frozenset(), 0)
    (prop,) = target.local_proposer(0).propose(ctx)
    new = target.check(ev.state, target.parse(prop.payload))
    assert compare(Scores.of(ev), Scores.of(new), {b.name: b for b in contract.bounds}).passes_gate


def test_search_reaches_b_star_within_1e_15(contract, target):
    ev = certify(target, ["1"])
    scores, seen, proposer = Scores.of(ev), set(), target.local_proposer(0)
    specs = {b.name: b for b in contract.bounds}
    for rnd in range(40):
        head = Head(str(rnd), rnd, ev.state, ev.ranks, dict(scores.bounds))
        props = proposer.propose(Context(contract, head, (), (), frozenset(seen), rnd))
        if not props:
            break
        from mathloop.propose.base import payload_sha

        seen.add(payload_sha(props[0].payload))
        new = target.check(ev.state, target.parse(props[0].payload))
        cmp = compare(scores, Scores.of(new), specs)
        assert cmp.passes_gate
        ev, scores = new, Scores.of(new)
    b_star_low = F(67250070367941164573, 10**20)
    assert b_star_low - scores.bounds["proportion"] < F(1, 10**15)
