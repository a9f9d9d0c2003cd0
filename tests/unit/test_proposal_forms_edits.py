"""Bounded edits of the head (levinson-conrey): every step reply of the schema maps exactly to an admissible
candidate (should-prove), steps over the bound or off the spelling are malformed naming the field (should-refuse)."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mathloop.propose.schemas import ReplyReader
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey import admissibility
from mathloop.targets.levinson_conrey.form import LevinsonForm, expand
from mathloop.targets.polynomial import evaluate

CONTRACT = load_contract("levinson-conrey")
LC = build_target(CONTRACT)
FORM = LC.proposal_forms()["edits"]
ABSOLUTE = LevinsonForm(LC.settings.limits.max_degree, LC.parse).form()
SEED = dict(CONTRACT.seed)


def _field(s):
    if s["type"] == "array":
        return st.lists(st.from_regex(s["items"]["pattern"], fullmatch=True), min_size=s["minItems"],
                        max_size=s["maxItems"])
    return st.from_regex(s["pattern"], fullmatch=True)


def replies(form):
    """Return a hypothesis strategy of replies drawn from the form's own JSON schema (patterns, lengths)."""
    return st.fixed_dictionaries({k: _field(v) for k, v in form.schema["properties"].items()})


def _admissible(payload):
    c = LC.parse(payload)  # within the contract's limits
    fails = admissibility.failures(c, Fraction(4, 7) - Fraction(1, 100), Fraction(4, 7))
    assert not fails, fails  # P(0) = 0, P(1) = 1, Q(0) = 1, Q symmetric, R > 0
    return c


def _clamped(v, lo, hi):
    return min(max(v, lo), hi)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(ABSOLUTE), replies(FORM))
def test_every_edit_of_every_head_in_the_form_maps_exactly_to_an_admissible_candidate(head_reply, edit):
    head = ABSOLUTE.to_payload(head_reply)  # any head of the S/T/R form (the seed and every model-made head)
    c = _admissible(FORM.map(edit, head))
    shown = ABSOLUTE.from_payload(head)
    edge = Fraction(999999, 10**6)

    def added(h, d):
        n = max(len(h), len(d))
        h, d = list(h) + [Fraction(0)] * (n - len(h)), list(d) + [Fraction(0)] * (n - len(d))
        return tuple(_clamped(a + b, -edge, edge) for a, b in zip(h, d))

    S = added([Fraction(v) for v in shown["S"]], [Fraction(v) for v in edit["dS"]])
    T = added([Fraction(v) for v in shown["T"]], [Fraction(v) for v in edit["dT"]])
    R = _clamped(Fraction(shown["R"]) + Fraction(edit["dR"]), Fraction(1, 1000), Fraction(1999, 1000))
    assert c.R == R
    for x in (Fraction(1, 3), Fraction(2, 7), Fraction(5, 4)):  # the mapping is exact
        assert evaluate(c.P, x) == x + x * (1 - x) * sum(s * x**k for k, s in enumerate(S))
        assert evaluate(c.Q, x) == 1 - sum(T) + sum(t * (1 - 2 * x) ** (2 * k + 1) for k, t in enumerate(T))


@settings(max_examples=80, deadline=None)
@given(replies(FORM))
def test_every_step_is_bounded_by_the_schema_so_a_small_step_is_the_only_step(edit):
    for v in [*edit["dS"], *edit["dT"], edit["dR"]]:
        assert abs(Fraction(v)) <= Fraction(1, 5)


def test_the_measured_small_step_from_the_seed_is_one_reply():
    # S = [-0.2], T = [0.6, -0.1], R = 1.2: kappa 0.40528 (checked by the previous session)
    payload = FORM.map({"dS": ["-0.2"], "dT": ["0.1", "-0.1"], "dR": "-0.1"}, SEED)
    assert payload == ABSOLUTE.to_payload({"S": ["-0.2"], "T": ["0.6", "-0.1"], "R": "1.2"})
    assert payload == {"P": ["0", "4/5", "1/5"], "Q": ["1", "-3/5", "-6/5", "4/5"], "R": "6/5"}


def test_an_empty_edit_is_the_head_itself_and_reads_as_a_repeat_of_the_seed():
    reader = ReplyReader(CONTRACT, LC)
    mapped, by_form = reader.payload({"dS": [], "dT": ["0"], "dR": "0"}, SEED)
    assert by_form and LC.parse(mapped) == LC.parse(SEED)


