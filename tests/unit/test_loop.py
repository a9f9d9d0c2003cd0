"""The search loop with the toy target: labels, the gate, the memory, and errors as records."""

import json
from fractions import Fraction

from sqlmodel import Session as DBSession, select

from mathloop.domain import Label
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.models import CandidateRow


class Scripted(Proposer):
    """Proposes the given payloads in order and remembers every context it saw."""

    name = "scripted"

    def __init__(self, payloads):
        self.payloads = list(payloads)
        self.contexts: list[Context] = []

    def propose(self, ctx):
        self.contexts.append(ctx)
        batch, self.payloads = self.payloads[: ctx.samples], self.payloads[ctx.samples:]
        return [p if isinstance(p, Proposal) else Proposal(p, self.name) for p in batch]


def run(contract, repo, payloads, budget=50, samples=1):
    session = Session(contract, repo, InProcessRunner())
    prop = Scripted(payloads)
    return session.run(prop, SessionLimits(budget, None, samples)), prop


def test_seed_becomes_the_root_and_strict_progress_commits(toy_contract, repo):
    summary, _ = run(toy_contract, repo, [{"x": "1/2"}, {"x": "101/200"}, {"x": "1/4"}, {"x": "7/10"}])
    commits = repo.commits(toy_contract.sha256)
    assert [c.bounds["value"] for c in commits] == [Fraction(1, 10), Fraction(1, 2), Fraction(7, 10)]
    assert summary.labels == {"correct": 2, "no_progress": 1, "regression": 1}
    assert all(b.bounds["value"] >= a.bounds["value"] + Fraction(1, 100) for a, b in zip(commits, commits[1:]))


def test_refused_candidates_never_move_the_head(toy_contract, repo):
    run(toy_contract, repo, [{"x": "1/2"}])
    head = repo.head(toy_contract.sha256)
    summary, _ = run(toy_contract, repo, [{"x": "2"}, {"x": "nan"}, {"y": 1}, {"x": "1/2"}, {"x": "1/2", "crash": True},
                                          Proposal(None, "m", malformed="truncated at max_tokens")])
    assert repo.head(toy_contract.sha256).hash == head.hash
    assert summary.labels == {"regression": 1, "malformed": 3, "no_progress": 1, "error": 1}


def test_checker_claiming_beyond_class_maximum_is_an_error_not_a_commit(toy_contract, repo):
    summary, _ = run(toy_contract, repo, [{"x": "9/10", "cheat": True}])
    assert summary.labels == {"error": 1}
    assert repo.head(toy_contract.sha256).seq == 0


def test_rejections_and_reasons_are_fed_back_to_the_next_round(toy_contract, repo):
    _, prop = run(toy_contract, repo, [{"x": "3"}, {"x": "1/2"}])
    second = prop.contexts[1]
    assert second.rejections[0].label is Label.REGRESSION
    assert any("not in [0, 1]" in r for r in second.rejections[0].reasons)
    assert len(second.seen) == 2  # the seed and the rejected candidate


def test_every_candidate_is_in_the_memory_with_label_and_reasons(toy_contract, repo):
    run(toy_contract, repo, [{"x": "1/2"}, {"x": "-1"}, {"z": "1"}])
    with DBSession(repo.engine) as s:
        rows = list(s.exec(select(CandidateRow).order_by(CandidateRow.id)))
    assert [r.label for r in rows] == ["correct", "correct", "regression", "malformed"]
    assert json.loads(rows[3].reasons) == ["payload: must be an object with key 'x'"]
    assert rows[1].commit_hash and rows[2].commit_hash is None


def test_budget_counts_every_candidate(toy_contract, repo):
    summary, _ = run(toy_contract, repo, [{"x": f"{k}/100"} for k in range(20, 90, 5)], budget=4, samples=3)
    assert sum(summary.labels.values()) == 4 and summary.outcome == "budget spent"


def test_second_session_resumes_from_the_head(toy_contract, repo):
    run(toy_contract, repo, [{"x": "1/2"}])
    summary, prop = run(toy_contract, repo, [{"x": "6/10"}])
    assert prop.contexts[0].head.bounds["value"] == Fraction(1, 2)
    assert summary.head.seq == 2 and summary.head.parent == summary.start_head.hash


def test_proposers_see_the_session_deadline_and_the_outcome_names_the_time_limit(toy_contract, repo):
    now = [100.0]

    class Slow(Scripted):
        def propose(self, ctx):
            now[0] += 10  # every round costs ten seconds of the fake clock
            return super().propose(ctx)

    prop = Slow([{"x": f"{k}/100"} for k in range(20, 90, 5)])
    summary = Session(toy_contract, repo, InProcessRunner()).run(prop, SessionLimits(50, 25.0), clock=lambda: now[0])
    assert prop.contexts[0].deadline == 125.0
    assert summary.outcome == "time limit" and sum(summary.labels.values()) == 3


class CountingRunner(InProcessRunner):
    """The in-process runner, counting the payloads it is asked to check."""

    def __init__(self):
        super().__init__()
        self.checked = []

    def check(self, contract, parent_state, payload, *args, **kwargs):
        self.checked.append(payload)
        return super().check(contract, parent_state, payload, *args, **kwargs)


def test_exact_repeats_are_recorded_as_no_progress_repeats_and_never_checked(toy_contract, repo):
    runner = CountingRunner()
    session = Session(toy_contract, repo, runner)
    payloads = [{"x": "3"}, {"x": "3"}, {"x": "1/2"}, {"x": "1/2"}, {"x": "1/10"}, {"x": "7/10"}]
    summary = session.run(Scripted(payloads), SessionLimits(50, None, 2))
    assert summary.repeats == 3  # {"x": "3"} refused before, {"x": "1/2"} committed in the same round, the seed
    assert summary.labels == {"regression": 1, "correct": 2, "no_progress": 3}
    assert [p for p in runner.checked if p is not None].count({"x": "3"}) <= 1
    assert {"x": "1/10"} not in runner.checked[1:] and runner.checked.count({"x": "1/2"}) == 1
    with DBSession(repo.engine) as s:
        rows = list(s.exec(select(CandidateRow).order_by(CandidateRow.id)))
    repeats = [r for r in rows if "repeat_of" in json.loads(r.proposer_meta)]
    assert len(repeats) == 3 and all(r.label == "no_progress" and r.evidence is None for r in repeats)
    assert all(json.loads(r.reasons)[0].startswith("repeat of stored candidate") for r in repeats)


def test_a_proposer_cannot_flag_a_fresh_candidate_as_a_repeat(toy_contract, repo):
    summary, _ = run(toy_contract, repo, [Proposal({"x": "1/2"}, "m", {"repeat_of": "x" * 64})])
    assert summary.repeats == 0 and summary.labels == {"correct": 1}
