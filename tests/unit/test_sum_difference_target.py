"""sum-difference-3b / -3c: published certificates reproduced to their printed digits, should-prove / should-refuse
pairs, the readers of the published formats, the proposer."""

from __future__ import annotations

import hashlib
import json
import math
from fractions import Fraction as F
from importlib import resources

import pytest

from mathloop.bounded import InputError
from mathloop.domain import Label, Verdict
from mathloop.check.gate import decide
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import CheckerCrash, Malformed
from mathloop.targets.sum_difference import target as target_mod

DATA = resources.files("mathloop.targets.sum_difference") / "data"


@pytest.fixture(scope="module")
def b3():
    return build_target(load_contract("sum-difference-3b"))


@pytest.fixture(scope="module")
def c3():
    return build_target(load_contract("sum-difference-3c"))


def check(target, payload):
    return target.check(None, target.parse(payload))


def digits(q: F, places: int) -> str:
    k = (q * 10**places).__floor__()
    return f"{k // 10**places}.{k % 10**places:0{places}d}"


# --- published certificates -------------------------------------------------------------------

def test_the_13_point_law_reproduces_its_published_digits_for_c3b(b3):
    ev = check(b3, b3.read_candidate_file(DATA / "mi2026-3b-13pt-1.77898884.json"))
    r = ev.bounds["C3b"]
    assert digits(r, 18) == "1.778988841420693549"  # the certificate's value_true_prefix
    assert r >= F("1.77898884") and all(x.verdict is Verdict.PROVED for x in ev.results)
    assert decide(b3.contract, None, ev).label is Label.CORRECT  # the goal is this record


def test_the_95_point_law_reproduces_its_published_45_digits_for_c3c(c3):
    ev = check(c3, c3.read_candidate_file(DATA / "mi2026-3c-95pt-1.6747338950208249.json"))
    r = ev.bounds["C3c"]
    assert digits(r, 39) == "1.674733895020824993378207577602265184970"  # certified_lower_bound_str, 39 places
    assert "1.674733895020824993378207577602265184970142270".startswith(digits(r, 40)[:-1])
    assert ev.ranks["ratio-bound"] == 1  # below the open PR #185's 147-point value: the goal stays open


def test_the_147_point_law_of_pr_185_is_the_mirrored_file_and_reproduces_its_printed_digits_for_c3c(c3):
    raw = (DATA / "lin2026-3c-147pt-1.6747338950414058.json").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == "b3dc9587ba7a733a3f68b66017d7b5936f38040f8e9ca31a057bb65a6f227999"
    cert = json.loads(raw)
    assert cert["denominator"] == "10^320" and len(cert["distribution_x_y_num"]) == 147
    assert sum(n for _, _, n in cert["distribution_x_y_num"]) == 10**320
    r = check(c3, c3.read_candidate_file(DATA / "lin2026-3c-147pt-1.6747338950414058.json")).bounds["C3c"]
    assert cert["certified_lower_bound_str"].startswith(digits(r, 40))  # its printed 60 digits, to the grid's 40
    assert digits(r, 16) == "1.6747338950414058"  # the value PR #185 prints


def test_the_same_law_is_worth_less_against_four_slopes_than_three(b3, c3):
    law = b3.read_candidate_file(DATA / "mi2026-3b-13pt-1.77898884.json")
    assert check(c3, law).bounds["C3c"] < check(b3, law).bounds["C3b"]


def test_entropies_match_a_float_computation(b3):
    law = {"points": [[0, 0, "1/2"], [1, 0, "1/4"], [0, 1, "1/4"]]}
    p = {(0, 0): 0.5, (1, 0): 0.25, (0, 1): 0.25}
    h = lambda f: -sum(q * math.log(q) for q in _push(p, f).values())  # noqa: E731
    expected = h(lambda x, y: x - y) / max(h(lambda x, y: x), h(lambda x, y: y), h(lambda x, y: x + y))
    assert abs(float(check(b3, law).bounds["C3b"]) - expected) < 1e-15


def _push(p, f):
    out: dict = {}
    for (x, y), w in p.items():
        out[f(x, y)] = out.get(f(x, y), 0) + w
    return out


# --- should-prove / should-refuse pairs -------------------------------------------------------

def test_weights_are_normalised_exactly_and_a_zero_weight_is_refused(b3):
    a = check(b3, {"points": [[0, 1, "1"], [1, 0, "1"], [1, 1, "2"]]})
    b = check(b3, {"points": [[0, 1, "1/4"], [1, 0, "1/4"], [1, 1, "1/2"]]})
    assert a.bounds == b.bounds and a.state == b.state
    with pytest.raises(Malformed, match=r"^points\[2\]\[2\]: the weight must be positive, got 0"):
        b3.parse({"points": [[0, 1, "1"], [1, 0, "1"], [1, 1, "0"]]})


