"""A certified bound counts only when its obligation and everything it depends on are PROVED, or open where the
target declares it (OpenByDesign: a goal not yet reached, a progress measure), on every path: the loop (in process
and in a checker child), `mathloop check`, the audit reading a store, Environment.score and `mathloop bench`.

Should-prove / should-refuse pairs with stand-in checkers (tests/support/open_target.py): the same honest evidence
counts for `open-goal`, which declares its open obligations, and is refused for `strict-goal`, which declares none;
each spoiled kind is refused for `open-goal` too.
"""

from __future__ import annotations

import json

import pytest

from mathloop.check.rules import declared_open, evidence_problems
from mathloop.check.runner import InProcessRunner, ProcessRunner
from mathloop.domain import Label
from mathloop.env import Environment
from mathloop.audit.report import audit
from mathloop.search.loop import Session, SessionLimits
from mathloop.targets import load_contract, registry
from mathloop.targets.base import OpenByDesign
from tests.integration.cli import invoke
from tests.support.open_target import OPEN_CONTRACT, SPOILED, SPOILS, STRICT_CONTRACT, Sequence

HONEST = {"x": "1/2"}


def _contract(tmp_path, monkeypatch, key: str, cls: str, text: str):
    registry.registered()
    monkeypatch.setitem(registry.REGISTRY, key, registry.Registered(key, f"tests.support.open_target:{cls}", "tests"))
    path = tmp_path / f"{key}.toml"
    path.write_text(text, encoding="utf-8")
    return load_contract(path)


@pytest.fixture
def open_goal(tmp_path, monkeypatch):
    return _contract(tmp_path, monkeypatch, "open-goal", "OpenGoalTarget", OPEN_CONTRACT)


@pytest.fixture
def strict_goal(tmp_path, monkeypatch):
    return _contract(tmp_path, monkeypatch, "strict-goal", "StrictGoalTarget", STRICT_CONTRACT)


def _evidence(contract, payload):
    return InProcessRunner().check(contract, None, payload).evidence


# -- the rule itself -------------------------------------------------------------------------------------
def test_the_declaration_is_read_from_the_target_class(open_goal, strict_goal):
    assert declared_open(open_goal) == OpenByDesign(goals=frozenset({"value-bound"}), progress=frozenset({"coverage"}))
    assert declared_open(strict_goal) == OpenByDesign()


def test_honest_open_evidence_counts_where_declared_and_is_refused_where_not(open_goal, strict_goal):
    ev = _evidence(open_goal, HONEST)
    assert evidence_problems(open_goal, ev) == ()
    problems = evidence_problems(open_goal, ev, open_by_design=OpenByDesign())
    assert problems and "value-bound, its obligation is UNKNOWN (not declared open by the target)" in problems[0]
    only_goal = evidence_problems(open_goal, ev, open_by_design=OpenByDesign(goals=frozenset({"value-bound"})))
    assert only_goal and "coverage, which it depends on, is UNKNOWN" in only_goal[0]


@pytest.mark.parametrize("kind", sorted(SPOILS))
def test_each_spoiled_kind_is_refused_by_the_rule(open_goal, kind):
    assert evidence_problems(open_goal, _evidence(open_goal, {"x": SPOILED[kind]["x"]})) == ()  # should prove
    assert evidence_problems(open_goal, _evidence(open_goal, SPOILED[kind])) != ()  # should refuse


def test_a_goal_reached_is_proved_and_counts_with_nothing_declared(strict_goal):
    assert evidence_problems(strict_goal, _evidence(strict_goal, {"x": "1"})) == ()


# -- every path ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("runner", [InProcessRunner, lambda: ProcessRunner(60)], ids=["in-process", "checker-child"])
def test_the_loop_commits_declared_open_evidence_and_refuses_the_rest(open_goal, repo, runner):
    r = runner()
    try:
        summary = Session(open_goal, repo, r).run(Sequence([HONEST, *SPOILED.values()]),
                                                  SessionLimits(1 + len(SPOILS), samples=1))
    finally:
        r.close()
    assert summary.labels == {Label.PROGRESS.value: 1, Label.ERROR.value: len(SPOILS)} and summary.commits == 1


def test_the_loop_refuses_the_same_honest_evidence_when_nothing_is_declared(strict_goal, repo):
    summary = Session(strict_goal, repo, InProcessRunner()).run(Sequence([HONEST]), SessionLimits(1, samples=1))
    assert summary.labels == {Label.ERROR.value: 1} and summary.commits == 0


