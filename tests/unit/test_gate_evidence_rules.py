"""The gate enforces what evidence must contain, whoever produced it, on every path: the loop (in-process and in a
checker child), `mathloop check`, the audit reading a store, and Environment.score. A stand-in checker spoils the
real evidence; each spoiled kind is an `error`, never a commit. Should-refuse / should-accept pairs."""

from __future__ import annotations

import json

import pytest

from mathloop.check.checker import Checker
from mathloop.check.rules import evidence_problems
from mathloop.check.runner import InProcessRunner, ProcessRunner
from mathloop.targets import load_contract
from mathloop.domain import Label
from mathloop.env import Environment
from mathloop.propose.base import Proposal, Proposer
from mathloop.audit.report import audit
from mathloop.search.loop import Session, SessionLimits
from mathloop.targets import registry
from tests.integration.cli import invoke
from tests.support.forging_target import FORGER_CONTRACT, KINDS


@pytest.fixture
def forger(tmp_path, monkeypatch):
    registry.registered()
    monkeypatch.setitem(registry.REGISTRY, "forger",
                        registry.Registered("forger", "tests.support.forging_target:ForgingTarget", "tests"))
    path = tmp_path / "forger.toml"
    path.write_text(FORGER_CONTRACT, encoding="utf-8")
    return load_contract(path)


class Scripted(Proposer):
    name = "scripted"

    def __init__(self, payloads):
        self.payloads = list(payloads)

    def propose(self, ctx):
        out, self.payloads = [Proposal(p, self.name) for p in self.payloads[: ctx.samples]], self.payloads[ctx.samples:]
        return out


@pytest.mark.parametrize("runner", [InProcessRunner, lambda: ProcessRunner(30)], ids=["in-process", "checker-child"])
@pytest.mark.parametrize("kind", KINDS)
def test_spoiled_evidence_is_an_error_in_the_loop_never_a_commit(forger, repo, kind, runner):
    r = runner()
    try:
        summary = Session(forger, repo, r).run(Scripted([{"x": "1/2", "forge": kind}]), SessionLimits(1))
    finally:
        r.close()
    assert summary.labels == {Label.ERROR.value: 1} and summary.commits == 0


def test_the_same_candidate_unspoiled_commits(forger, repo):
    summary = Session(forger, repo, InProcessRunner()).run(Scripted([{"x": "1/2"}]), SessionLimits(1))
    assert summary.labels == {Label.CORRECT.value: 1} and summary.commits == 1


@pytest.mark.parametrize("kind", KINDS)
def test_spoiled_evidence_is_refused_by_check(forger, tmp_path, kind):
    cand = tmp_path / "c.json"
    cand.write_text(json.dumps({"x": "1/2", "forge": kind}))
    res = invoke("check", "--contract", str(forger.path), "--candidate", str(cand), "--json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout[res.stdout.index("{"):res.stdout.rindex("}") + 1])
    assert out["ok"] is False and out["bounds"] == {}


@pytest.mark.parametrize("kind", ["missing", "unproved", "refuted-dep"])
def test_the_audit_refuses_spoiled_evidence_it_reads(forger, repo, kind):
    """Evidence written past the gate (by an older mathloop or by hand) fails the audit: same rules on reading."""
    ev = InProcessRunner().check(forger, None, {"x": "1/2", "forge": kind}).evidence
    Session(forger, repo, InProcessRunner()).ensure_root()
    head = repo.head(forger.sha256)
    repo.commit(contract_sha=forger.sha256, session_id=None, parent=head, payload={"x": "1/2", "forge": kind},
                proposer="hand", meta={}, label=Label.PROGRESS, evidence=ev)
    findings, _ = audit(forger, repo, None)
    assert any("stored evidence refused" in f.problem for f in findings)


@pytest.mark.parametrize("kind", KINDS)
def test_spoiled_evidence_scores_as_an_error_in_the_environment(forger, kind):
    with Environment(forger) as env:
        assert env.score(json.dumps({"x": "1/2", "forge": kind})).label is Label.ERROR
        assert env.score(json.dumps({"x": "1/2"})).label is Label.CORRECT


def test_a_worker_naming_another_checker_is_refused_before_the_gate(forger):
    from mathloop.check.outcome import CheckOutcome
    from dataclasses import replace

    ev = InProcessRunner().check(forger, None, {"x": "1/2"}).evidence
    checker = Checker(forger, target=registry.build_target(forger), runner=InProcessRunner())
    out, decision = checker.settle(CheckOutcome(evidence=replace(ev, checker="other")), None, remote=True)
    assert decision is None and "worker's evidence refused" in out.error
    assert evidence_problems(forger, ev) == ()
