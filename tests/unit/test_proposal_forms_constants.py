"""Rules by construction for the constants targets erdos-minimum-overlap and shannon-capacity-c7: every reply of the
form's schema maps exactly to an admissible candidate (should-prove), off-form replies are malformed naming the
field (should-refuse)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.erdos_minimum_overlap.form import to_mean_half
from mathloop.targets.shannon_capacity_c7.construct import code_payload, find_generator
from mathloop.targets.shannon_capacity_c7.graph import adjacent, independent_plain
from mathloop.targets.shannon_capacity_c7.form import codewords
from tests.unit.test_proposal_forms import replies

ERDOS = build_target(load_contract("erdos-minimum-overlap"))
ERDOS_FORM = ERDOS.proposal_form()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(ERDOS_FORM))
def test_every_erdos_reply_of_the_schema_maps_to_an_admissible_step_function(reply):
    steps = ERDOS.parse(ERDOS_FORM.to_payload(reply))  # within the contract's limits
    assert ERDOS.admissibility(steps) is None  # 0 <= f <= 1 after the checker's normalisation
    n = steps.n
    assert sum(steps.heights) == Fraction(n, 2)  # mean 1/2: the checker's n·h/(2Σh) is h itself, ∫f = 1
    u = [Fraction(v) for v in reply["values"]]
    m = sum(u) / n
    want = [x / (2 * m) for x in u] if m >= Fraction(1, 2) else [1 - (1 - x) / (2 * (1 - m)) for x in u]
    assert list(steps.heights) == want  # the mapping is exact


def test_an_erdos_reply_with_mean_one_half_maps_to_itself():
    assert ERDOS_FORM.to_payload({"values": ["0.25", "0.75", "0.75", "0.25"]}) == {"heights": ["1/4", "3/4", "3/4", "1/4"]}


def test_an_erdos_edit_of_the_seed_certifies_an_improvement():
    payload = ERDOS_FORM.to_payload({"values": ["0.25", "0.75", "1", "0.75", "0.25"]})  # mean 3/5: scaled by 5/6
    assert payload == {"heights": ["5/24", "5/8", "5/6", "5/8", "5/24"]}
    value, _ = ERDOS.evaluate(ERDOS.parse(payload))
    assert value < Fraction(1, 2) and float(value) == pytest.approx(0.3958333, abs=1e-6)


def test_the_erdos_seed_reads_back_and_maps_to_itself():
    seed = dict(ERDOS.contract.seed)
    assert ERDOS_FORM.from_payload(seed) == {"values": ["0", "1", "1", "0"]}
    assert ERDOS_FORM.to_payload(ERDOS_FORM.from_payload(seed)) == ERDOS.parse(seed).payload()


def test_an_erdos_reply_far_from_mean_one_half_is_moved_towards_one_or_zero():
    assert to_mean_half((Fraction(0),) * 3) == (Fraction(1, 2),) * 3
    assert to_mean_half((Fraction(1),) * 2) == (Fraction(1, 2),) * 2
    assert to_mean_half((Fraction(1), Fraction(1), Fraction(0), Fraction(1))) == (
        Fraction(2, 3), Fraction(2, 3), Fraction(0), Fraction(2, 3))


def test_an_erdos_head_over_one_or_too_long_has_no_form_view():
    assert ERDOS_FORM.from_payload({"heights": ["1"] * 65}) is None
    assert ERDOS_FORM.from_payload({"heights": ["3", "0", "0", "0"]}) is None  # normalised 4·3/6 = 2 > 1


@pytest.mark.parametrize("reply, field", [
    ({"values": ["1.5"]}, "values[0]"),
    ({"values": ["0.5", "-0.1"]}, "values[1]"),
    ({"values": ["1.01"]}, "values[0]"),
    ({"values": ["0.1234567"]}, "values[0]"),
    ({"values": ["1/2"]}, "values[0]"),
    ({"values": [0.5]}, "values[0]"),
    ({"values": []}, "values"),
    ({"values": ["0.5"] * 65}, "values"),
    ({"heights": ["0.5"]}, "heights"),
    ({}, "values"),
])
def test_erdos_replies_off_the_form_are_malformed_naming_the_field(reply, field):
    with pytest.raises(Malformed) as e:
        ERDOS_FORM.to_payload(reply)
    assert str(e.value).startswith(field + ":"), str(e.value)


C7 = build_target(load_contract("shannon-capacity-c7"))
C7_FORM = C7.proposal_form()


def c7_replies():
    """Replies from the form's schema, with at most 3 generator rows (4 rows: one test below, 2401 codewords)."""
    return replies(C7_FORM).map(lambda r: {**r, "generator": r["generator"][:3]})


