"""A store written before chain format 3 (by mathloop as of 2026-12-01) still audits, read-only or migrated,
and the audit says what its rows lack instead of failing them; edits of what it does cover are still found."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from mathloop.audit.report import audit_store
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.cli import invoke
from tests.unit.test_loop import Scripted

FORMAT2 = Path(__file__).parent / "data" / "format2.db"  # store_fixture.build() by main's code before format 3


@pytest.fixture
def old(tmp_path) -> Path:
    (tmp_path / "store").mkdir()
    db = tmp_path / "store" / "old.db"
    shutil.copy(FORMAT2, db)
    return db


def test_old_store_audits_read_only_without_being_changed(old, toy_contract):
    before = hashlib.sha256(old.read_bytes()).hexdigest()
    repo = Repository(make_engine(str(old), create=False, readonly=True))
    report = audit_store(toy_contract, repo, InProcessRunner())
    assert report.findings == [] and report.commits == 3
    assert any("predates chain format 3" in w for w in report.lacks)
    assert any("2 session(s) predate chain format 3" in w for w in report.lacks)
    assert any("3 commit(s) of chain format 2" in w for w in report.lacks)
    repo.engine.dispose()
    assert hashlib.sha256(old.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in old.parent.iterdir()) == ["old.db"]


def test_old_store_edits_are_still_found_read_only(old, toy_contract):
    import sqlite3

    with sqlite3.connect(old) as c:
        c.execute("UPDATE sessions SET seal = NULL WHERE id = 1")
    repo = Repository(make_engine(str(old), create=False, readonly=True))
    f = audit_store(toy_contract, repo, None).findings[0]
    assert (f.table, f.field) == ("sessions", "seal") and "has no seal" in f.problem
    repo.engine.dispose()


def test_old_store_continued_by_new_code_anchors_the_new_session(old, toy_contract):
    repo = Repository(make_engine(str(old)))
    assert audit_store(toy_contract, repo, None).findings == []  # migrated: new tables, nothing rewritten
    sid = repo.start_session(toy_contract.sha256, "scripted", 1, {})
    Session(toy_contract, repo, InProcessRunner(), sid).run(Scripted([{"x": "9/10"}, {"x": "1/5"}]), SessionLimits(2))
    repo.end_session(sid, "budget spent")
    report = audit_store(toy_contract, repo, InProcessRunner())
    assert report.findings == [] and report.commits == 4 and report.memory.anchored == 1
    assert any("2 session(s) predate chain format 3" in w for w in report.lacks)
    assert not any("its exact text" in w for w in report.lacks)  # anchored when the new writer opened the lineage
    with repo.engine.begin() as conn:
        from sqlalchemy import text

        conn.execute(text("UPDATE contracts SET target = 'levinson-conrey'"))
    f = audit_store(toy_contract, repo, None).findings[0]
    assert (f.table, f.field) == ("contracts", "target")


def test_cli_audit_of_an_old_store_passes_and_names_what_it_lacks(old, toy_contract):
    r = invoke("audit", str(toy_contract.path), "--db", str(old), "--hash-only")
    assert r.exit_code == 0, r.output
    assert "audit ok: 3 commit(s)" in r.output and "predate chain format 3" in r.output


def test_a_lineage_never_run_in_a_store_audits_without_a_legacy_note(tmp_path, toy_contract):
    repo = Repository(make_engine(str(tmp_path / "empty.db")))
    report = audit_store(toy_contract, repo, None)
    assert report.findings == [] and report.commits == 0
    assert not report.lacks  # no contract row: nothing predates chain format 3
    repo.engine.dispose()
