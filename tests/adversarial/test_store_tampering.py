"""Hand edits of every row a user or trainer reads are found by `audit`, which names table, row and column."""

import pytest

from mathloop.audit.report import audit_store
from mathloop.check.runner import InProcessRunner
from tests.adversarial.store_fixture import build

REFUSED = "(SELECT id FROM candidates WHERE label = 'regression' ORDER BY id LIMIT 1)"
MALFORMED = "(SELECT id FROM candidates WHERE label = 'malformed' ORDER BY id LIMIT 1)"
COMMITTED = "(SELECT candidate_id FROM commits WHERE seq = 1)"
LAST_OF_S1 = "(SELECT max(id) FROM candidates WHERE session_id = 1)"


@pytest.fixture
def store(toy_contract, repo):
    s = build(toy_contract, repo)
    assert audit_store(toy_contract, repo, InProcessRunner()).findings == []
    return s


def first_finding(store, recheck=True):
    report = audit_store(store.contract, store.repo, InProcessRunner() if recheck else None)
    assert report.findings, "the edit went unnoticed"
    return report.findings[0]


# (edit, table, column named, words in the problem)
CASES = {
    "commit bounds": ("UPDATE commits SET bounds = '{\"value\":\"99/100\"}' WHERE seq = 2", "commits", "bounds", "hash mismatch"),
    "commit created_at": ("UPDATE commits SET created_at = '2020-01-01' WHERE seq = 1", "commits", "created_at", "hash mismatch"),
    "commit state": ("UPDATE commits SET state = '{\"x\":\"99/100\"}' WHERE seq = 1", "commits", "state", "hash mismatch"),
    "commit label": ("UPDATE commits SET label = 'progress' WHERE seq = 1", "commits", "label", "hash mismatch"),
    "commit ranks": ("UPDATE commits SET ranks = replace(ranks, '0', '1') WHERE seq = 1", "commits", "ranks", "hash mismatch"),
    "commit evidence_sha": ("UPDATE commits SET evidence_sha = payload_sha WHERE seq = 1", "commits", "evidence_sha", "hash mismatch"),
    "commit format removed": ("UPDATE commits SET format = NULL WHERE seq = 0", "commits", "format", "hash mismatch"),
    "commit format downgraded": ("UPDATE commits SET format = NULL WHERE seq = 2", "commits", "format", "downgraded"),
    "commit candidate swapped": (f"UPDATE commits SET candidate_id = {REFUSED} WHERE seq = 1", "commits", "candidate_id", "hash mismatch"),
    "commit parent": ("UPDATE commits SET parent = hash WHERE seq = 2", "commits", "parent", "chain broken"),
    "refused label": (f"UPDATE candidates SET label = 'progress' WHERE id = {REFUSED}", "candidates", "label", "was edited"),
    "refused reasons": (f"UPDATE candidates SET reasons = '[]' WHERE id = {REFUSED}", "candidates", "reasons", "was edited"),
    "refused payload": (f"UPDATE candidates SET payload = '{{\"x\":\"1\"}}' WHERE id = {REFUSED}", "candidates", "payload", "was edited"),
    "refused proposer": (f"UPDATE candidates SET proposer = 'human' WHERE id = {REFUSED}", "candidates", "proposer", "was edited"),
    "refused proposer_meta": (f"UPDATE candidates SET proposer_meta = '{{\"model\":\"x\"}}' WHERE id = {REFUSED}", "candidates", "proposer_meta", "was edited"),
    "refused head_commit": (f"UPDATE candidates SET head_commit = NULL WHERE id = {REFUSED}", "candidates", "head_commit", "was edited"),
    "refused evidence": (f"UPDATE candidates SET evidence = replace(evidence, '1/4', '9/10') WHERE id = {REFUSED}", "candidates", "evidence", "was edited"),
    "refused timings": (f"UPDATE candidates SET timings = '{{\"forged\" : 1}}' WHERE id = {REFUSED}", "candidates", "timings", "was edited"),
    "refused created_at": (f"UPDATE candidates SET created_at = '2020' WHERE id = {REFUSED}", "candidates", "created_at", "was edited"),
    "malformed reason": (f"UPDATE candidates SET reasons = '[\"ok\"]' WHERE id = {MALFORMED}", "candidates", "reasons", "was edited"),
    "refused moved to another session": (f"UPDATE candidates SET session_id = 2 WHERE id = {REFUSED}", "candidates", "chain_seq", "missing"),
    "refused chain fields removed": (f"UPDATE candidates SET row_hash = NULL, chain_seq = NULL WHERE id = {REFUSED}", "candidates", "row_hash", "removed"),
    "committed proposer": (f"UPDATE candidates SET proposer = 'human' WHERE id = {COMMITTED}", "candidates", "proposer", "was edited"),
    "committed proposer_meta": (f"UPDATE candidates SET proposer_meta = '{{\"by\":\"hand\"}}' WHERE id = {COMMITTED}", "candidates", "proposer_meta", "was edited"),
    "committed session": (f"UPDATE candidates SET session_id = NULL WHERE id = {COMMITTED}", "candidates", "chain_seq", "missing"),
    "committed head": (f"UPDATE candidates SET head_commit = NULL WHERE id = {COMMITTED}", "candidates", "head_commit", "was edited"),
    "committed payload": (f"UPDATE candidates SET payload = '{{\"x\":\"99/100\"}}' WHERE id = {COMMITTED}", "candidates", "payload", "payload was edited"),
    "committed row hash": (f"UPDATE candidates SET row_hash = 'ab' || substr(row_hash, 3) WHERE id = {COMMITTED}", "commits", None, "hash mismatch"),
    "artifact content": ("UPDATE artifacts SET content = '{\"x\":\"1/3\"}' WHERE content = '{\"x\":\"7/10\"}'", "artifacts", "content", "evidence or an artifact"),
    "session proposer": ("UPDATE sessions SET proposer = 'human' WHERE id = 1", "sessions", "proposer", "was edited"),
    "session options": ("UPDATE sessions SET options = '{}' WHERE id = 1", "sessions", "options", "was edited"),
    "session seed": ("UPDATE sessions SET seed = 99 WHERE id = 2", "sessions", "seed", "was edited"),
    "session outcome": ("UPDATE sessions SET outcome = 'proved RH' WHERE id = 1", "sessions", "ended_at,outcome", "edited"),
    "contract text": ("UPDATE contracts SET text = replace(text, 'Toy bound', 'Riemann')", "contracts", "text", "contract text"),
}