def _read_order(reply):
    rows = [tuple(int(c) for c in w) for w in reply["generator"]]
    return [*codewords(rows, 5), *(tuple(int(c) for c in w) for w in reply["vertices"])]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(c7_replies())
def test_every_c7_reply_of_the_schema_maps_to_an_independent_set(reply):
    c = C7.parse(C7_FORM.to_payload(reply))  # within the contract's limits
    kept = list(c.vertices)
    assert c.n == 5 and kept and independent_plain(kept)  # the second, plain-Python independence check
    read = _read_order(reply)
    assert set(kept) <= set(read)
    # exact: every word read is kept or equal/adjacent to a kept word (the greedy rule, nothing else dropped)
    for w in read:
        assert w in kept or any(adjacent(w, v) for v in kept)


def test_an_independent_code_maps_to_all_its_codewords_and_reads_back_as_its_basis():
    G = find_generator(3, 5, np.random.default_rng(0))
    reply = {"generator": ["".join(map(str, r)) for r in G], "vertices": []}
    payload = C7_FORM.to_payload(reply)
    assert payload == C7.parse(code_payload(G)).payload() and len(payload["vertices"]) == 343
    back = C7_FORM.from_payload(payload)
    assert back["vertices"] == [] and len(back["generator"]) == 3
    assert C7_FORM.to_payload(back) == payload
    evidence = C7.check(None, C7.parse(payload))
    r = evidence.bounds["capacity"]
    assert r**5 <= 343 < (r + Fraction(1, 10**12)) ** 5 and 3.2140958 < r < 3.2140959  # 343^(1/5) > the seed's 3


def test_four_generator_rows_are_read_greedily_into_an_independent_set():
    reply = {"generator": ["10012", "01034", "00156", "00011"], "vertices": ["33333"]}
    c = C7.parse(C7_FORM.to_payload(reply))
    assert independent_plain(list(c.vertices)) and 0 < len(c.vertices) < 2401


def test_listed_words_adjacent_to_a_kept_word_are_dropped():
    payload = C7_FORM.to_payload({"generator": [], "vertices": ["11111", "22222", "22222", "10006"]})
    assert payload == {"n": 5, "vertices": [[0, 0, 0, 0, 0], [2, 2, 2, 2, 2]]}  # 11111 and 10006 touch 00000; 22222 twice


def test_the_c7_seed_has_no_form_view_and_a_small_set_is_shown_as_words():
    assert C7_FORM.from_payload(dict(C7.contract.seed)) is None  # n = 1: the prompt shows the payload itself
    small = {"n": 5, "vertices": [[0, 0, 0, 0, 0], [2, 2, 2, 2, 3]]}
    assert C7_FORM.from_payload(small) == {"generator": [], "vertices": ["00000", "22223"]}


@pytest.mark.parametrize("reply, field", [
    ({"generator": ["0123"], "vertices": []}, "generator[0]"),
    ({"generator": ["01237"], "vertices": []}, "generator[0]"),
    ({"generator": ["10000"] * 5, "vertices": []}, "generator"),
    ({"generator": [], "vertices": ["00000"] * 65}, "vertices"),
    ({"generator": [], "vertices": [[0, 0, 0, 0, 2]]}, "vertices[0]"),
    ({"generator": [], "vertices": "00000"}, "vertices"),
    ({"generator": []}, "vertices"),
    ({"generator": [], "vertices": [], "n": 5}, "n"),
])
def test_c7_replies_off_the_form_are_malformed_naming_the_field(reply, field):
    with pytest.raises(Malformed) as e:
        C7_FORM.to_payload(reply)
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_the_c7_schema_fixes_the_word_length_and_the_row_and_vertex_counts():
    props = C7_FORM.schema["properties"]
    assert props["generator"]["maxItems"] == 4 and props["vertices"]["maxItems"] == 64
    assert props["generator"]["items"]["pattern"] == "^[0-6]{5}$"
