"""The shannon-capacity-c7 local proposer: what each stage proposes, and a short climb (slow tier)."""

from __future__ import annotations

import time
from importlib import resources

import numpy as np
import pytest

from mathloop.targets import load_contract
from mathloop.domain import Scores
from mathloop.order import compare
from mathloop.propose.base import Context, Head, payload_sha
from mathloop.targets import build_target
from mathloop.targets.shannon_capacity_c7 import proposer as proposer_mod
from mathloop.targets.shannon_capacity_c7.circular import folded_start, orbit
from mathloop.targets.shannon_capacity_c7.formats import read_candidate
from mathloop.targets.shannon_capacity_c7.graph import conflicts, decode
from mathloop.targets.shannon_capacity_c7.search import Search
from tests.support.contracts import shipped


@pytest.fixture(scope="module")
def c7():
    return build_target(load_contract(shipped("shannon-capacity-c7")))


def _head(c7, payload, seq=0):
    ev = c7.check(None, c7.parse(payload))
    return Head(commit=f"h{seq}", seq=seq, state=ev.state, ranks=ev.ranks, bounds=dict(ev.bounds))


def _ctx(c7, head, seen=frozenset(), deadline=None):
    return Context(c7.contract, head, (), (), seen, 0, 1, deadline)


def test_first_proposal_is_the_seed_then_never_again(c7):
    p = c7.local_proposer(0)
    first = p.propose(_ctx(c7, None))
    assert first[0].payload == dict(c7.seed_payload())
    assert p.propose(_ctx(c7, None, frozenset({payload_sha(first[0].payload)}))) == []


def test_code_stage_proposes_343_vertices_that_check(c7):
    p = c7.local_proposer(0)
    p.stage = len(proposer_mod.LADDER)  # skip the local-search ladder
    out = p.propose(_ctx(c7, _head(c7, c7.seed_payload())))
    assert out and out[0].meta["how"].startswith("linear code")
    ev = c7.check(None, c7.parse(out[0].payload))
    assert len(out[0].payload["vertices"]) == 343 and ev.ranks["independent"] == 0


def test_proposes_nothing_that_does_not_beat_the_head(c7):
    head = _head(c7, read_candidate(resources.files("mathloop.targets.shannon_capacity_c7") / "data" / "polak_schrijver_367.txt"))
    p = proposer_mod.LocalProposer(c7, 0, round_seconds=0.01, rounds_without_deadline=0)
    p.stage = len(proposer_mod.LADDER)  # the 343 code is below the 367 head: skipped, then out of rounds
    assert p.propose(_ctx(c7, head)) == []


def test_circular_start_is_independent_and_large():
    assert orbit().shape == (382, 5)
    start = folded_start((0,) * 5)
    bad, _, _ = conflicts(np.array([decode(c, 5) for c in start]))
    assert bad == 0 and len(start) >= 320


def test_local_search_keeps_its_sets_independent():
    s = Search(3, [], np.random.default_rng(3))
    best = s.run(time.monotonic() + 0.3)
    bad, _, _ = conflicts(np.array([decode(c, 3) for c in best]))
    assert bad == 0 and len(best) >= 28


@pytest.mark.slow
def test_reaches_343_in_c7_power_5_within_a_minute_from_the_seed(c7):
    p = c7.local_proposer(0)
    specs = {b.name: b for b in c7.contract.bounds}
    head, scores, seen = None, None, set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        out = p.propose(_ctx(c7, head, frozenset(seen), deadline))
        if not out:
            break
        seen.add(payload_sha(out[0].payload))
        ev = c7.check(None, c7.parse(out[0].payload))
        if compare(scores, Scores.of(ev), specs).passes_gate:
            scores, head = Scores.of(ev), Head("x", 0, ev.state, ev.ranks, dict(ev.bounds))
        if head.state["n"] == 5 and len(head.state["vertices"]) >= 343:
            break
    assert head.state["n"] == 5 and len(head.state["vertices"]) >= 343
