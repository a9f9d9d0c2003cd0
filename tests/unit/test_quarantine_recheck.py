"""A quarantined worker's earlier answers are re-checked in the session, committed ones included.

An authenticated executor with an honest and a forging worker (tests/support/forging_executor.py): the forger's
answers pass every contract rule, so only the session's re-check can tell. A committed forgery that the quarantine
re-check finds stays in the append-only chain, marked: `audit` fails on it (with and without re-running checkers),
`status` shows it, the session stops, `run` exits 1 and no later `run` extends the lineage. A wrong answer that did
not commit is judged again by the session (should-prove counterpart: its audit passes).
"""

from __future__ import annotations

import json
from fractions import Fraction

from mathloop.check.checker import Checker
from mathloop.check.runner import InProcessRunner
from mathloop.domain import Label
from mathloop.propose.base import Proposal
from mathloop.audit.report import audit
from mathloop.search.loop import Session, SessionLimits
from mathloop.store.rechecks import failed_rechecks
from mathloop.targets import build_target
from tests.integration.cli import invoke
from tests.support.forging_executor import FORGER, HONEST, Draws, ForgingExecutor
from tests.support.open_target import Sequence


def _session(contract, repo, draws, proposals, budget):
    checker = Checker(contract, target=build_target(contract), executor=ForgingExecutor(), runner=InProcessRunner(),
                      recheck=0.5, rng=Draws(draws))
    repo.ensure_contract(contract)
    sid = repo.start_session(contract.sha256, "scripted", 0, {})
    with checker:
        summary = Session(contract, repo, checker, sid).run(Sequence(proposals), SessionLimits(budget, samples=1))
    repo.end_session(sid, summary.outcome)
    return summary, checker


def _rows(repo, contract):
    return list(repo.candidates(contract.sha256))


def test_a_committed_forgery_found_by_the_quarantine_recheck_is_marked_and_stops_the_session(toy_contract, repo):
    # 2/10 honest, 3/10 forged as 35/100 (committed, not sampled), 4/10 honest, 5/10 forged and sampled: caught
    summary, checker = _session(toy_contract, repo, [0.9, 0.9, 0.9, 0.0],
                                [{"x": f"{k}/10"} for k in range(2, 10)], 8)
    assert list(checker.quarantined) == [FORGER]
    rows = _rows(repo, toy_contract)
    forged = next(r for r in rows if r.payload == {"x": "3/10"} and r.commit_hash)
    assert forged.meta["checked_by"] == FORGER and forged.evidence.bounds == {"value": Fraction(7, 20)}
    assert summary.failed_commits == [forged.commit_hash]
    assert summary.outcome.startswith("stopped: 1 commit(s) by a quarantined worker failed")
    [rec] = summary.rechecks
    assert (rec.worker, rec.answers, rec.agreed, rec.disagreed) == (FORGER, 1, 0, 1)
    mark = rows[-1]
    assert mark.label == Label.ERROR.value and mark.meta["recheck_failed_commit"] == forged.commit_hash
    assert mark.meta["recheck_of"] == forged.id and mark.meta["quarantined_worker"] == FORGER
    assert [r.payload["x"] for r in rows if r.proposer != "seed"] == ["2/10", "3/10", "4/10", "5/10", "3/10"]
    assert failed_rechecks(repo.engine, toy_contract.sha256)[0].commit == forged.commit_hash

    for runner in (None, InProcessRunner()):  # the mark fails the audit whether or not it re-runs the checker
        findings, _ = audit(toy_contract, repo, runner)
        assert any(f.commit == forged.commit_hash and "failed the session's re-check" in f.problem
                   and f.table == "candidates" and f.row == mark.id for f in findings), findings


def test_status_shows_the_failed_recheck_and_run_refuses_to_extend_the_lineage(toy_contract, repo, tmp_path):
    _session(toy_contract, repo, [0.9, 0.9, 0.9, 0.0], [{"x": f"{k}/10"} for k in range(2, 10)], 8)
    db = str(tmp_path / "store.db")
    res = invoke("status", "--contract", str(toy_contract.path), "--db", db, "--json")
    assert res.exit_code == 0
    [failed] = json.loads(res.stdout)["failed_rechecks"]
    assert failed["worker"] == FORGER and "fails the session's re-check" in failed["reason"]
    text = invoke("status", "--contract", str(toy_contract.path), "--db", db)
    assert "failed re-check" in text.stdout and failed["commit"] in text.stdout
    refused = invoke("run", "--contract", str(toy_contract.path), "--db", db, "--budget", "2", "--no-lean",
                     "--no-progress")
    assert refused.exit_code == 1 and "no session extends it" in refused.output
    audited = invoke("audit", "--contract", str(toy_contract.path), "--db", db, "--hash-only")
    assert audited.exit_code == 1 and "failed the session's re-check" in audited.output


