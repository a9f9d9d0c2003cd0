"""Rules by construction: every reply of a target's proposal form maps exactly to a candidate meeting its side
conditions (should-prove), and replies off the form are malformed with the field and reason (should-refuse)."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey import admissibility
from mathloop.targets.levinson_conrey.form import LevinsonForm, expand
from mathloop.targets.polynomial import evaluate

LC = build_target(load_contract("levinson-conrey"))
FORM = LevinsonForm(LC.settings.limits.max_degree, LC.parse).form()  # absolute S/T/R (the edit form: _edits.py)


def replies(form):
    """Return a hypothesis strategy of replies drawn from the form's own JSON schema (patterns, lengths)."""
    props = form.schema["properties"]

    def field(s):
        if s["type"] == "array":
            return st.lists(st.from_regex(s["items"]["pattern"], fullmatch=True), min_size=s["minItems"],
                            max_size=s["maxItems"])
        return st.from_regex(s["pattern"], fullmatch=True)

    return st.fixed_dictionaries({k: field(v) for k, v in props.items()})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(FORM))
def test_every_levinson_reply_of_the_schema_maps_to_an_admissible_candidate(reply):
    payload = FORM.to_payload(reply)
    c = LC.parse(payload)  # within the contract's limits
    fails = admissibility.failures(c, Fraction(4, 7) - Fraction(1, 100), Fraction(4, 7))
    assert not fails, fails  # P(0) = 0, P(1) = 1, Q(0) = 1, Q symmetric, R > 0


@settings(max_examples=60, deadline=None)
@given(replies(FORM))
def test_the_levinson_mapping_is_exact_and_the_head_reads_back(reply):
    S = tuple(Fraction(v) for v in reply["S"])
    T = tuple(Fraction(v) for v in reply["T"])
    P, Q = expand(S, T)
    for x in (Fraction(1, 3), Fraction(2, 7), Fraction(5, 4)):
        assert evaluate(P, x) == x + x * (1 - x) * sum(s * x**k for k, s in enumerate(S))
        assert evaluate(Q, x) == 1 - sum(T) + sum(t * (1 - 2 * x) ** (2 * k + 1) for k, t in enumerate(T))
    back = FORM.from_payload(FORM.to_payload(reply))
    assert FORM.to_payload(back) == FORM.to_payload(reply)  # decimals of <= 6 places read back exactly


def test_the_largest_levinson_reply_stays_within_the_shipped_limits():
    big = {"S": ["-0.999999", "0.999999"] * 5 + ["-0.999999"], "T": ["0.999999", "-0.999999"] * 3,
           "R": "1.99999999999"}
    LC.parse(FORM.to_payload(big))


