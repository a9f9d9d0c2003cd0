"""The shannon-capacity-c7 target: published sets certified, should-prove / should-refuse pairs."""

from __future__ import annotations

import json
from fractions import Fraction as F
from importlib import resources

import numpy as np
import pytest

from mathloop.bounded import InputError
from mathloop.targets import load_contract
from mathloop.contract.model import ContractError
from mathloop.domain import Label, Scores, Verdict
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import CheckerCrash, Malformed
from mathloop.targets.shannon_capacity_c7 import graph
from mathloop.targets.shannon_capacity_c7 import target as target_mod
from mathloop.targets.shannon_capacity_c7.construct import code_payload, find_generator, is_independent_code
from mathloop.targets.shannon_capacity_c7.formats import read_candidate
from mathloop.targets.shannon_capacity_c7.published import LOVASZ_THETA_DECIMAL, record_bound
from tests.support.contracts import shipped

DATA = resources.files("mathloop.targets.shannon_capacity_c7") / "data"


@pytest.fixture(scope="module")
def c7():
    return build_target(load_contract(shipped("shannon-capacity-c7")))


@pytest.fixture(scope="module")
def ps367(c7):
    return read_candidate(DATA / "polak_schrijver_367.txt")


def check(target, payload):
    return target.check(None, target.parse(payload))


def variant(tmp_path, old: str, new: str):
    text = shipped("shannon-capacity-c7").read_text()
    assert old in text
    path = tmp_path / "shannon-capacity-c7.toml"
    path.write_text(text.replace(old, new))
    return path


# --- published constructions ------------------------------------------------------------------

def test_certifies_the_polak_schrijver_367_set(c7, ps367):
    ev = check(c7, ps367)
    assert len(ps367["vertices"]) == 367 and ps367["n"] == 5
    assert ev.bounds["capacity"] == F(3257865966783, 10**12)  # 367^{1/5} = 3.2578659667835...
    assert all(r.verdict is Verdict.PROVED for r in ev.results)
    assert decide(c7.contract, None, ev).label is Label.CORRECT  # the goal is the published record


def test_certifies_the_stored_1971_type_343_code(c7):
    ev = check(c7, read_candidate(DATA / "baumert_343.txt"))
    assert ev.bounds["capacity"] == F(3214095849716, 10**12)  # 343^{1/5} = 3.2140958497160...


def test_the_unobtained_sets_printed_values_match_their_grid_roots():
    assert graph.certified_root(108, 4, 12) == F(3223709795470, 10**12)  # printed 3.2237 (Vesel–Žerovnik)
    assert graph.certified_root(350, 5, 12) == F(3227108809261, 10**12)  # printed 3.2271 (Mathew–Östergård)


def test_contract_goal_is_polak_schrijver_on_the_grid_and_the_record_is_the_best_stored_set(c7):
    assert c7.contract.bound_spec("capacity").goal == graph.certified_root(367, 5, 12) == F(3257865966783, 10**12)
    assert record_bound() == graph.certified_root(134753, 10, 12)  # Itty et al.'s set in C7^⊠10


def test_linear_code_construction_gives_343_independent_vertices(c7):
    G = find_generator(3, 5, np.random.default_rng(0))
    assert G is not None and is_independent_code(G)
    ev = check(c7, code_payload(G))
    assert ev.ranks["independent"] == 0 and ev.bounds["capacity"] == F(3214095849716, 10**12)


def test_seed_certifies_three(c7):
    ev = check(c7, c7.seed_payload())
    assert ev.bounds["capacity"] == 3 and ev.ranks["capacity-bound"] == 1  # below the goal: still open


# --- should refuse ----------------------------------------------------------------------------

def test_refuses_a_set_with_one_adjacent_pair(c7, ps367):
    ok = check(c7, ps367)
    vs = [list(v) for v in ps367["vertices"]]
    vs[1] = [(x + (1 if c == 0 else 0)) % 7 for c, x in enumerate(vs[0])]  # a neighbour of vertex 0
    ev = check(c7, {"n": 5, "vertices": vs})
    res = {r.id: r for r in ev.results}
    assert ok.ranks["independent"] == 0
    assert res["independent"].verdict is Verdict.REFUTED and res["independent"].rank >= 1
    assert any("adjacent" in why for why in res["independent"].reasons)
    assert "capacity" not in ev.bounds
    seed_head = Scores.of(check(c7, c7.seed_payload()))
    assert decide(c7.contract, seed_head, ok).commits is True
    assert decide(c7.contract, seed_head, ev).label is Label.REGRESSION


def test_refuses_a_duplicate_vertex(c7):
    ok = check(c7, {"n": 2, "vertices": [[0, 0], [2, 2]]})
    ev = check(c7, {"n": 2, "vertices": [[0, 0], [2, 2], [0, 0]]})
    assert ok.ranks["independent"] == 0 and ok.bounds["capacity"] == F(1414213562373, 10**12)
    assert ev.ranks["independent"] == 1 and "capacity" not in ev.bounds
    assert any("same vertex" in why for r in ev.results for why in r.reasons)


@pytest.mark.parametrize("bad, why", [(7, "not in 0..6"), (-1, "not in 0..6"), (3.0, "integer"), (True, "integer"),
                                      ("3", "integer")])
