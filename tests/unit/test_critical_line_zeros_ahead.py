"""The compact lineage's next round, proposed ahead in a child: the same ranges as here, and nothing it says trusted."""

import pytest

from mathloop.check.runner import ProcessRunner
from mathloop.propose.base import Context
from mathloop.targets import build_target, load_contract
from mathloop.targets.critical_line_zeros.ahead import read_round
from mathloop.targets.critical_line_zeros.certificate import Prefix
from mathloop.domain import Head

HEAD = {"last_gram_index": 79999}


def rounds(*ends, refine=0):
    starts = (HEAD["last_gram_index"], *ends[:-1])
    return {"chunks": [{"start": a, "end": b, "refine": refine} for a, b in zip(starts, ends)],
            "expects": [None] + [{"last_gram_index": a} for a in ends[:-1]], "after": {"last_gram_index": ends[-1]}}


def test_a_round_of_consecutive_ranges_from_the_head_is_read():
    got = read_round(rounds(99999, 119999), HEAD, 2, 21150000)
    assert got is not None and [c["end"] for c in got[0]] == [99999, 119999]


@pytest.mark.parametrize("value, why", [
    (rounds(99999, 119999)["chunks"], "a bare list"),
    ({**rounds(99999), "extra": 1}, "an unknown key"),
    (rounds(99999, 119999, refine=2), "a refinement the head did not ask for"),
    ({**rounds(99999, 119999), "chunks": [{"start": 79999, "end": 99999, "refine": 0},
                                          {"start": 99998, "end": 119999, "refine": 0}]}, "a gap or overlap"),
    ({**rounds(99999), "chunks": [{"start": 79999, "end": True, "refine": 0}]}, "a bool for an index"),
    ({**rounds(99999), "chunks": [{"start": 79999, "end": 79999, "refine": 0}]}, "an empty range"),
    ({**rounds(99999), "chunks": [{"start": 0, "end": 99999, "refine": 0}]}, "not from the head"),
    (rounds(99999), "fewer ranges than asked, short of the cap"),
    (rounds(99999, 119999, 139999), "more ranges than asked"),
    ({**rounds(99999, 119999), "expects": [None, "79999"]}, "a state that is not an object"),
    (None, "no answer"),
])
def test_a_child_answer_of_the_wrong_shape_is_refused(value, why):
    assert read_round(value, HEAD, 2, 21150000) is None, why


@pytest.fixture(scope="module")
def compact():
    return build_target(load_contract("critical-line-zeros"))


def _ctx(target, state, samples=2, seen=frozenset()):
    head = Head("h", 1, state, {}, {})
    return Context(target.contract, head, (), (), seen, 1, samples, None)


@pytest.mark.slow  # three rounds of 20,000 Gram points' signs: ~3 s
def test_a_forged_round_from_the_child_is_refused_and_the_round_proposed_here(compact, monkeypatch):
    here = compact.local_proposer(0, ahead=False)
    _, _, after = here.round_from(compact.predicted_state(Prefix()), 2, 0)  # the head after two ranges
    prop = compact.local_proposer(0)
    prop.use_child(ProcessRunner)  # what the loop hands it
    try:
        forged = rounds(after["last_gram_index"] + 5, after["last_gram_index"] + 10)
        monkeypatch.setattr(prop._ahead, "_call", lambda state, count: forged)
        prop._ahead.start(after, 2)
        got = prop.propose(_ctx(compact, after))
        expected, _, _ = here.round_from(after, 2, 0)
        assert [p.payload for p in got] == expected  # not the child's: its ranges start elsewhere
        assert prop.stats()["refused"] == 1 and prop.stats()["rounds ahead"] == 0
    finally:
        prop.close()


@pytest.mark.slow  # two in-process sessions of six ranges each, and a proposer child: ~12 s
def test_a_session_proposing_ahead_in_a_child_makes_the_chain_of_one_proposing_here(compact):
    from mathloop.search.loop import Session, SessionLimits
    from mathloop.check.runner import InProcessRunner
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository

    chains, stats = [], []
    for ahead in (False, True):
        repo = Repository(make_engine("sqlite://", create=True))
        prop = compact.local_proposer(0, ahead=ahead)
        try:
            summary = Session(compact.contract, repo, InProcessRunner()).run(prop, SessionLimits(6, samples=2))
        finally:
            prop.close()
        assert summary.labels == {"progress": 6}
        chains.append([(c.payload_sha, c.state, c.evidence_sha) for c in repo.commits(compact.contract.sha256)])
        stats.append(prop.stats())
    assert chains[0] == chains[1]
    assert stats == [None, {"rounds ahead": 2, "missed": 0, "refused": 0}]  # rounds 2 and 3 came from the child