def test_a_step_past_the_forms_range_stops_at_its_edge():
    head = ABSOLUTE.to_payload({"S": ["0.95"], "T": ["-0.9"], "R": "0.05"})
    c = LC.parse(FORM.map({"dS": ["0.2"], "dT": ["-0.2"], "dR": "-0.2"}, head))
    assert c.R == Fraction(1, 1000)
    assert FORM.from_payload(FORM.map({"dS": ["0.2"], "dT": ["-0.2"], "dR": "0"}, head))["S"] == ["0.999999"]


def test_an_s_t_r_reply_and_a_full_payload_are_still_read_as_before():
    reply = {"S": ["0.2", "-0.5"], "T": ["0.4", "0.05"], "R": "1.3"}
    assert FORM.map(reply, SEED) == ABSOLUTE.to_payload(reply)
    assert ReplyReader(CONTRACT, LC).payload(dict(SEED), SEED) == (dict(SEED), False)


@pytest.mark.parametrize("edit, field", [
    ({"dS": ["0.25"], "dT": [], "dR": "0"}, "dS[0]"),  # over the step
    ({"dS": [], "dT": ["0.21"], "dR": "0"}, "dT[0]"),
    ({"dS": [], "dT": [], "dR": "-0.3"}, "dR"),
    ({"dS": [], "dT": [], "dR": "1/10"}, "dR"),  # fractions are off the spelling
    ({"dS": [], "dT": [], "dR": "0.0001"}, "dR"),  # more than 3 places
    ({"dS": [0.1], "dT": [], "dR": "0"}, "dS[0]"),  # a JSON number, not a string
    ({"dS": ["0"] * 12, "dT": [], "dR": "0"}, "dS"),  # over the degree limit
])
def test_a_step_off_the_schema_is_malformed_naming_the_field(edit, field):
    with pytest.raises(Malformed) as e:
        FORM.map(edit, SEED)
    assert str(e.value).startswith(f"{field}: ")


def test_a_reply_missing_a_key_or_with_an_extra_one_is_malformed():
    for edit in ({"dS": [], "dT": []}, {"dS": [], "dT": [], "dR": "0", "R": "1.3"}):
        with pytest.raises(Malformed):
            FORM.map(edit, SEED)


def test_an_edit_of_a_head_without_an_s_t_r_form_is_malformed_not_guessed():
    head = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "5/2"}  # R outside (0, 2): no S/T/R form
    with pytest.raises(Malformed, match="^dS: the head has no S/T/R form"):
        FORM.map({"dS": [], "dT": [], "dR": "0"}, head)
    with pytest.raises(Malformed, match="^dS: the head has no S/T/R form"):
        FORM.map({"dS": [], "dT": [], "dR": "0"}, None)


def test_the_step_pattern_is_what_the_parser_reads():
    P, Q = expand((Fraction(0),), (Fraction(1, 2),))
    assert (P, Q) == ((0, 1), (1, -1))
    pattern = FORM.schema["properties"]["dR"]["pattern"]
    assert "(?" not in pattern  # no lookaheads: llama.cpp's grammar converter reads alternations only
    for ok in ("0", "-0", "0.2", "-0.200", "0.05", "-0.199", "0.1"):
        FORM.map({"dS": [], "dT": [], "dR": ok}, SEED)


def test_the_history_shows_each_attempt_as_the_edit_of_the_head_that_gives_it():
    from mathloop.domain import Head, Label, Rejection
    from mathloop.propose.base import Context
    from mathloop.propose.prompt import build_messages

    tried = FORM.map({"dS": ["-0.2"], "dT": ["0", "-0.1"], "dR": "0.05"}, SEED)
    ctx = Context(CONTRACT, Head("c" * 64, 0, SEED, {}, {}), ("kappa-bound",),
                  (Rejection(tried, Label.REGRESSION, ("kappa 0.39 is below the head's",)),), frozenset(), 0, 1)
    user = build_messages(ctx, FORM.schema, rejections=4, form=FORM)[1]["content"]
    assert '- regression: {"dR": "0.05", "dS": ["-0.2"], "dT": ["0", "-0.1"]} -> kappa 0.39' in user
    assert FORM.map(FORM.as_edit(tried, SEED), SEED) == tried  # the line is a reply that gives the attempt again
