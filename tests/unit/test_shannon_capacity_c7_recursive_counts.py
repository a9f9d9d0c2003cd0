"""The counts of Tandon's record (arXiv:2608.30273, Appendix B) rebuilt from the gadget and counted exactly: the block
counter against brute force on small powers, the printed counts and Table 5's seven parts reproduced, and the
counts obligation in should-prove / should-refuse pairs."""

from __future__ import annotations

import copy
import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest

from mathloop.domain import Verdict
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.shannon_capacity_c7.graph import adjacent
from mathloop.targets.shannon_capacity_c7_recursive import blocks as bk
from mathloop.targets.shannon_capacity_c7_recursive import explicit as ex
from mathloop.targets.shannon_capacity_c7_recursive import recursion
from mathloop.targets.shannon_capacity_c7_recursive.schema import Limits, parse_payload
from mathloop.targets.shannon_capacity_c7_recursive.setlevel import SetLevel

DATA = Path(__file__).resolve().parents[2] / "mathloop/targets/shannon_capacity_c7/data"
TANDON = "tandon-2026-3.258832-recursive.json"
# The counts as printed (arXiv:2608.30273 and data/certificates.json of GitHub
# tandonravi/C7-Shannon-Capacity-Heterogeneous-Recursion, commit 97e5302)
PRINTED = {"C1": 27488, "C2": 12839823, "C3": 14045805, "C4": 841760069965664}
# Gao's product of the seed gadget {0, 2, 4} of C7 with itself, mapped by x ↦ 2 − x, with a count over its left
TOY = {"gadgets": [{"name": "G1", "main": ["0", "2", "4"], "pairs": [["0", "6"]], "horizontal": ["0"],
                    "vertical": ["6"], "auxiliary": ["1", "3", "5"]}],
       "automorphisms": [{"name": "R", "source": [0], "sign": [-1], "shift": [2]}],
       "counts": [{"name": "K", "value": 1, "statement": "|R(I_2) minus N(X_2^0)|"}],
       "steps": [{"name": "G2", "op": "product", "left": "G1", "right": "G1"},
                 {"name": "G3", "op": "heterogeneous", "left": "G2", "right": "G1", "neutral": {"auxiliary_of": "G2"},
                  "horizontal": {"count": "K", "main_of": "G2", "image": "R"},
                  "vertical": {"count": "K", "main_of": "G2", "image": "R"}}],
       "result": "G3"}


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract("shannon-capacity-c7-recursive"))


@pytest.fixture(scope="module")
def tandon():
    c = parse_payload((DATA / TANDON).read_text(), Limits())
    return c, recursion.evaluate(c), SetLevel(c)


def _check(target, payload):
    ev = target.check(None, target.parse(payload))
    return ev, {r.id: r for r in ev.results}


def _words(at, s):
    return {w for b in s for w in itertools.product(*(at.sets[a].tolist() for a in b))}


def _brute_outside(source_words, reference_words, n):
    def vertex(w):
        return tuple(d for code in w for d in ex.digits(np.array([code]), n)[0].tolist())
    refs = [vertex(r) for r in reference_words]
    return sum(1 for w in source_words if not any(vertex(w) == r or adjacent(vertex(w), r) for r in refs))


@pytest.mark.parametrize("seed", range(6))
def test_the_block_counter_and_the_second_path_agree_with_brute_force_on_every_word(seed):
    rng = random.Random(seed)
    at = bk.Atoms(1)
    def rand_blocks(k):
        return bk.tidy(at, [tuple(at.atom(rng.sample(range(7), rng.randint(1, 3))) for _ in range(4))
                            for _ in range(k)])
    source = bk.tidy(at, [tuple(at.atom([x]) for x in w) for w in _words(at, rand_blocks(3))])  # disjoint blocks
    reference = rand_blocks(rng.randint(1, 4))
    want = _brute_outside(_words(at, source), _words(at, reference), 1)
    assert bk.count_outside(at, source, reference) == want
    assert bk.count_outside(at, source, reference, split_at=1) == want
    assert ex.full_count(at, source, reference) == want


