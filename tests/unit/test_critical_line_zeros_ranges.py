"""Range candidates and compact evidence (`critical-line-zeros`, version 3), in should-prove / should-refuse pairs."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from mathloop.domain import Verdict, canonical_dumps, sha256_hex
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.critical_line_zeros.certificate import Prefix, Recipe
from mathloop.targets.critical_line_zeros.derive import derive
from mathloop.targets.critical_line_zeros.export import export_certificates
from mathloop.targets.critical_line_zeros.verify import verify_chunk
from tests.support.clz import V2_CONTRACT
from tests.support.contracts import shipped

LEHMER = 6693  # a good Gram point; the next 400 intervals hold the Lehmer pair near t = 7005.06 / 7005.10


def compact_contract(tmp: Path) -> Path:
    """Write the shipped compact contract with cap g_8000, chunks of 400 intervals and digests per 64 blocks."""
    text = shipped("critical-line-zeros").read_text()
    for old, new in (("max_gram_index = 21150000", "max_gram_index = 8000"), ("chunk_gram_intervals = 20000", "chunk_gram_intervals = 400"),
                     ("evidence_digest_blocks = 4096", "evidence_digest_blocks = 64"),
                     ("max_range_gram_intervals = 100000", "max_range_gram_intervals = 1000")):
        assert old in text
        text = text.replace(old, new)
    p = tmp / "clz-compact.toml"
    p.write_text(text)
    return p


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    target = build_target(load_contract(compact_contract(tmp_path_factory.mktemp("ranges"))))
    prefix = Prefix(LEHMER, LEHMER - 600, tuple(range(LEHMER - 8, LEHMER + 1)), 500, 126, 6)
    state = dict(prefix.to_json(), height=None, count=None, turing=None)
    rng = target.local_proposer(0).chunks_from(LEHMER, 1)[0]
    return target, prefix, state, rng


def test_proposer_names_a_range_ending_at_a_good_gram_point(env):
    target, _, _, rng = env
    assert set(rng) == {"start", "end", "refine"} and rng["start"] == LEHMER and rng["end"] >= LEHMER + 400


def test_range_proves_what_its_derived_point_list_proves(env):
    target, prefix, state, rng = env
    ev = target.check(state, target.parse(rng))
    assert ev.result("blocks").verdict is Verdict.UNKNOWN and ev.state["last_gram_index"] == rng["end"]
    chunk, _ = derive(target.parse(rng), target.settings.check.ladder, True)
    assert any("7005.06" < t < "7005.11" for b in chunk.blocks for t in b.texts)  # the Lehmer pair is split
    explicit = target.check(state, target.parse(chunk.payload()))
    assert explicit.state == ev.state and explicit.canonical_bytes() != ev.canonical_bytes()
    assert explicit.artifacts["chunk"]["candidate"]["blocks"]  # an explicit candidate is kept as given


def test_compact_evidence_hashes_the_full_balls_and_rechecks_byte_for_byte(env):
    target, prefix, state, rng = env
    ev = target.check(state, target.parse(rng))
    art = ev.artifacts["chunk"]
    assert art["candidate"] == rng and art["format"].endswith("/2") and len(canonical_dumps(ev.to_json())) < 6000
    chunk, gram = derive(target.parse(rng), target.settings.check.ladder, True)
    full = verify_chunk(chunk, prefix, target.settings.check, gram).artifact
    g0 = art["groups"][0]
    body = {"blocks": full["blocks"][:64], "gram": full["gram"][: g0["end"] - full["start"] + 1]}
    assert g0["sha256"] == sha256_hex(canonical_dumps(body)) and g0["blocks"] == 64
    assert sum(g["blocks"] for g in art["groups"]) == art["blocks"] == len(full["blocks"])
    assert target.check(state, target.parse(rng)).canonical_bytes() == ev.canonical_bytes()


def test_range_refused_unless_it_starts_at_the_prefix_end(env):
    target, _, state, rng = env
    ev = target.check(state, target.parse(dict(rng, start=LEHMER + 1, end=rng["end"])))
    assert ev.result("blocks").verdict is Verdict.REFUTED and "verified prefix ends at g_6693" in ev.reasons()[0]


def test_range_ending_at_a_bad_gram_point_is_refuted_naming_it(env):
    target, _, state, rng = env
    sign = target.check(state, target.parse(rng))  # should prove
    assert sign.result("blocks").verdict is not Verdict.REFUTED
    from mathloop.targets.critical_line_zeros.fast_z import gram_signs

    ms = list(range(LEHMER + 1, LEHMER + 200))
    bad = next(m for m, s in zip(ms, gram_signs(ms, (64,))[0]) if s != (1 if m % 2 == 0 else -1))
    ev = target.check(state, target.parse(dict(rng, end=bad)))
    assert ev.result("blocks").verdict is Verdict.REFUTED and f"end g_{bad} is a bad Gram point" in ev.reasons()[0]
    from mathloop.check.rules import evidence_problems

    assert ev.bounds == {} and not evidence_problems(target.contract, ev)  # a label of its own, not `error`
    assert ev.result("turing").reasons == ("not closed: the chunk was refuted, so it certifies nothing",)


def test_hard_block_near_g_839024_is_found_by_the_level_0_recipe():
    # Gram signs + + + - + - at g_839024..839029: the union needs 5 sign changes; densities up to 4096 find them.
    target = build_target(load_contract("critical-line-zeros"))
    chunk, _ = derive(Recipe(839000, 839038, 0, None), target.settings.check.ladder, True)
    prefix = Prefix(839000, 730000, tuple(range(838992, 839001)), 100000, 126, 8)
    assert verify_chunk(chunk, prefix, target.settings.check).reason is None


@pytest.mark.parametrize("edit, words", [({"refine": 7}, "refine: 7 outside [0, 6]"), ({"end": LEHMER + 1001}, "end: 7694 outside"),
                                         ({"end": LEHMER}, "end: 6693 outside"), ({"blocks": []}, "payload.end: unknown key")])
def test_malformed_ranges_name_the_field(env, edit, words):
    target, _, _, rng = env
    with pytest.raises(Malformed, match=re.escape(words)):
        target.parse(dict(rng, **edit))


def test_contract_without_ranges_refuses_a_range_as_malformed(env):
    target, _, _, rng = env
    old = build_target(load_contract(V2_CONTRACT))  # point lists only
    assert isinstance(target.parse(rng), Recipe)
    with pytest.raises(Malformed, match="payload.end: unknown key"):
        old.parse(rng)


def test_exported_compact_chain_rechecks_from_the_seed(env, tmp_path):
    target, _, _, _ = env
    root = target.check(None, target.parse(target.contract.seed))
    rng = target.local_proposer(0).chunks_from(-1, 1)[0]
    first = target.check(root.state, target.parse(rng))
    assert first.result("turing").verdict is Verdict.PROVED and first.artifacts["chunk"]["candidate"] == rng
    manifest = export_certificates([root.to_json(with_timings=False), first.to_json(with_timings=False)], tmp_path)
    from mathloop.bounded import read_json

    chain = target.verify_certificate_chain(manifest, lambda p: read_json(p, 10**7, "file"))
    assert not chain.reasons and chain.evidences[-1].canonical_bytes() == first.canonical_bytes()


def test_settings_read_the_compact_keys(env):
    target, _, _, _ = env
    assert target.settings.check.digest_blocks == 64 and target.settings.limits.max_range_gram_intervals == 1000
    plain = build_target(load_contract(V2_CONTRACT)).settings
    assert plain.check.digest_blocks == 0 and plain.limits.max_range_gram_intervals == 0
    assert dataclasses.replace(plain.check, digest_blocks=0) == plain.check


def test_recipe_grid_arrays_have_the_bits_of_the_per_point_construction():
    import numpy as np

    from mathloop.targets.critical_line_zeros import rs_rigorous as rr
    from mathloop.targets.critical_line_zeros.sampling import decimal_points, point_text

    ts = np.sort(np.concatenate([900 + np.arange(300) * 0.37, 1e6 + np.arange(300) * 0.113, 9.9e6 + np.arange(300) * 0.0917]))
    texts = [point_text(t) for t in ts]
    a, b = rr.Points.of([rr.Point.of(x) for x in texts]), decimal_points(texts)
    for f in ("base", "off", "e_off", "r_t", "theta_turn", "e_theta"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