def test_refuses_out_of_range_or_non_integer_coordinates(c7, bad, why):
    assert check(c7, {"n": 2, "vertices": [[0, 0], [2, 3]]}).ranks["independent"] == 0
    with pytest.raises(Malformed, match=rf"vertices\[1\]\[1\]: .*{why}"):
        c7.parse({"n": 2, "vertices": [[0, 0], [2, bad]]})


def test_refuses_n_above_the_contract_limit(c7):
    c7.parse({"n": 6, "vertices": [[0] * 6]})
    with pytest.raises(Malformed, match=r"n: 7 is not in 1..6"):
        c7.parse({"n": 7, "vertices": [[0] * 7]})


def test_refuses_vertices_of_the_wrong_length_and_unknown_keys(c7):
    with pytest.raises(Malformed, match=r"vertices\[1\]: must be a list of n = 2"):
        c7.parse({"n": 2, "vertices": [[0, 0], [2, 2, 2]]})
    with pytest.raises(Malformed, match="unknown key"):
        c7.parse({"n": 2, "vertices": [[0, 0]], "claimed": "3.5"})


def test_bound_above_the_class_maximum_is_a_checker_error_not_a_commit(tmp_path, ps367):
    # Stand-in for a checker bug that certifies more than Lovász allows: the same valid set against a
    # contract whose class maximum is (falsely) lowered below 367^{1/5}.
    # (parsed below the target's rules, which refuse such a contract: see the next test)
    from mathloop.contract.load import parse_contract

    path = variant(tmp_path, 'class_maximum = "3.3177"', 'class_maximum = "3.25"')
    low = build_target(parse_contract(path, path.read_bytes(), source="file", package=None))
    ev = check(low, ps367)
    d = decide(low.contract, None, ev)
    assert ev.bounds["capacity"] > F(325, 100)
    assert d.label is Label.ERROR and not d.commits and "class maximum" in d.reasons[0]


def test_contract_may_not_raise_the_class_maximum_above_lovasz(tmp_path):
    with pytest.raises(ContractError, match="class_maximum.*Lovász"):
        load_contract(variant(tmp_path, 'class_maximum = "3.3177"', 'class_maximum = "3.4"'))


def test_class_maximum_is_above_lovasz_theta_rigorously():
    flint = pytest.importorskip("flint")
    c = flint.arb.pi() / 7
    theta = 7 * c.cos() / (1 + c.cos())
    assert theta < flint.arb("3.3177") and theta > flint.arb("3.3176")
    assert abs(float(theta) - float(LOVASZ_THETA_DECIMAL)) < 1e-15


def test_beyond_the_record_a_disagreeing_second_path_is_a_crash(c7, monkeypatch):
    ten = {"n": 1, "vertices": [[0], [2], [4]]}
    monkeypatch.setattr(target_mod.published, "record_bound", lambda: F(2))  # pretend 2 is the record
    assert check(c7, ten).timings.get("second_path") is not None
    assert check(c7, ten).bounds["capacity"] == 3  # both paths agree
    monkeypatch.setattr(target_mod.graph, "independent_plain", lambda vs: False)
    with pytest.raises(CheckerCrash, match="disagree"):
        check(c7, ten)


# --- exactness of the pieces ------------------------------------------------------------------

@pytest.mark.parametrize("size, n", [(3, 1), (10, 2), (33, 3), (108, 4), (343, 5), (367, 5), (1000, 6)])
def test_certified_root_is_the_largest_grid_point_below_the_root(size, n):
    r = graph.certified_root(size, n, 12)
    p, q = r.numerator * (10**12 // r.denominator), 10**12
    assert p**n <= size * q**n < (p + 1) ** n
    cert = graph.root_certificate(size, n, r)
    assert int(cert["p_pow_n"]) <= int(cert["size_q_pow_n"])


def test_numpy_and_plain_independence_checks_agree_on_random_sets():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 4))
        vs = [tuple(int(x) for x in rng.integers(0, 7, n)) for _ in range(int(rng.integers(1, 8)))]
        bad, _, _ = graph.conflicts(np.array(vs))
        assert (bad == 0) == graph.independent_plain(vs)


# --- file formats -----------------------------------------------------------------------------

def test_reads_the_formats_published_sets_come_in(tmp_path):
    want = {"n": 3, "vertices": [[0, 0, 0], [2, 2, 2], [4, 4, 4]]}
    files = {"own.json": json.dumps(want), "tuples.json": "[[0,0,0],[2,2,2],[4,4,4]]",
             "spaces.txt": "# S\n0 0 0\n2 2 2\n\n4 4 4\n", "words.txt": "000\n222\n444\n",
             "parens.txt": "(0, 0, 0)\n(2, 2, 2)\n(4, 4, 4)\n", "brackets.txt": "[0, 0, 0]\n[2, 2, 2]\n[4, 4, 4]\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        assert read_candidate(tmp_path / name) == want, name


def test_refuses_a_text_line_that_is_not_a_vertex(tmp_path):
    (tmp_path / "bad.txt").write_text("0 0 0\n2 x 2\n")
    with pytest.raises(InputError, match="line 2: not a vertex"):
        read_candidate(tmp_path / "bad.txt")


def test_schema_describes_the_payload_the_parser_accepts(c7):
    s = c7.candidate_schema()
    assert s["required"] == ["n", "vertices"] and s["properties"]["n"]["maximum"] == 6
    assert s["additionalProperties"] is False
