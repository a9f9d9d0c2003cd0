"""The spencer-discrepancy target: published matrices certified, should-prove / should-refuse pairs, the proposer."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction as F
from importlib import resources

import numpy as np
import pytest

from mathloop.bounded import InputError
from mathloop.domain import Label, Scores
from mathloop.check.gate import decide
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import CheckerCrash, Malformed
from mathloop.targets.spencer_discrepancy import disc
from mathloop.targets.spencer_discrepancy import target as target_mod
from mathloop.targets.spencer_discrepancy.covering import anneal, matrix

DATA = resources.files("mathloop.targets.spencer_discrepancy") / "data"


@pytest.fixture(scope="module")
def sd():
    return build_target(load_contract("spencer-discrepancy"))


def check(target, payload):
    return target.check(None, target.parse(payload))


def read(target, name):
    return target.read_candidate_file(DATA / name)


def brute(rows):
    n = len(rows)
    return min(max(abs(sum(F(a) * s for a, s in zip(row, (1, *x)))) for row in rows)
               for x in itertools.product((1, -1), repeat=n - 1))


# --- published matrices -----------------------------------------------------------------------

@pytest.mark.parametrize("name, d, n, value", [
    ("griego-6x6-1.632993.txt", 4, 6, F(1632993161855, 10**12)),
    ("xie-9x9-1.666667.txt", 5, 9, F(1666666666666, 10**12)),
    ("li-17x17-1.697749.txt", 7, 17, F(1697749375254, 10**12)),
    ("hamming-type-8x8-1.767767.txt", 5, 8, F(1767766952966, 10**12)),
])
def test_certifies_each_published_matrix_to_its_printed_value(sd, name, d, n, value):
    ev = check(sd, read(sd, name))
    cert = ev.artifacts["certificate"]
    assert (cert["n"], cert["disc"]) == (n, str(d)) and ev.bounds["C10c"] == value
    x = cert["minimiser"]
    assert max(abs(v) for v in disc.row_values(sd.parse(read(sd, name)).integers(), tuple(x))) == d  # attained


def test_the_hamming_type_matrix_reaches_the_goal_and_li_does_not(sd):
    best = check(sd, read(sd, "hamming-type-8x8-1.767767.txt"))
    li = check(sd, read(sd, "li-17x17-1.697749.txt"))
    assert decide(sd.contract, None, best).label is Label.CORRECT
    assert li.ranks["ratio-bound"] == 1 and "below the goal" in {r.id: r for r in li.results}["ratio-bound"].reasons[0]


def test_exact_discrepancy_matches_brute_force_on_rational_matrices(sd):
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(1, 7))
        rows = [[str(F(int(rng.integers(-4, 5)), 4)) for _ in range(n)] for _ in range(n)]
        ev = check(sd, {"matrix": rows})
        assert F(ev.artifacts["certificate"]["disc"]) == brute(rows)


# --- should-prove / should-refuse pairs -------------------------------------------------------

def test_a_zero_entry_is_admissible_and_an_entry_beyond_one_is_refused(sd):
    assert check(sd, {"matrix": [["1", "0"], ["1", "-1"]]}).bounds["C10c"] == F(707106781186, 10**12)  # disc 1
    with pytest.raises(Malformed, match=r"^matrix\[1\]\[0\]: 1\.0001 is not in \[-1, 1\]"):
        sd.parse({"matrix": [["1", "0"], ["1.0001", "-1"]]})
    with pytest.raises(Malformed, match=r"^matrix\[0\]\[1\]: -3/2 is not in \[-1, 1\]"):
        sd.parse({"matrix": [["1", "-3/2"], ["1", "1"]]})


def test_a_square_matrix_parses_and_a_ragged_one_is_refused(sd):
    assert sd.parse({"matrix": [["1", "1"], ["1", "-1"]]}).n == 2
    with pytest.raises(Malformed, match=r"^matrix\[1\]: must be a row of n = 2 entries \(the matrix is square\), got 3"):
        sd.parse({"matrix": [["1", "1"], ["1", "-1", "1"]]})


@pytest.mark.parametrize("entry, why", [(1, "must be a string"), (0.5, "must be a string"), (True, "must be a string"),
                                        ("1e3", "exponent"), ("nan", "not an exact rational"),
                                        ("1/0", "zero denominator"), ("1/1000001", "denominator")])
def test_entries_that_are_not_exact_rationals_within_the_limits_are_refused(sd, entry, why):
    assert sd.parse({"matrix": [["1/2"]]}).n == 1
    with pytest.raises(Malformed, match=rf"^matrix\[0\]\[0\]: .*{why}"):
        sd.parse({"matrix": [[entry]]})


def test_a_matrix_within_the_size_limit_parses_and_one_beyond_is_refused(sd):
    assert sd.parse({"matrix": [["1"] * 24] * 24}).n == 24
    with pytest.raises(Malformed, match=r"^matrix: 25 rows, more than the limit n = 24"):
        sd.parse({"matrix": [["1"] * 25] * 25})


def test_a_common_denominator_beyond_the_limit_is_refused(sd):
    assert sd.parse({"matrix": [["1/1000", "1/999"], ["1", "1"]]}).denominator == 999000
    with pytest.raises(Malformed, match="common denominator 1998000 of the entries exceeds 1000000"):
        sd.parse({"matrix": [["1/2000", "1/999"], ["1", "1"]]})


def test_one_flipped_sign_changes_the_certified_value(sd):
    rows = read(sd, "hamming-type-8x8-1.767767.txt")["matrix"]
    ok = check(sd, {"matrix": rows})
    flipped = [list(r) for r in rows]
    flipped[3][2] = "-1" if flipped[3][2] == "1" else "1"
    ev = check(sd, {"matrix": flipped})
    assert ok.artifacts["certificate"]["disc"] == "5" and int(ev.artifacts["certificate"]["disc"]) < 5
    head = Scores.of(ok)
    assert decide(sd.contract, head, ev).label is Label.REGRESSION


def test_beyond_the_record_a_disagreeing_second_path_is_a_crash(sd, monkeypatch):
    payload = {"matrix": [["1", "1"], ["1", "-1"]]}
    monkeypatch.setattr(target_mod.SpencerDiscrepancy, "beyond_record", lambda self, r: True)
    assert check(sd, payload).timings.get("second_path") is not None
    monkeypatch.setattr(disc, "discrepancy_gray", lambda B: 99)
    with pytest.raises(CheckerCrash, match="disagree"):
        check(sd, payload)


def test_gray_code_walk_and_split_enumeration_agree():
    rng = np.random.default_rng(1)
    for _ in range(40):
        n = int(rng.integers(1, 11))
        B = rng.integers(-5, 6, size=(n, n)).tolist()
        assert disc.discrepancy(B)[0] == disc.discrepancy_gray(B)


def test_the_certified_ratio_is_the_largest_grid_point_below_disc_over_root_n():
    for d, n, D in [(5, 8, 1), (7, 17, 1), (4, 6, 1), (3, 7, 2)]:
        r = disc.certified_ratio(d, n, D, 12)
        ulp = F(1, 10**12)
        assert r * r * n * D * D <= d * d < (r + ulp) ** 2 * n * D * D


# --- files ------------------------------------------------------------------------------------

def test_reads_text_blocks_and_json_lists_and_refuses_floats(sd, tmp_path):
    (tmp_path / "m.txt").write_text("# two rows\n 1  1\n[1, -1]\n")
    (tmp_path / "m.json").write_text(json.dumps([[1, 1], [1, -1]]))
    (tmp_path / "f.json").write_text(json.dumps([[1, 0.5], [1, -1]]))
    assert sd.read_candidate_file(tmp_path / "m.txt") == sd.read_candidate_file(tmp_path / "m.json")
    with pytest.raises(InputError, match=r"row 1, entry 2: 0\.5 is a JSON float"):
        sd.read_candidate_file(tmp_path / "f.json")
    (tmp_path / "bad.txt").write_text("1 1\n1 x\n")
    with pytest.raises(InputError, match=r"line 2: not a matrix row"):
        sd.read_candidate_file(tmp_path / "bad.txt")


# --- the proposer -----------------------------------------------------------------------------

def test_annealing_finds_the_hamming_covering_and_its_matrix_certifies_five_over_root_eight(sd):
    import time

    centres, holes = anneal(7, 1, 8, np.random.default_rng(0), time.monotonic() + 20)
    assert holes == 0
    assert check(sd, {"matrix": matrix(centres, 7)}).bounds["C10c"] == F(1767766952966, 10**12)


def test_the_proposer_climbs_from_the_seed(sd):
    from mathloop.propose.base import Context

    prop = sd.local_proposer(0)
    prop.rungs = [r for r in prop.rungs if r[0] <= 9]  # the small rungs only: seconds, not minutes
    seed = prop.propose(Context(sd.contract, None, (), (), frozenset(), 0))
    assert seed[0].payload == dict(sd.seed_payload())

    class Head:
        bounds = {"C10c": F(1)}

    got = prop.propose(Context(sd.contract, Head(), (), (), frozenset(), 1))
    assert got and got[0].meta["how"] == "covering code"
    assert check(sd, got[0].payload).bounds["C10c"] > 1
