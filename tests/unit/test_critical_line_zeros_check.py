"""Checker of `critical-line-zeros` in should-prove / should-reject pairs, on a small contract."""

from fractions import Fraction
from pathlib import Path

import pytest

from mathloop.targets import load_contract
from mathloop.contract.model import ContractError
from mathloop.domain import Verdict
from mathloop.targets.base import Malformed
from mathloop.targets.critical_line_zeros.counting import zeros_up_to
from mathloop.targets.critical_line_zeros.export import export_certificates
from tests.support.clz import small_contract, small_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return small_env(tmp_path_factory.mktemp("clz"))[:4]


def _block(chunk, end):
    return next(b for b in chunk["blocks"] if b["end"] == end)


def test_seed_certifies_nothing_and_opens_every_interval(env):
    target, root, _, _ = env
    assert root.bounds == {}
    assert root.ranks["blocks"] == 401 and root.ranks["turing"] == 1


def test_first_chunk_closes_turing_and_certifies_height(env):
    _, root, chunk, first = env
    assert first.result("blocks").verdict is not Verdict.REFUTED
    assert first.result("turing").verdict is Verdict.PROVED
    assert first.bounds["count"] == first.state["turing"]["closed_at"] + 1
    assert 527 < first.bounds["height"] < 600
    assert first.state["first_bad_gram"] == 126


def test_counts_at_100_and_first_zero(env):
    _, _, _, first = env
    chunks = [first.artifacts["chunk"]]
    assert zeros_up_to(Fraction(100), chunks) == 29
    assert zeros_up_to(Fraction(14), chunks) == 0
    assert zeros_up_to(Fraction(15), chunks) == 1


def test_evidence_is_byte_identical_on_recheck(env):
    target, root, chunk, first = env
    assert target.check(root.state, target.parse(chunk)).canonical_bytes() == first.canonical_bytes()


def test_refutes_a_point_moved_to_the_wrong_side_naming_the_block(env):
    target, root, chunk, _ = env
    bad = {"start": chunk["start"], "blocks": [dict(b) for b in chunk["blocks"]]}
    blk = _block(bad, 127)
    # g_125 < g_126 < g_127 all have Z < 0; the certificate's point sits where Z > 0 (282.87).
    # Moved to 282.2 (Z < 0, the wrong side of the zero near 282.5) both sign changes are lost.
    blk["points"] = ["282.2"]
    ev = target.check(root.state, target.parse(bad))
    assert ev.result("blocks").verdict is Verdict.REFUTED
    assert "block 126 [g_125, g_127): found 0 sign changes, need 2" in ev.result("blocks").reasons[0]
    assert ev.state == root.state and ev.bounds == root.bounds


def test_refutes_a_block_with_a_missing_sign_change(env):
    target, root, chunk, _ = env
    bad = {"start": chunk["start"], "blocks": [dict(b) for b in chunk["blocks"]]}
    _block(bad, 127)["points"] = []
    ev = target.check(root.state, target.parse(bad))
    assert "block 126 [g_125, g_127): found 0 sign changes, need 2" in ev.reasons()[0]


def test_refutes_a_block_ending_at_a_bad_gram_point(env):
    target, root, chunk, _ = env
    blocks = [b for b in chunk["blocks"] if b["end"] < 126] + [{"end": 126, "points": []}]
    ev = target.check(root.state, target.parse({"start": -1, "blocks": blocks}))
    assert "end g_126 is a bad Gram point" in ev.reasons()[0]


def test_refutes_a_chunk_that_does_not_start_at_the_prefix_end(env):
    target, _, chunk, first = env
    ev = target.check(first.state, target.parse(chunk))
    assert "verified prefix ends at g_" in ev.reasons()[0]


def test_export_file_rechecks_to_the_committed_evidence(env, tmp_path):
    target, root, chunk, first = env
    manifest = export_certificates([root.to_json(), first.to_json()], tmp_path)
    import json

    files = json.loads(manifest.read_text())["files"]
    assert len(files) == 1
    env_json = json.loads((tmp_path / files[0]["file"]).read_text())
    cand = target.parse(env_json["candidate"])
    assert target.check(env_json["parent_state"], cand).canonical_bytes() == first.canonical_bytes()
    # the whole envelope is accepted as a payload too; checked alone it is conditional on its parent
    alone = target.check(None, target.parse(env_json))
    assert alone.bounds == first.bounds and "conditional_on_parent" in alone.state


@pytest.mark.parametrize(
    "payload, reason",
    [
        ({"start": -1}, "blocks: missing"),
        ({"start": -1, "blocks": [], "extra": 1}, "payload.extra: unknown key"),
        ({"start": True, "blocks": []}, "start: must be an integer"),
        ({"start": -1, "blocks": [{"end": 0, "points": [14.1]}]}, "must be a string"),
        ({"start": -1, "blocks": [{"end": 0, "points": ["nan"]}]}, "not a positive decimal"),
        ({"start": -1, "blocks": [{"end": 0, "points": ["1e5"]}]}, "not a positive decimal"),
        ({"start": -1, "blocks": [{"end": 0, "points": ["15", "14"]}]}, "strictly increasing"),
        ({"start": -1, "blocks": [{"end": 0, "points": ["1" * 70]}]}, "longer than"),
        ({"start": -1, "blocks": [{"end": 100, "points": []}]}, "outside"),
        ({"start": 400, "blocks": []}, "outside"),
    ],
)
def test_rejects_malformed_payloads(env, payload, reason):
    target = env[0]
    with pytest.raises(Malformed, match=reason):
        target.parse(payload)


def test_contract_rejects_a_bad_ladder_and_a_seed_not_at_g_minus_1(tmp_path):
    with pytest.raises(ContractError, match="precision_ladder"):
        load_contract(small_contract(tmp_path, **{"precision_ladder = [64, 128, 256]": "precision_ladder = [128, 64]"}))
    with pytest.raises(ContractError, match="seed"):
        load_contract(small_contract(tmp_path, **{"start = -1\nblocks = []": "start = 5\nblocks = []"}))


def test_graph_detail_aggregates_the_block_family(env):
    target, _, _, first = env
    text = target.graph_detail("blocks", first.state)
    assert text.startswith("discharged: Gram intervals [g_-1, g_") and "Gram's law first fails at g_126" in text
    assert "closed at g_" in target.graph_detail("turing", first.state)
    assert "on the line" in target.state_summary(first.state)
