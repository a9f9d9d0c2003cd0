"""Rollbacks (deleted newest rows) are invisible inside a store; a checkpoint kept elsewhere finds them."""

import json
import shutil
from pathlib import Path

import pytest

from mathloop.audit.report import audit_store
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.checkpoint import Checkpoint, CheckpointError, take
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.adversarial.store_fixture import build
from tests.integration.cli import invoke
from tests.unit.test_loop import Scripted

LEGACY = Path(__file__).parent / "data" / "legacy-format1.db"


@pytest.fixture
def store(toy_contract, repo):
    return build(toy_contract, repo)


def audit_with(store, cp):
    return audit_store(store.contract, store.repo, None, checkpoint=cp).findings


def test_untouched_store_extends_its_checkpoint(store):
    cp = take(store.repo, store.contract.sha256)
    assert cp.length == 3 and cp.head == store.commits[-1].hash
    assert audit_with(store, Checkpoint.from_json(json.loads(cp.dumps()))) == []


def test_grown_store_still_extends_an_older_checkpoint(store):
    cp = take(store.repo, store.contract.sha256)
    s3 = store.repo.start_session(store.contract.sha256, "scripted", 9, {})
    Session(store.contract, store.repo, InProcessRunner(), s3).run(Scripted([{"x": "9/10"}, {"x": "1/5"}]), SessionLimits(2))
    assert audit_with(store, cp) == []


def test_deleted_head_is_a_rollback(store):
    cp = take(store.repo, store.contract.sha256)
    head = store.commits[-1]
    store.sql("PRAGMA foreign_keys=OFF; DELETE FROM commits WHERE hash = :h; UPDATE candidates SET commit_hash = NULL WHERE commit_hash = :h", h=head.hash)
    findings = audit_with(store, cp)
    assert any(f.table == "checkpoint" and "rollback" in f.problem for f in findings), findings


def test_replaced_head_no_longer_extends_the_checkpoint(store):
    cp = take(store.repo, store.contract.sha256)
    store.sql("UPDATE commits SET hash = :fake WHERE seq = 2", fake="f" * 64)
    findings = audit_with(store, cp)
    assert any("no longer extends" in f.problem for f in findings)


def test_deleted_newest_memory_rows_of_an_unsealed_session_are_a_rollback(store):
    cp = take(store.repo, store.contract.sha256)
    store.sql("DELETE FROM candidates WHERE session_id = :s", s=store.open_session)
    assert audit_store(store.contract, store.repo, None).findings == []  # a killed session looks the same from inside
    findings = audit_with(store, cp)
    assert findings and f"session {store.open_session} had 1 row(s)" in findings[0].problem


def test_rewritten_memory_tip_differs_from_the_checkpoint(store):
    cp = take(store.repo, store.contract.sha256)
    store.sql("UPDATE candidates SET row_hash = :h WHERE session_id = :s", h="e" * 64, s=store.open_session)
    problems = [f.problem for f in audit_with(store, cp)]
    assert any("differs from the checkpoint" in p for p in problems)


def test_checkpoint_of_another_lineage_is_refused(store):
    cp = take(store.repo, store.contract.sha256)
    other = Checkpoint("a" * 64, cp.head, cp.length, cp.memory)
    assert "lineage" in audit_with(store, other)[0].problem


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.update(format="x"), "format"),
    (lambda d: d.update(head="zz"), "head"),
    (lambda d: d.update(length=-1), "length"),
    (lambda d: d.update(length=True), "length"),
    (lambda d: d.update(sessions="all"), "sessions"),
    (lambda d: d["sessions"].append({"session": 1, "rows": 0, "tip": "0" * 64}), "sessions[2].rows"),
    (lambda d: d["sessions"].append("s"), "sessions[2]"),
])
def test_malformed_checkpoint_names_the_field(store, mutate, field):
    d = take(store.repo, store.contract.sha256).to_json()
    mutate(d)
    with pytest.raises(CheckpointError, match=rf"^{field.replace('[', '.').replace(']', '.')}"):
        Checkpoint.from_json(d)