def test_run_exits_1_when_a_commit_of_its_session_fails_the_quarantine_recheck(toy_contract, tmp_path, monkeypatch):
    import mathloop.check.checker as checker_module
    import mathloop.search.opening as opening

    monkeypatch.setattr(opening, "executor_for", lambda *a, **k: ForgingExecutor())
    real = checker_module.Checker.__init__

    def scripted(self, *a, **k):
        real(self, *a, **{**k, "rng": Draws([0.9, 0.9, 0.9, 0.0])})

    monkeypatch.setattr(checker_module.Checker, "__init__", scripted)
    db = str(tmp_path / "run.db")
    res = invoke("run", "--contract", str(toy_contract.path), "--db", db, "--budget", "8", "--samples", "1",
                 "--executor", "tls://fake:1", "--recheck", "0.5", "--no-lean", "--no-progress")
    assert res.exit_code == 1, res.output
    assert "quarantined" in res.output and "failed the session's re-check" in res.output
    status = json.loads(invoke("status", "--contract", str(toy_contract.path), "--db", db, "--json").stdout)
    assert len(status["failed_rechecks"]) == 1


def test_a_wrong_answer_that_did_not_commit_is_judged_again_and_the_lineage_audits(toy_contract, repo):
    # 6/10 honest (commits), 2/10 forged (a regression either way: recorded), 7/10 honest, 8/10 forged and sampled
    summary, _ = _session(toy_contract, repo, [0.9, 0.9, 0.0],
                          [{"x": "6/10"}, {"x": "2/10"}, {"x": "7/10"}, {"x": "8/10"}], 4)
    assert summary.failed_commits == [] and summary.outcome == "budget spent"
    [rec] = summary.rechecks
    assert (rec.answers, rec.agreed, rec.disagreed) == (1, 0, 1)
    rows = _rows(repo, toy_contract)
    wrong = next(r for r in rows if r.payload == {"x": "2/10"} and r.meta.get("checked_by") == FORGER)
    again = next(r for r in rows if r.meta.get("recheck_of") == wrong.id)
    assert again.label == Label.REGRESSION.value and again.meta["checked_by"] == "session"
    assert (wrong.evidence.bounds, again.evidence.bounds) == ({"value": Fraction(1, 4)}, {"value": Fraction(1, 5)})
    assert audit(toy_contract, repo, InProcessRunner())[0] == []  # should prove: nothing forged stays


def test_at_recheck_1_the_forger_is_caught_before_anything_it_forged_commits(toy_contract, repo):
    checker = Checker(toy_contract, executor=ForgingExecutor(), runner=InProcessRunner(), recheck=1.0)
    with checker:
        summary = Session(toy_contract, repo, checker).run(Sequence([{"x": "1/2"}, {"x": "6/10"}]),
                                                           SessionLimits(2, samples=1))
    # every head-moving answer is re-checked at --recheck 1: the forger is caught at once, before anything commits
    assert list(checker.quarantined) == [FORGER] and summary.failed_commits == []
    assert all(r.meta.get("checked_by") != FORGER for r in _rows(repo, toy_contract) if r.commit_hash)
    assert HONEST in {r.meta.get("checked_by", "").split(" (")[0] for r in _rows(repo, toy_contract)}
    assert audit(toy_contract, repo, InProcessRunner())[0] == []


def test_a_proposer_cannot_write_the_loop_s_recheck_keys(toy_contract, repo):
    p = Proposal({"x": "1/2"}, "sly", {"recheck_failed_commit": "0" * 64, "checked_by": "session", "quarantined_worker": "w"})
    Session(toy_contract, repo, InProcessRunner()).run(Sequence([p.payload]), SessionLimits(1))

    class Sly(Sequence):
        def propose(self, ctx):
            out, self.payloads = self.payloads[:1], self.payloads[1:]
            return [Proposal(x, "sly", dict(p.meta)) for x in out]

    Session(toy_contract, repo, InProcessRunner()).run(Sly([{"x": "6/10"}]), SessionLimits(1))
    assert failed_rechecks(repo.engine, toy_contract.sha256) == []
    row = _rows(repo, toy_contract)[-1]
    assert row.meta.get("checked_by") == "session" and "recheck_failed_commit" not in row.meta


def test_an_answer_the_gate_calls_error_is_rechecked_and_its_worker_caught_even_at_recheck_0(toy_contract, repo):
    """A forged value beyond the class maximum never commits, but it is a lie all the same: re-checked, caught."""
    checker = Checker(toy_contract, executor=ForgingExecutor(), runner=InProcessRunner(), recheck=0.0)
    with checker:
        summary = Session(toy_contract, repo, checker).run(Sequence([{"x": "1/2"}, {"x": "98/100"}]),
                                                           SessionLimits(2, samples=1))
    assert list(checker.quarantined) == [FORGER] and summary.commits == 2
    last = _rows(repo, toy_contract)[-1]
    assert last.payload == {"x": "98/100"} and last.commit_hash and last.meta["checked_by"].startswith("session (re-check")