def test_overlapping_source_blocks_are_refused_rather_than_counted_twice():
    at = bk.Atoms(1)
    a, b = at.atom([0, 1]), at.atom([1, 2])
    with pytest.raises(ValueError, match="not provably disjoint"):
        bk.count_outside(at, ((a, a), (b, a)), ((a, a),))


def test_tandons_T_is_an_automorphism_of_c7_to_the_fifth():
    at = bk.Atoms(5)
    t = bk.Automorphism((1, 3, 0, 2, 4), (-1, 1, 1, -1, 1), (2, 0, 0, 2, 0))
    every = np.arange(7**5, dtype=np.int64)
    image = at.sets[at.image(at.atom(every), t)]
    assert image.size == 7**5  # a bijection
    d = at.digits(every)
    mapped = ex.apply(t, every, 5)
    for c in random.Random(0).sample(range(7**5), 200):  # T(N[c]) = N[T(c)]
        near = every[ex.close(d[c:c + 1], d)[0]]
        assert set(mapped[near].tolist()) == set(every[ex.close(at.digits(mapped[c:c + 1]), d)[0]].tolist())
    assert ex.apply(t, np.array([int("01234", 7)]), 5).tolist() == [int("13004", 7)]  # (2−1, 3, 0, 2−2, 4)


def test_tandons_four_counts_are_reproduced_from_the_gadget_by_the_block_path(tandon):
    c, res, sl = tandon
    got = {}
    for s, side, book, size in res.count_uses:
        chk = sl.check_count(s, side, book, PRINTED[book.count], size)
        assert chk.codebook_size == size
        got.setdefault(book.count, set()).add(chk.computed)
    assert got == {k: {v} for k, v in PRINTED.items()}


def test_the_eight_exchanges_of_appendix_b1_add_eight_words_outside_n_x10(tandon):
    c, res, sl = tandon
    s, side, book, _ = next(u for u in res.count_uses if u[2].count == "C1")
    plain = book.model_copy(update={"exchanges": None})
    ref = bk.tidy(sl.at, sl.parts(s.left).neutral)
    assert bk.count_outside(sl.at, sl.codebook(plain), ref) == 27480  # printed before the exchanges
    assert sl.exchange_failures(book) == []


def test_q15_of_the_warm_up_is_reproduced(tandon):
    c, res, sl = tandon
    s, side, book, _ = next(u for u in res.count_uses if u[2].count == "C2")
    assert bk.count_outside(sl.at, sl.codebook(book), bk.tidy(sl.at, sl.parts("G15h").neutral)) == 12872271


def test_table_5s_seven_parts_of_c4_are_reproduced(tandon):
    c, res, sl = tandon
    at, g, t = sl.at, sl.parts("G15h"), sl.autos["T"]
    ref = bk.tidy(at, sl.parts("G30L").neutral)
    parts = [(g.rest, g.rest), (g.centres, g.neutral), (g.horizontal, g.xh), (g.vertical, g.xv),
             (g.neutral, g.centres), (g.xh, g.vertical), (g.xv, g.horizontal)]
    got = [bk.count_outside(at, bk.image(at, bk.tidy(at, bk.cross(x, y)), t), ref) for x, y in parts]
    assert got == [827599599610592, 6686131598464, 194829147616, 194829147616, 6694533241984, 195073609696,
                   195073609696]  # Tandon's Table 5 (B.3), as in the repository's certificates.json
    assert bk.size(at, ref) == 1446768903083453


def test_an_exchange_that_inserts_a_word_next_to_the_codebook_is_refuted(tandon):
    c, res, sl = tandon
    book = next(u for u in res.count_uses if u[2].count == "C1")[2]
    bad = c.model_dump(exclude_defaults=True)
    kept = bad["exchanges"][0]["pairs"][1][1]  # an inserted word, in J⁺ after the exchanges
    bad["exchanges"][0]["pairs"][0][1] = kept[:-1] + str((int(kept[-1]) + 1) % 7)  # now adjacent to it
    fails = SetLevel(parse_payload(json.dumps(bad), Limits())).exchange_failures(book)
    assert fails == ["exchanges B1: an inserted word is equal or adjacent to another word of the codebook"]


