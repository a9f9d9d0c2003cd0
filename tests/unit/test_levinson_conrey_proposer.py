"""The local proposer: a real optimiser that emits exact, admissible, improving candidates."""

from __future__ import annotations

import time
from fractions import Fraction as F

import pytest

from mathloop.targets import load_contract
from mathloop.domain import Label, Scores
from mathloop.order import compare
from mathloop.propose.base import Context, Head, Proposer, Rejection, payload_sha
from mathloop.targets import build_target
from tests.support.contracts import shipped

SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}


@pytest.fixture(scope="module")
def conrey():
    return build_target(load_contract(shipped("levinson-conrey")))


def head_of(target, payload, name="h0"):
    ev = target.check(None, target.parse(payload))
    return Head(name, 0, ev.state, ev.ranks, dict(ev.bounds)), ev


def ctx_for(target, head, seen=frozenset(), rejections=(), samples=1):
    return Context(target.contract, head, (), tuple(rejections), frozenset(seen), 0, samples)


def test_is_a_proposer_named_local(conrey):
    p = conrey.local_proposer(0)
    assert isinstance(p, Proposer) and p.name == "local"


def test_first_proposal_is_exact_admissible_and_beats_the_seed(conrey):
    head, ev = head_of(conrey, SEED)
    [prop] = conrey.local_proposer(0).propose(ctx_for(conrey, head, {payload_sha(SEED)}))
    new = conrey.check(head.state, conrey.parse(prop.payload))
    assert conrey.parse(prop.payload).payload() == prop.payload  # canonical strings
    assert all(isinstance(x, str) for x in prop.payload["P"] + prop.payload["Q"] + [prop.payload["R"]])
    assert new.bounds["kappa"] >= ev.bounds["kappa"] + F(1, 10**9)
    assert compare(Scores.of(ev), Scores.of(new), {"kappa": conrey.contract.bound_spec("kappa")}).passes_gate


def test_never_resubmits_a_payload_in_the_memory(conrey):
    head, _ = head_of(conrey, SEED)
    [first] = conrey.local_proposer(0).propose(ctx_for(conrey, head))
    again = conrey.local_proposer(0).propose(ctx_for(conrey, head, {payload_sha(first.payload)}))
    assert again and all(payload_sha(p.payload) != payload_sha(first.payload) for p in again)


def test_moves_on_after_its_proposal_is_refused(conrey):
    head, _ = head_of(conrey, SEED)
    prop = conrey.local_proposer(0)
    [first] = prop.propose(ctx_for(conrey, head))
    refusal = Rejection(first.payload, Label.NO_PROGRESS, ())
    [second] = prop.propose(ctx_for(conrey, head, rejections=[refusal]))
    assert second.meta["degrees"] != first.meta["degrees"]


def test_is_deterministic_for_a_seed(conrey):
    head, _ = head_of(conrey, SEED)
    a = conrey.local_proposer(5).propose(ctx_for(conrey, head, samples=2))
    b = conrey.local_proposer(5).propose(ctx_for(conrey, head, samples=2))
    assert [p.payload for p in a] == [p.payload for p in b] and len(a) == 2


def test_returns_nothing_when_it_has_nothing_more_to_offer(tmp_path):
    text = shipped("levinson-conrey").read_text().replace("max_degree = 12", "max_degree = 1")
    (tmp_path / "tiny.toml").write_text(text)
    t = build_target(load_contract(tmp_path / "tiny.toml"))
    head, _ = head_of(t, SEED)
    prop = t.local_proposer(0)
    [best] = prop.propose(ctx_for(t, head))
    head2, _ = head_of(t, best.payload, "h1")
    assert prop.propose(ctx_for(t, head2, {payload_sha(best.payload)})) == []


def test_polish_returns_an_admissible_optimised_payload_from_a_rough_guess(conrey):
    rough = {"P": ["0", "1/2", "1/3"], "Q": ["1", "-2", "3", "-1"], "R": "1"}  # P(1) ≠ 1, Q not symmetric
    polished = conrey.polish(rough, 0)
    ev = conrey.check(None, conrey.parse(polished))
    assert ev.bounds["kappa"] > F(4079, 10000)  # the degree-(2, 3) optimum is ≈ 0.40799967
    assert len(polished["P"]) == 3 and len(polished["Q"]) == 4
    assert conrey.polish({"P": "x", "Q": [], "R": "1"}, 0) is None


def test_local_search_reaches_conrey_from_the_seed_with_strict_steps(conrey):
    """A minimal loop (parse, check, compare, commit) from the seed to κ >= 0.4088."""
    specs = {"kappa": conrey.contract.bound_spec("kappa")}
    head, ev = head_of(conrey, SEED, "root")
    scores, seen, proposer = Scores.of(ev), {payload_sha(SEED)}, conrey.local_proposer(0)
    start, commits, candidates = time.perf_counter(), 0, 0
    while head.bounds["kappa"] < F(4088, 10**4):
        proposals = proposer.propose(ctx_for(conrey, head, seen))
        assert proposals, "the proposer gave up below 0.4088"
        for p in proposals:
            candidates += 1
            seen.add(payload_sha(p.payload))
            new = conrey.check(head.state, conrey.parse(p.payload))
            if compare(scores, Scores.of(new), specs).passes_gate:
                assert new.bounds["kappa"] >= head.bounds["kappa"] + F(1, 10**9)
                commits += 1
                head, scores = Head(f"c{commits}", commits, new.state, new.ranks, dict(new.bounds)), Scores.of(new)
    assert time.perf_counter() - start < 60
    assert commits <= candidates <= 20