def test_a_repeated_point_is_refused_and_distinct_points_parse(b3):
    assert len(b3.parse({"points": [[0, 1, "1"], [1, 0, "1"]]}).points) == 2
    with pytest.raises(Malformed, match=r"^points\[1\]: the point \(0, 1\) is listed twice \(also points\[0\]\)"):
        b3.parse({"points": [[0, 1, "1"], [0, 1, "1"]]})


@pytest.mark.parametrize("item, why", [
    ([0, 1, 0.5], r"points\[0\]\[2\]: must be a string"), ([0.0, 1, "1"], r"points\[0\]\[0\]: must be an integer"),
    ([True, 1, "1"], r"points\[0\]\[0\]: must be an integer"), ([0, 10**7, "1"], r"points\[0\]\[1\]: 10000000 is beyond"),
    ([0, 1, "1e5"], r"points\[0\]\[2\]: exponent"), ([0, 1, "-1/2"], "must be positive"), ([0, 1], r"points\[0\]: must be"),
])
def test_points_that_are_not_integer_pairs_with_exact_positive_weights_are_refused(b3, item, why):
    with pytest.raises(Malformed, match=why):
        b3.parse({"points": [item]})


def test_a_point_mass_has_no_ratio_and_a_two_point_law_has_one(b3):
    ok = check(b3, {"points": [[0, 1, "1"], [1, 0, "1"]]})
    ev = check(b3, {"points": [[3, 4, "1"]]})
    assert "C3b" in ok.bounds
    res = {r.id: r for r in ev.results}
    assert res["entropies"].verdict is Verdict.REFUTED and "undefined" in res["entropies"].reasons[0]
    assert "C3b" not in ev.bounds


def test_too_many_points_are_refused(b3):
    assert len(b3.parse({"points": [[i, 0, "1"] for i in range(1000)]}).points) == 1000
    with pytest.raises(Malformed, match=r"^points: 1001 points, more than the limit 1000"):
        b3.parse({"points": [[i, 0, "1"] for i in range(1001)]})


def test_a_cross_check_that_disagrees_is_a_checker_crash(b3, monkeypatch):
    law = {"points": [[0, 1, "1"], [1, 0, "1"], [1, 1, "1"]]}
    assert "C3b" in check(b3, law).bounds
    monkeypatch.setattr(target_mod.entropy, "cross_check", lambda *a: "mpmath gives 2.0")
    with pytest.raises(CheckerCrash, match="disagree"):
        check(b3, law)


# --- published formats ------------------------------------------------------------------------

def test_reads_the_three_published_certificate_forms_and_text(b3, tmp_path):
    forms = {
        "w.json": {"weights": [{"x": 0, "y": 1, "num": 1, "den": 2}, {"x": 1, "y": 0, "num": 1, "den": 2}]},
        "nd.json": {"distribution_x_y_numden": [[0, 1, [1, 2]], [1, 0, [1, 2]]]},
        "n.json": {"denominator": "10^1", "distribution_x_y_num": [[0, 1, 5], [1, 0, 5]]},
    }
    laws = []
    for name, value in forms.items():
        (tmp_path / name).write_text(json.dumps(value))
        laws.append(b3.parse(b3.read_candidate_file(tmp_path / name)))
    (tmp_path / "t.txt").write_text("# x y w\n0 1 0.5\n1, 0, 1/2\n")
    laws.append(b3.parse(b3.read_candidate_file(tmp_path / "t.txt")))
    assert all(law == laws[0] for law in laws)
    (tmp_path / "bad.json").write_text(json.dumps({"weights": [{"x": 0, "y": 1, "num": 1.5, "den": 2}]}))
    with pytest.raises(InputError, match=r"weights\[0\]\.num: must be a JSON integer"):
        b3.read_candidate_file(tmp_path / "bad.json")


# --- the proposer -----------------------------------------------------------------------------

def test_the_proposer_climbs_from_scratch_above_the_seed(b3):
    from mathloop.propose.base import Context
    from mathloop.targets.sum_difference import proposer as prop_mod

    prop = prop_mod.EntropyProposer(b3, 0, round_seconds=2.0)
    prop.starts = ["scratch"]

    class Head:
        bounds = {"C3b": F(1)}

    got = prop.propose(Context(b3.contract, Head(), (), (), frozenset(), 1))
    assert got and got[0].meta["how"] == "entropy ascent"
    assert check(b3, got[0].payload).bounds["C3b"] > F("1.7")