def test_cli_checkpoint_then_rollback_fails_audit(tmp_path, toy_contract):
    db = tmp_path / "cli.db"
    repo = Repository(make_engine(str(db)))
    store = build(toy_contract, repo)
    cp_file = tmp_path / "cp.json"
    r = invoke("checkpoint", str(toy_contract.path), "--db", str(db), "--json", "-o", str(cp_file))
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["head"] == store.commits[-1].hash == json.loads(cp_file.read_text())["head"]
    assert invoke("audit", str(toy_contract.path), "--db", str(db), "--hash-only", "--checkpoint", str(cp_file)).exit_code == 0
    store.sql("PRAGMA foreign_keys=OFF; DELETE FROM commits WHERE seq = 2")
    r = invoke("audit", str(toy_contract.path), "--db", str(db), "--hash-only", "--checkpoint", str(cp_file))
    assert r.exit_code == 1 and "rollback" in r.output


@pytest.mark.parametrize("content, words", [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe{}", "not valid UTF-8"),
    (b'{"format": "mathloop/checkpoint/1"}', "contract_sha"),
    (b"[]", "must be a JSON object"),
])
def test_cli_bad_checkpoint_file_exits_2(tmp_path, toy_contract, content, words):
    db = tmp_path / "cli.db"
    build(toy_contract, Repository(make_engine(str(db))))
    bad = tmp_path / "cp.json"
    bad.write_bytes(content)
    r = invoke("audit", str(toy_contract.path), "--db", str(db), "--hash-only", "--checkpoint", str(bad))
    assert r.exit_code == 2 and words in r.output


def test_cli_audit_prints_stored_and_recomputed_hashes(tmp_path, toy_contract):
    db = tmp_path / "cli.db"
    store = build(toy_contract, Repository(make_engine(str(db))))
    store.sql("UPDATE commits SET bounds = '{\"value\":\"99/100\"}' WHERE seq = 2")
    r = invoke("audit", str(toy_contract.path), "--db", str(db), "--hash-only")
    assert r.exit_code == 1
    stored = next(l for l in r.output.splitlines() if "stored hash:" in l).split()[-1]
    again = next(l for l in r.output.splitlines() if "recomputed hash:" in l).split()[-1]
    assert stored == store.commits[2].hash and again != stored and len(again) == 64
    assert "commits row" in r.output and "column bounds" in r.output


def test_legacy_format1_store_still_audits_and_says_what_is_not_covered(tmp_path, toy_contract):
    db = tmp_path / "old.db"
    shutil.copy(LEGACY, db)
    r = invoke("audit", str(toy_contract.path), "--db", str(db), "--hash-only")  # the toy target lives in this process
    assert r.exit_code == 0, r.output
    assert "3 commit(s)" in r.output and "predate chain format 2" in r.output


def test_legacy_store_continued_by_new_code_chains_the_new_rows(tmp_path, toy_contract):
    db = tmp_path / "old.db"
    shutil.copy(LEGACY, db)
    repo = Repository(make_engine(str(db)))
    sid = repo.start_session(toy_contract.sha256, "scripted", 1, {})
    Session(toy_contract, repo, InProcessRunner(), sid).run(Scripted([{"x": "9/10"}, {"x": "1/5"}]), SessionLimits(2))
    report = audit_store(toy_contract, repo, InProcessRunner())
    assert report.findings == [] and report.legacy_commits == 3 and report.commits == 4
    assert report.memory.legacy == 5 and report.memory.chained == 2
    with repo.engine.begin() as conn:
        from sqlalchemy import text

        conn.execute(text("UPDATE candidates SET label = 'correct' WHERE label = 'regression' AND row_hash IS NOT NULL"))
    assert audit_store(toy_contract, repo, None).findings[0].field == "label"


def test_deleted_newest_lean_attestation_is_a_rollback(store):
    from mathloop.lean.attest import Attestation, record
    from mathloop.audit.report import OTHER_CHAINS

    for c in store.commits:
        record(store.repo.engine, store.contract.sha256, Attestation(c.hash, "unavailable", reasons=("no Lean here",)))
    cp = take(store.repo, store.contract.sha256, OTHER_CHAINS)
    assert cp.chains["lean_attestations"][0] == 3
    assert audit_with(store, Checkpoint.from_json(json.loads(cp.dumps()))) == []
    store.sql("DELETE FROM lean_attestations WHERE seq = 2")
    assert audit_store(store.contract, store.repo, None).findings == []  # the newest result simply looks pending
    findings = audit_with(store, cp)
    assert findings and "rollback of lean_attestations" in findings[0].problem