def test_the_seed_is_s_zero_t_half():
    assert FORM.from_payload({"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}) == {"S": ["0"], "T": ["0.5"], "R": "1.3"}


@pytest.mark.parametrize("reply, field", [
    ({"S": ["1/3"], "T": ["0.5"], "R": "1"}, "S[0]"),
    ({"S": ["0"], "T": ["0.5"], "R": "0"}, "R"),
    ({"S": ["0"], "T": ["0.5"], "R": "-1"}, "R"),
    ({"S": ["0"], "T": ["0.5"], "R": "12"}, "R"),
    ({"S": ["0"], "T": ["0.5"], "R": "2.4"}, "R"),  # the form's R is in (0, 2)
    ({"S": ["0"], "T": ["1.5"], "R": "1.3"}, "T[0]"),  # entries in (-1, 1)
    ({"S": ["0"], "T": ["0.5", "-39"], "R": "1.3"}, "T[1]"),
    ({"S": [], "T": ["0.5"], "R": "1"}, "S"),
    ({"S": ["0"] * 12, "T": ["0.5"], "R": "1"}, "S"),
    ({"S": ["0"], "T": ["0.5"] * 7, "R": "1"}, "T"),
    ({"S": ["0"], "T": ["0.5"], "R": "1", "P": ["0", "1"]}, "P"),
    ({"S": ["0"], "R": "1"}, "T"),
    ({"S": ["0"], "T": [0.5], "R": "1"}, "T[0]"),
    ({"S": ["0.1234567"], "T": ["0.5"], "R": "1"}, "S[0]"),
])
def test_levinson_replies_off_the_form_are_malformed_naming_the_field(reply, field):
    with pytest.raises(Malformed) as e:
        FORM.to_payload(reply)
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_a_head_without_the_form_has_no_form_view():
    assert FORM.from_payload({"P": ["1", "1"], "Q": ["1", "-1"], "R": "1"}) is None  # P(0) != 0
    assert FORM.from_payload({"P": ["0", "1"], "Q": ["1", "-1"], "R": "23/8"}) is None  # R outside the form's (0, 2)
    assert FORM.from_payload({"P": ["0", "1"], "Q": ["1", "-3"], "R": "1"}) is None  # T = [1.5]
    assert FORM.from_payload({"P": ["0", "1"], "Q": ["1", "-1", "1"], "R": "1"}) is None  # Q not symmetric


def test_targets_without_a_form_offer_the_identity():
    form = build_target(load_contract("pair-correlation")).proposal_form()
    assert form.identity and form.to_payload({"a": 1}) == {"a": 1}


PC = build_target(load_contract("pair-correlation-rh"))
PC_FORM = PC.proposal_form()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(PC_FORM))
def test_every_pair_correlation_reply_of_the_schema_has_the_grid_and_a_nonpositive_tail(reply):
    from mathloop.targets.pair_correlation_rh.functional import value_at

    c = PC.parse(PC_FORM.to_payload(reply))  # A/h nodes exactly, h and A within the limits
    assert (c.h, c.A, len(c.nodes)) == (Fraction(1, 5), Fraction(2), 10)
    assert value_at(c.h, c.nodes, Fraction(1)) <= 0 and all(v <= 0 for j, v in enumerate(c.nodes) if j * c.h >= 1)
    assert c.nodes == tuple(Fraction(v) for v in reply["body"]) + tuple(-Fraction(v) for v in reply["tail"])


def test_the_pair_correlation_seed_reads_back_exactly():
    seed = dict(PC.contract.seed)
    assert PC_FORM.to_payload(PC_FORM.from_payload(seed)) == PC.parse(seed).payload()


@pytest.mark.parametrize("reply, field", [
    ({"body": ["1"] * 10, "tail": ["0"] * 5}, "body"),  # ten nodes where the grid has five below 1
    ({"body": ["1"] * 5, "tail": ["-0.1"] * 5}, "tail[0]"),
    ({"body": ["1"] * 5, "tail": ["0"] * 4}, "tail"),
    ({"body": ["1/2"] * 5, "tail": ["0"] * 5}, "body[0]"),
    ({"nodes": ["1"] * 10}, "nodes"),
])
def test_pair_correlation_replies_off_the_form_are_malformed_naming_the_field(reply, field):
    with pytest.raises(Malformed) as e:
        PC_FORM.to_payload(reply)
    assert str(e.value).startswith(field + ":"), str(e.value)


SIDON = build_target(load_contract("sidon-autocorrelation"))
SIDON_FORM = SIDON.proposal_form()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(SIDON_FORM))
def test_every_sidon_reply_of_the_schema_is_a_nonnegative_step_function_with_positive_integral(reply):
    steps = SIDON.parse(SIDON_FORM.to_payload(reply))
    assert SIDON.admissibility(steps) is None
    assert steps.heights == tuple(Fraction(h) for h in reply["heights"])  # exact, the identity on values


def test_the_sidon_seed_reads_back():
    assert SIDON_FORM.from_payload(dict(SIDON.contract.seed)) == {"heights": ["1"]}


@pytest.mark.parametrize("reply, field", [
    ({"heights": ["0"]}, "heights[0]"),
    ({"heights": ["1", "-0.5"]}, "heights[1]"),
    ({"heights": ["10"]}, "heights[0]"),
    ({"heights": []}, "heights"),
    ({"heights": ["1"] * 65}, "heights"),
])
def test_sidon_replies_off_the_form_are_malformed_naming_the_field(reply, field):
    with pytest.raises(Malformed) as e:
        SIDON_FORM.to_payload(reply)
    assert str(e.value).startswith(field + ":"), str(e.value)