def test_a_correct_count_is_proved_and_gives_the_bound(target):
    ev, res = _check(target, TOY)
    assert res["counts"].verdict is Verdict.PROVED
    assert ev.artifacts["counts"]["K"]["checked"] == "1" and ev.bounds["capacity"] > 3


def test_a_count_off_by_one_is_refuted_naming_the_count(target):
    bad = copy.deepcopy(TOY)
    bad["counts"][0]["value"] = 2
    ev, res = _check(target, bad)
    assert res["counts"].verdict is Verdict.REFUTED and res["counts"].rank == 1 and ev.bounds == {}
    assert res["counts"].reasons[0] == "count K = 2 is stated, but |J ∖ N(X⁰_L)| = 1 (G3.horizontal, G3.vertical)"


def test_the_toy_count_is_the_brute_force_count():
    at = bk.Atoms(1)
    c = parse_payload(TOY, Limits())
    sl = SetLevel(c)
    book = c.steps[1].horizontal
    j, ref = sl.codebook(book), sl.parts("G2").neutral
    assert _brute_outside(_words(sl.at, j), _words(sl.at, ref), 1) == 1
    assert at.n == 1


@pytest.mark.parametrize("mutate, where", [
    (lambda c: c["automorphisms"][0].update(source=[0, 0]), "automorphisms[0]: source must be a permutation"),
    (lambda c: c["automorphisms"][0].update(sign=[2]), "automorphisms[0].sign[0]"),
    (lambda c: c["steps"][1]["horizontal"].update(image="K"), "steps[1].horizontal.image: 'K' is a count"),
    (lambda c: c.update(exchanges=[{"name": "E", "pairs": [["00", "000"]]}]), "exchanges[0].pairs[0]"),
    (lambda c: c.update(exchanges=[{"name": "E", "pairs": [["000", "111"]]}]) or
     c["steps"][1]["horizontal"].update(exchanges="E"), "steps[1].horizontal.exchanges: the words of 'E' must have 2"),
])
def test_a_malformed_automorphism_or_exchange_is_refused_naming_the_field(target, mutate, where):
    c = copy.deepcopy(TOY)
    mutate(c)
    with pytest.raises(Malformed) as e:
        target.parse(c)
    assert str(e.value).startswith(where) and "\n" not in str(e.value)


@pytest.mark.slow
def test_tandons_record_is_certified_with_both_paths_agreeing(target):
    ev, res = _check(target, json.loads((DATA / TANDON).read_text()))
    assert res["counts"].verdict is Verdict.PROVED and res["capacity-bound"].verdict is Verdict.PROVED
    assert f"{ev.bounds['capacity'].numerator * 10**12 // ev.bounds['capacity'].denominator}" == "3258832620353"
    rows = ev.artifacts["counts"]
    assert {k: int(r["checked"]) for k, r in rows.items()} == PRINTED
    assert rows["C1"]["second_path"].startswith("listed: 134753 words of J, independent, 27488")
    assert all(r["second_path"].startswith("recounted with pairs of groups listed") for k, r in rows.items()
               if k != "C1")


@pytest.mark.slow
@pytest.mark.parametrize("count", ["C1", "C4"])
def test_tandons_record_with_a_count_off_by_one_is_refused_naming_it(target, count):
    bad = json.loads((DATA / TANDON).read_text())
    entry = next(k for k in bad["counts"] if k["name"] == count)
    entry["value"] += 1
    ev, res = _check(target, bad)
    assert res["counts"].verdict is Verdict.REFUTED and res["counts"].rank == 1 and ev.bounds == {}
    assert res["counts"].reasons[0].startswith(f"count {count} = {PRINTED[count] + 1} is stated, but "
                                               f"|J ∖ N(X⁰_L)| = {PRINTED[count]} (")


def test_a_count_too_large_to_check_here_stays_open_and_gives_no_bound(target, monkeypatch):
    monkeypatch.setattr(bk, "MAX_COUNTED", 1)
    ev, res = _check(target, TOY)
    assert res["counts"].verdict is Verdict.UNKNOWN and res["counts"].rank == 1 and ev.bounds == {}
    assert res["counts"].reasons[0].startswith("count K (G3.horizontal): not checked here (")
    assert ev.artifacts["counts"]["K"]["status"] == "open"