def _check(contract, tmp_path, payload):
    cand = tmp_path / "c.json"
    cand.write_text(json.dumps(payload))
    res = invoke("check", "--contract", str(contract.path), "--candidate", str(cand), "--json")
    return res.exit_code, json.loads(res.stdout[res.stdout.index("{"):res.stdout.rindex("}") + 1])


def test_check_certifies_declared_open_evidence_and_refuses_it_when_undeclared(open_goal, strict_goal, tmp_path):
    code, out = _check(open_goal, tmp_path, HONEST)
    assert code == 0 and out["outcome"] == "certified" and out["bounds_exact"] == {"value": "1/2"}
    code, out = _check(strict_goal, tmp_path, HONEST)
    assert code == 1 and out["ok"] is False and out["bounds"] == {}


@pytest.mark.parametrize("kind", sorted(SPOILS))
def test_check_refuses_each_spoiled_kind(open_goal, tmp_path, kind):
    code, out = _check(open_goal, tmp_path, SPOILED[kind])
    assert code == 1 and out["ok"] is False and out["bounds"] == {}


@pytest.mark.parametrize("kind", ["unknown-dep", "goal-proved-short"])
def test_the_audit_refuses_spoiled_evidence_written_past_the_gate(open_goal, repo, kind):
    Session(open_goal, repo, InProcessRunner()).ensure_root()
    honest = _evidence(open_goal, HONEST)
    repo.commit(contract_sha=open_goal.sha256, session_id=None, parent=repo.head(open_goal.sha256), payload=HONEST,
                proposer="hand", meta={}, label=Label.PROGRESS, evidence=honest)
    assert audit(open_goal, repo, None)[0] == []  # should prove: honest open evidence audits
    spoiled = _evidence(open_goal, SPOILED[kind])
    repo.commit(contract_sha=open_goal.sha256, session_id=None, parent=repo.head(open_goal.sha256),
                payload=SPOILED[kind], proposer="hand", meta={}, label=Label.PROGRESS, evidence=spoiled)
    findings, _ = audit(open_goal, repo, None)
    assert any("stored evidence refused" in f.problem for f in findings)


def test_environment_scores_declared_open_evidence_and_refuses_the_rest(open_goal, strict_goal):
    with Environment(open_goal) as env:
        assert env.score(json.dumps(HONEST)).label is Label.PROGRESS
        for kind in SPOILS:
            assert env.score(json.dumps(SPOILED[kind])).label is Label.ERROR, kind
    with Environment(strict_goal) as env:
        assert env.score(json.dumps(HONEST)).label is Label.ERROR


@pytest.mark.slow
def test_bench_labels_declared_open_evidence_progress_and_the_rest_error(open_goal, strict_goal, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[protocol]\ntargets = ["{open_goal.path}", "{strict_goal.path}"]\nbudget = 5\nseeds = [0]\n'
                    'samples = 1\n[[proposers]]\nname = "local"\nproposer = "local"\n')
    res = invoke("bench", str(spec), "-o", str(tmp_path / "ev"), "--no-progress", "--json")
    assert res.exit_code == 0, res.output
    labels = {r["target"]: r["labels"] for r in json.loads(res.stdout)["results"]}
    assert labels["open-goal"]["progress"] == 1 and labels["open-goal"]["error"] == 4
    assert labels["strict-goal"]["progress"] == 0 and labels["strict-goal"]["error"] == 5


@pytest.mark.slow  # a real chunk of Gram blocks: ~3 s
def test_critical_line_zeros_counts_its_height_only_because_blocks_is_declared_a_progress_measure(tmp_path):
    """The shipped target whose bounds rest on an open lemma: its first chunk certifies a height while `blocks`
    stays open up to the cap; without the declaration the gate would refuse it."""
    from tests.support.clz import small_env

    target, _root, _chunk, first, _path = small_env(tmp_path)
    verdicts = {r.id: r.verdict.value for r in first.results}
    assert "height" in first.bounds and verdicts["blocks"] == "UNKNOWN" and verdicts["turing"] == "PROVED"
    assert declared_open(target.contract).progress == {"blocks"}
    assert evidence_problems(target.contract, first) == ()
    undeclared = OpenByDesign(goals=declared_open(target.contract).goals)
    assert "blocks, which it depends on, is UNKNOWN" in evidence_problems(target.contract, first,
                                                                          open_by_design=undeclared)[0]