@pytest.mark.parametrize("edit, table, column, words", CASES.values(), ids=list(CASES))
def test_edit_is_found_and_the_row_named(store, edit, table, column, words):
    store.sql(edit)
    f = first_finding(store)
    assert f.table == table, f
    assert f.field == column, f
    assert words in f.problem, f


def test_row_hash_mismatch_prints_stored_and_recomputed(store):
    row = store.scalar(f"SELECT id FROM candidates WHERE id = {REFUSED}")
    store.sql("UPDATE candidates SET label = 'correct' WHERE id = :i", i=row)
    f = first_finding(store)
    assert f.stored and f.recomputed and f.stored != f.recomputed
    assert f.row == row


def test_deleting_a_refused_row_breaks_its_session_chain(store):
    store.sql(f"DELETE FROM candidates WHERE id = {REFUSED}")
    f = first_finding(store, recheck=False)
    assert f.table == "candidates" and f.field == "chain_seq" and "deleted or reordered" in f.problem


def test_deleting_the_last_row_of_a_sealed_session_breaks_its_seal(store):
    store.sql(f"DELETE FROM candidates WHERE id = {LAST_OF_S1} AND commit_hash IS NULL")
    f = first_finding(store, recheck=False)
    assert (f.table, f.row, f.field) == ("sessions", store.sealed_session, "seal")
    assert "rows were deleted or added" in f.problem


def test_deleting_a_session_row_with_memory_is_found(store):
    store.sql("PRAGMA foreign_keys=OFF; DELETE FROM sessions WHERE id = 2")
    f = first_finding(store, recheck=False)
    assert (f.table, f.row) == ("sessions", 2) and "deleted" in f.problem

