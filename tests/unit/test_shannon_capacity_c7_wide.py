"""shannon-capacity-c7-wide: sets of C7^⊠n up to n = 10 and 200,000 vertices, decided by grouping, never all pairs."""

from __future__ import annotations

import hashlib
import itertools
import json
from fractions import Fraction as F
from importlib import resources

import numpy as np
import pytest

from mathloop.bounded import InputError
from mathloop.domain import Verdict
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.shannon_capacity_c7 import buckets, graph
from mathloop.targets.shannon_capacity_c7.formats import read_candidate
from mathloop.targets.shannon_capacity_c7.lean_claims import render_commit

DATA = resources.files("mathloop.targets.shannon_capacity_c7") / "data"
ITTY_BLOB = "6e7ab1c5c70a40efe71a2be6d327c4b41d7ae129"  # c7/CC_10_7_134753.txt at e158b7b (git blob id)


@pytest.fixture(scope="module")
def wide():
    return build_target(load_contract("shannon-capacity-c7-wide"))


@pytest.fixture(scope="module")
def ps367():
    return read_candidate(DATA / "polak_schrijver_367.txt")["vertices"]


def check(target, payload):
    return target.check(None, target.parse(payload))


def product(a, b):
    return [list(x) + list(y) for x, y in itertools.product(a, b)]


# --- the grouped check against the pairwise one -------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_grouped_and_pair_listing_checks_count_the_same_bad_pairs_as_the_pairwise_check(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 80))
        v = rng.integers(0, 7, size=(m, n))
        if rng.random() < 0.3:
            v[rng.integers(0, m)] = v[rng.integers(0, m)]  # a copy
        bad, adjacent, copies = graph.conflicts(v.astype(np.int8))
        got = buckets.conflicts(v)
        assert got[0] == bad == buckets.conflicts_by_pairs(v)
        assert got[2] == copies  # the same first copies, in the same order
        assert all(i < j and graph.adjacent(tuple(v[i]), tuple(v[j])) for i, j in got[1])
        assert bool(got[1]) == bool(adjacent)


def test_a_product_of_independent_sets_is_independent_and_one_moved_coordinate_is_refused(wide, ps367):
    square = product(ps367[:50], ps367[:50])  # 2500 vertices of C7^⊠10: above the pairwise size, grouped check
    ev = check(wide, {"n": 10, "vertices": square})
    assert ev.ranks["independent"] == 0 and ev.bounds["capacity"] == graph.certified_root(2500, 10, 12)
    bad = [list(v) for v in square]
    bad[1234] = [(x + (c == 9)) % 7 for c, x in enumerate(bad[17])]  # a neighbour of vertex 17
    ev = check(wide, {"n": 10, "vertices": bad})
    res = {r.id: r for r in ev.results}
    assert res["independent"].verdict is Verdict.REFUTED and res["independent"].rank >= 1
    assert "[17]" in res["independent"].reasons[1] and "adjacent in C7^⊠10" in res["independent"].reasons[1]
    assert "capacity" not in ev.bounds


def test_a_repeated_vertex_in_a_large_set_is_refused_as_the_same_vertex(wide, ps367):
    square = product(ps367[:50], ps367[:50])
    ok = check(wide, {"n": 10, "vertices": square})
    ev = check(wide, {"n": 10, "vertices": square + [square[42]]})
    assert ok.ranks["independent"] == 0
    assert ev.ranks["independent"] == 1 and "capacity" not in ev.bounds
    assert any("[42]" in why and "same vertex" in why for r in ev.results for why in r.reasons)


def test_worst_case_grouping_of_a_hostile_set_stays_fast():
    import time

    v = np.zeros((100_000, 10), dtype=np.int8)  # one vertex 100,000 times: 5·10^9 bad pairs, counted not listed
    t = time.perf_counter()
    bad, _, copies = buckets.conflicts(v)
    assert bad == 100_000 * 99_999 // 2 and copies[:2] == [(0, 1), (0, 2)]
    assert time.perf_counter() - t < 10


# --- limits and files ---------------------------------------------------------------------------

def test_the_wide_contract_admits_n_10_and_refuses_n_11_and_too_many_vertices(wide):
    assert wide.limits.max_n == 10 and wide.limits.max_vertices == 200_000
    with pytest.raises(Malformed, match=r"^n: 11 is not in 1\.\.10"):
        wide.parse({"n": 11, "vertices": [[0] * 11]})
    with pytest.raises(Malformed, match=r"^vertices: 200001 vertices, more than the limit 200000"):
        wide.parse({"n": 1, "vertices": [[0]] * 200_001})


def test_the_first_lineage_keeps_its_limits_and_its_hash():
    c7 = build_target(load_contract("shannon-capacity-c7"))
    assert (c7.limits.max_n, c7.limits.max_vertices) == (6, 2000)
    assert load_contract("shannon-capacity-c7").sha256 == "739d73807b2033e78ac56e7ff116003935d4107c7a62e2edb659c22bafdef934"


def test_a_file_beyond_the_contract_byte_limit_is_refused_in_one_line(wide, tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"0 2 0 2 0 0 2 0 2 0\n" * 200_001)  # 4,000,020 bytes
    with pytest.raises(InputError, match=r"--candidate.*4000000") as e:
        wide.read_candidate_file(big)
    assert "\n" not in str(e.value)


def test_no_lean_rendering_above_the_sixth_power(wide, ps367):
    ev = check(wide, {"n": 10, "vertices": product(ps367[:3], ps367[:3])})
    assert ev.bounds["capacity"] == graph.certified_root(9, 10, 12)
    assert render_commit(wide.contract, "ab" * 32, ev) is None


# --- the published 134,753-set ------------------------------------------------------------------

@pytest.mark.slow
def test_certifies_itty_et_al_134753_set_in_c7_10_by_both_code_paths(wide):
    payload = wide.read_candidate_file(DATA / "itty_134753.txt")
    assert payload["n"] == 10 and len(payload["vertices"]) == 134_753
    ev = check(wide, payload)
    assert ev.bounds["capacity"] == F(3258020737293, 10**12)  # 134753^{1/10} = 3.2580207372930...
    cert = ev.artifacts["certificate"]
    assert int(cert["p"]) ** 10 <= 134_753 * int(cert["q"]) ** 10 < (int(cert["p"]) + 1) ** 10
    assert buckets.conflicts_by_pairs(np.array(payload["vertices"], dtype=np.int8)) == 0


@pytest.mark.slow
def test_the_stored_words_are_the_published_file_line_for_line():
    words = [w for w in (DATA / "itty_134753.txt").read_text().splitlines() if not w.startswith("#")]
    text = "".join(" ".join(w) + "\n" for w in words).encode()
    blob = hashlib.sha1(b"blob %d\0" % len(text) + text).hexdigest()
    assert (len(text), blob) == (2_695_060, ITTY_BLOB)


def test_the_second_path_refuses_what_the_first_refuses():
    v = np.array(product([[0, 0], [2, 2], [4, 4]], [[0, 0], [3, 3]]), dtype=np.int8)
    assert buckets.conflicts_by_pairs(v) == 0 == buckets.conflicts(v)[0]
    v[3] = (v[0] + 1) % 7
    assert buckets.conflicts_by_pairs(v) == buckets.conflicts(v)[0] == graph.conflicts(v)[0] > 0
    assert json.dumps(buckets.conflicts(v)[1])  # plain ints: the witnesses go into evidence
