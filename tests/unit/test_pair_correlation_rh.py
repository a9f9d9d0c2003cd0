"""Target `pair-correlation-rh` (assuming RH): reference value, refusals, class maximum, parsing."""

from dataclasses import replace
from fractions import Fraction as F

import pytest

from mathloop.targets import load_contract
from mathloop.domain import Kind, Label, Scores, Verdict
from mathloop.order import compare
from mathloop.propose.base import Context, Head
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import Malformed

REF = ["10039/10000", "8901/10000", "6374/10000", "3708/10000", "1422/10000", "0", "-312/10000", "-113/10000", "0", "0"]


@pytest.fixture(scope="module")
def contract():
    return load_contract("pair-correlation-rh")


@pytest.fixture(scope="module")
def target(contract):
    return build_target(contract)


def certify(target, h, A, nodes):
    return target.check(None, target.parse({"h": h, "A": A, "nodes": nodes}))


def test_reproduces_reference_value(target):
    ev = certify(target, "1/5", "2", REF)
    assert ev.bounds == {"proportion": F(101248, 149997)}
    assert all(r.rank == 0 for r in ev.results)


def test_triangle_gives_montgomerys_two_thirds(target):
    assert certify(target, "1", "1", ["1"]).bounds == {"proportion": F(2, 3)}


def test_refuses_positive_rhat_beyond_one(target):
    nodes = list(REF)
    nodes[6] = "312/10000"
    ev = certify(target, "1/5", "2", nodes)
    assert ev.result("rhat-nonpositive-tail").verdict is Verdict.REFUTED and not ev.bounds


def test_refuses_positive_rhat_at_one_between_grid_points(target):
    # h = 2/5: alpha = 1 lies inside the piece [4/5, 6/5]; r-hat(1) = (1/2)(c_2 + c_3) > 0
    ev = certify(target, "2/5", "8/5", ["1", "1/2", "1/4", "-1/10"])
    assert ev.result("rhat-nonpositive-tail").verdict is Verdict.REFUTED


def _dipping(delta: F) -> list[str]:
    a = F(89, 100)
    return [str(F(1, 2) + a * a - delta), str(-a), "1/4"]


def test_refuses_sign_changing_p_that_is_positive_on_a_coarse_grid(target):
    ev = certify(target, "1/4", "3/4", _dipping(F(1, 1000)))
    assert ev.result("r-nonnegative").verdict is Verdict.REFUTED and not ev.bounds


def test_proves_p_with_an_interior_double_zero(target):
    ev = certify(target, "1/4", "3/4", _dipping(F(0)))
    assert ev.result("r-nonnegative").verdict is Verdict.PROVED


def test_refuses_nonpositive_mass(target):
    ev = certify(target, "1/2", "1", ["1", "-1"])
    assert ev.result("mass-positive").verdict is Verdict.REFUTED and not ev.bounds


def test_value_above_class_maximum_is_refused_by_the_gate(contract):
    lowered = tuple(
        replace(o, bound=replace(o.bound, class_maximum=F(2, 3))) if o.kind is Kind.BOUND else o for o in contract.obligations
    )
    t = build_target(replace(contract, obligations=lowered))
    decision = decide(t.contract, None, t.check(None, t.parse({"h": "1/5", "A": "2", "nodes": REF})))
    assert decision.label is Label.ERROR and not decision.commits and "class maximum" in decision.reasons[0]


def test_evidence_is_deterministic(target):
    assert certify(target, "1/5", "2", REF).canonical_bytes() == certify(target, "1/5", "2", REF).canonical_bytes()


def test_statement_says_assuming_rh(contract):
    assert "ASSUMING THE RIEMANN HYPOTHESIS" in contract.statement
    assert [h.id for h in contract.hypotheses_for("proportion-bound")][0] == "riemann-hypothesis"


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"h": "1/5", "A": "2", "nodes": REF, "extra": 1}, "extra"),
        ({"h": "1/5", "nodes": REF}, "A"),
        ({"h": 0.2, "A": "2", "nodes": REF}, "h"),
        ({"h": "0", "A": "2", "nodes": REF}, "h"),
        ({"h": "1/1000", "A": "2", "nodes": REF}, "h"),
        ({"h": "1/5", "A": "9", "nodes": REF}, "A"),
        ({"h": "1/3", "A": "1/2", "nodes": REF}, "A"),
        ({"h": "1/5", "A": "2", "nodes": REF[:-1]}, "nodes"),
        ({"h": "1/5", "A": "2", "nodes": REF[:-1] + ["nan"]}, "nodes[9]"),
        ({"h": "1/5", "A": "2", "nodes": REF[:-1] + ["1" * 41]}, "nodes[9]"),
    ],
)
def test_rejects_malformed_payloads(target, payload, field):
    with pytest.raises(Malformed) as e:
        target.parse(payload)
    assert str(e.value).startswith(field + ":")


def test_local_proposer_beats_the_reference(contract, target):
    ev = certify(target, "1/5", "2", REF)
    head = Head("root", 0, ev.state, ev.ranks, dict(ev.bounds))
    (prop,) = target.local_proposer(0).propose(Context(contract, head, (), (), frozenset(), 0))
    new = target.check(ev.state, target.parse(prop.payload))
    assert compare(Scores.of(ev), Scores.of(new), {b.name: b for b in contract.bounds}).passes_gate
