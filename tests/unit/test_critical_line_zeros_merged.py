"""Merged blocks (unions of Gram blocks, for Rosser-rule violations) and the fast path in the checker."""

from __future__ import annotations

import pytest

from mathloop.targets import load_contract
from mathloop.domain import Verdict
from mathloop.targets import build_target
from tests.support.clz import small_contract


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clzm")
    target = build_target(load_contract(small_contract(tmp)))
    root = target.check(None, target.parse(target.contract.seed))
    proposer = target.local_proposer(0)
    proposer.workers = 1
    chunk = proposer.chunks_from(-1, 1)[0]
    return target, root, chunk


def _merge_at(chunk: dict, i: int) -> dict:
    """Return the chunk with blocks i and i + 1 replaced by one merged block (points joined)."""
    b = [dict(x) for x in chunk["blocks"]]
    joined = {"end": b[i + 1]["end"], "points": b[i]["points"] + b[i + 1]["points"], "merged": True}
    return {"start": chunk["start"], "blocks": b[:i] + [joined] + b[i + 2 :]}


def test_a_merged_union_of_gram_blocks_with_all_its_sign_changes_is_accepted(env):
    target, root, chunk = env
    # Blocks 0 and 1 are [g_-1, g_0) and [g_0, g_1): g_0 is good, which only a merged block may contain.
    merged = _merge_at(chunk, 0)
    ev = target.check(root.state, target.parse(merged))
    assert ev.result("blocks").verdict is not Verdict.REFUTED
    assert ev.artifacts["chunk"]["blocks"][0]["merged"] is True
    plain = dict(merged, blocks=[{k: v for k, v in blk.items() if k != "merged"} for blk in merged["blocks"]])
    refused = target.check(root.state, target.parse(plain))
    assert "good Gram point inside the block" in refused.result("blocks").reasons[0]


def test_a_merged_block_missing_a_sign_change_is_refuted(env):
    target, root, chunk = env
    i = next(i for i, b in enumerate(chunk["blocks"]) if b["points"])  # a block that needs its points
    merged = _merge_at(chunk, i)
    merged["blocks"][i]["points"] = []
    ev = target.check(root.state, target.parse(merged))
    assert ev.result("blocks").verdict is Verdict.REFUTED
    assert "sign change" in ev.result("blocks").reasons[0]


def test_turing_window_restarts_after_a_merged_block(env):
    target, root, chunk = env
    last = len(chunk["blocks"]) - 2
    merged = _merge_at(chunk, last)  # the chunk now ends with a merged block
    ev = target.check(root.state, target.parse(merged))
    assert ev.state["tail"] == [merged["blocks"][-1]["end"]]
    assert ev.state["turing"] is None  # no genuine Gram blocks after it yet


def test_malformed_merged_flag_is_rejected(env):
    target, _, chunk = env
    bad = {"start": chunk["start"], "blocks": [dict(chunk["blocks"][0], merged="yes")]}
    with pytest.raises(Exception, match="merged: must be true or false"):
        target.parse(bad)


def test_the_proposer_predicts_the_state_the_checker_reaches(env):
    from mathloop.propose.base import Context, Head

    target, root, _ = env
    proposer = target.local_proposer(0)
    proposer.workers = 1
    proposer.chunk = 64
    head = Head("root", 0, root.state, root.ranks, root.bounds)
    ctx = Context(target.contract, head, ("blocks",), (), frozenset(), 0, 3)
    props = proposer.propose(ctx)
    assert props[0].expects_state is None and len(props) == 3
    state = root.state
    for p in props:
        if p.expects_state is not None:
            assert p.expects_state == state
        state = target.check(state, target.parse(p.payload)).state
