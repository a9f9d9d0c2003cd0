"""`audit`: a clean chain passes; any hand edit of a committed row is found and the commit named."""

import pytest
from sqlalchemy import text

from mathloop.audit.report import audit
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from tests.unit.test_loop import Scripted


@pytest.fixture
def chain(toy_contract, repo):
    Session(toy_contract, repo, InProcessRunner()).run(Scripted([{"x": "1/2"}, {"x": "7/10"}, {"x": "9/10"}]),
                                                      SessionLimits(10))
    return repo.commits(toy_contract.sha256)


def test_clean_chain_passes_with_recheck(toy_contract, repo, chain):
    findings, n = audit(toy_contract, repo, InProcessRunner())
    assert findings == [] and n == 4


@pytest.mark.parametrize(
    "sql, problem",
    [
        ("UPDATE commits SET bounds = '{\"value\":\"99/100\"}' WHERE seq = 2", "hash mismatch"),
        ("UPDATE commits SET created_at = '2020-01-01T00:00:00' WHERE seq = 2", "hash mismatch"),
        ("UPDATE candidates SET payload = '{\"x\":\"99/100\"}', payload_sha = payload_sha WHERE commit_hash = :h", "payload"),
        ("UPDATE candidates SET evidence = replace(evidence, '\"PROVED\"', '\"UNKNOWN\"') WHERE commit_hash = :h", "evidence"),
        ("UPDATE artifacts SET content = '{\"x\":\"1/3\"}' WHERE content = '{\"x\":\"7/10\"}'", "evidence"),
    ],
)
def test_edited_row_fails_audit_and_names_the_commit(toy_contract, repo, chain, sql, problem):
    target = chain[2]
    with repo.engine.begin() as conn:
        conn.execute(text(sql), {"h": target.hash})
    findings, _ = audit(toy_contract, repo, InProcessRunner())
    assert findings, "the edit went unnoticed"
    assert findings[0].commit == target.hash
    assert problem in findings[0].problem


def test_payload_edit_with_matching_sha_is_caught_by_the_recheck(toy_contract, repo, chain):
    # An attacker who also fixes payload_sha in both rows still cannot make the evidence match.
    from mathloop.propose.base import payload_sha

    target = chain[2]
    forged = payload_sha({"x": "99/100"})
    with repo.engine.begin() as conn:
        conn.execute(text("UPDATE candidates SET payload = '{\"x\":\"99/100\"}', payload_sha = :s WHERE commit_hash = :h"),
                     {"s": forged, "h": target.hash})
    findings, _ = audit(toy_contract, repo, InProcessRunner())
    assert findings and findings[0].commit == target.hash


def test_deleted_commit_breaks_the_chain(toy_contract, repo, chain):
    with repo.engine.begin() as conn:
        conn.execute(text("PRAGMA foreign_keys=OFF"))
        conn.execute(text("DELETE FROM commits WHERE seq = 1"))
    findings, _ = audit(toy_contract, repo, None)
    assert findings and "chain broken" in findings[0].problem
