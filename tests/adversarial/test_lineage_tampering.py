"""Store edits that leave every single row's own hash intact are still found: rows tied to the wrong lineage,
a copied session, an unsealed ended session, a contradicting Lean attestation, an edited contract row.

Each attack runs on SQLite and on PostgreSQL (a private cluster, skipped with the reason when unavailable).
"""

from __future__ import annotations

import json

import pytest
from sqlmodel import SQLModel

from mathloop.domain import Label
from mathloop.lean.attest import Attestation, record
from mathloop.audit.report import OTHER_CHAINS, audit_store
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store import raw
from mathloop.store.checkpoint import Checkpoint, take
from mathloop.store.engine import make_engine
from mathloop.store.models import ArtifactRow, CandidateRow, SessionOpeningRow, SessionRow
from mathloop.store.repository import Repository
from tests.adversarial.store_fixture import Store, build
from tests.integration.postgres import private_cluster, unavailable_reason
from tests.unit.test_loop import Scripted

REFUSED = "(SELECT min(id) FROM candidates WHERE label = 'regression')"
COMMITTED = "(SELECT candidate_id FROM commits WHERE seq = 1)"


@pytest.fixture(scope="module")
def pg_url():
    if unavailable_reason():
        pytest.skip(unavailable_reason())
    with private_cluster() as url:
        yield url


# PostgreSQL runs in CI's second tier: a private cluster and a fresh schema per attack are ~1 s each here
@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[pytest.mark.postgres_live, pytest.mark.slow])])
def backend(request, tmp_path):
    """Return a fresh, empty store URL on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    url = request.getfixturevalue("pg_url")
    engine = make_engine(url)
    SQLModel.metadata.drop_all(engine)
    engine.dispose()
    return url


@pytest.fixture
def store(backend, toy_contract) -> Store:
    repo = Repository(make_engine(backend))
    s = build(toy_contract, repo)
    assert audit_store(toy_contract, repo, InProcessRunner()).findings == []
    yield s
    repo.engine.dispose()


def findings(store: Store, cp: Checkpoint | None = None):
    return audit_store(store.contract, store.repo, InProcessRunner(), checkpoint=cp).findings


def found(store: Store, table: str, column: str | None, words: str, cp: Checkpoint | None = None):
    fs = findings(store, cp)
    hits = [f for f in fs if f.table == table and (column is None or f.field == column) and words in f.problem]
    assert hits, f"not found: {table}/{column}/{words!r} in {fs}"
    return hits[0]


# (edit, table, column named, words in the problem): each leaves the edited row's neighbours' hashes intact
CASES = {
    "contract text comment": ("UPDATE contracts SET text = text || '\n# reviewed and approved\n'", "contracts", "text",
                              "stored contract text was edited"),
    "contract target": ("UPDATE contracts SET target = 'levinson-conrey'", "contracts", "target", "contract row was edited"),
    "contract created_at": ("UPDATE contracts SET created_at = '2020-01-01T00:00:00'", "contracts", "created_at",
                            "contract row was edited"),
    "contract name": ("UPDATE contracts SET name = 'riemann'", "contracts", "name", "contract row was edited"),
    "ended session unsealed": ("UPDATE sessions SET seal = NULL WHERE id = 1", "sessions", "seal", "has no seal"),
    "lineage anchor deleted": ("DELETE FROM lineage_anchors", "lineage_anchors", "anchor", "anchor was deleted"),
    "session moved onto another head": ("UPDATE session_openings SET opened_on = (SELECT hash FROM commits WHERE seq = 2) "
                                        "WHERE session_id = 1", "candidates", None, "does not chain from its session"),
    "refused row given a commit": (f"UPDATE candidates SET commit_hash = (SELECT hash FROM commits WHERE seq = 2) "
                                   f"WHERE id = {REFUSED}", "candidates", "commit_hash", "not a commit of this lineage"),
    "row renumbered in place": ("UPDATE candidates SET id = 900 WHERE id = (SELECT max(id) FROM candidates)",
                                "candidates", "id", "was edited"),
    "row renumbered out of place": (f"UPDATE candidates SET id = 900 WHERE id = {REFUSED}", "candidates", "chain_seq",
                                    "deleted or reordered"),
}


@pytest.mark.parametrize("edit, table, column, words", CASES.values(), ids=list(CASES))
def test_edit_is_found(store, edit, table, column, words):
    store.sql(edit)
    found(store, table, column, words)


def test_unsealing_an_ended_session_entirely_is_found_by_a_checkpoint(store):
    cp = Checkpoint.from_json(json.loads(take(store.repo, store.contract.sha256, OTHER_CHAINS).dumps()))
    store.sql("UPDATE sessions SET seal = NULL, ended_at = NULL, outcome = NULL WHERE id = 1")
    found(store, "checkpoint", None, "session 1 was sealed at the checkpoint", cp)


def test_progress_without_a_commit_is_found_even_when_written_through_the_repository(store):
    head = store.repo.head(store.contract.sha256)
    store.repo.record(contract_sha=store.contract.sha256, session_id=store.open_session, head_commit=head.hash,
                      payload={"x": "99/100"}, proposer="scripted", meta={}, label=Label.PROGRESS, reasons=[],
                      evidence=None)
    found(store, "candidates", "commit_hash", "labelled 'progress' but has no commit")


def test_row_checked_against_a_foreign_head_is_found(store):
    store.repo.record(contract_sha=store.contract.sha256, session_id=store.open_session, head_commit="ab" * 32,
                      payload={"x": "1/3"}, proposer="scripted", meta={}, label=Label.REGRESSION, reasons=["worse"],
                      evidence=None)
    found(store, "candidates", "head_commit", "not a commit of this lineage")


LEAN = dict(kind="bundled", lean_version="4.35.0", lean_commit="eb6cafb", prelude_sha256="c" * 64,
            artifact_sha256=None, file_sha256s={"Commit.lean": "d" * 64})


def test_appended_refuted_attestation_for_a_checked_commit_is_found_even_past_a_checkpoint(store):
    commit = store.commits[1].hash
    record(store.repo.engine, store.contract.sha256, Attestation(commit, "checked", **LEAN))
    # the toy renders no Lean file, so a `checked` about it is itself a finding (review19 H3); nothing else is
    assert [f.problem for f in findings(store) if "renders none" not in f.problem] == []
    cp = Checkpoint.from_json(json.loads(take(store.repo, store.contract.sha256, OTHER_CHAINS).dumps()))
    record(store.repo.engine, store.contract.sha256, Attestation(commit, "refuted", **LEAN, reasons=("Type mismatch",)))
    f = found(store, "lean_attestations", "status", "same Lean on the same rendering", cp)
    assert f.commit == commit
    assert not any(x.table == "checkpoint" for x in findings(store, cp))  # appending extends the chain: only this check sees it


def test_contradicting_attestation_from_another_lean_asks_for_a_rerun(store):
    commit = store.commits[2].hash
    record(store.repo.engine, store.contract.sha256, Attestation(commit, "checked", **LEAN))
    record(store.repo.engine, store.contract.sha256,
           Attestation(commit, "refuted", **{**LEAN, "lean_version": "4.36.0"}, reasons=("Type mismatch",)))
    found(store, "lean_attestations", "status", "mathloop audit --lean")


def test_unavailable_after_checked_is_not_a_contradiction(store):
    commit = store.commits[1].hash
    record(store.repo.engine, store.contract.sha256, Attestation(commit, "checked", **LEAN))
    record(store.repo.engine, store.contract.sha256, Attestation(commit, "unavailable", reasons=("no Lean here",)))
    # the toy renders no Lean file: the `checked` itself is a finding (review19 H3), the `unavailable` adds none
    assert [f.problem for f in findings(store) if "renders none" not in f.problem] == []


def _copy_session(source: Repository, target: Repository, contract_sha: str, sid: int, renumber: bool = True) -> int:
    """Copy a session as an attacker would: its row, its opening, its memory rows (commit_hash NULL) and their
    artifacts; renumbered to free ids of the target store, or keeping their ids. Returns the session id."""
    with target.engine.begin() as conn:
        new_sid, shift = sid, 0
        if renumber:
            new_sid = conn.execute(SessionRow.__table__.select().with_only_columns(
                SessionRow.__table__.c.id).order_by(SessionRow.__table__.c.id.desc()).limit(1)).scalar() + 100
            shift = 100
        s = raw.session_rows(source.engine, contract_sha)[sid]
        conn.execute(SessionRow.__table__.insert().values({**s.model_dump(), "id": new_sid}))
        opening = raw.session_openings(source.engine, contract_sha).get(sid)
        if opening is not None:
            conn.execute(SessionOpeningRow.__table__.insert().values({**opening.model_dump(), "session_id": new_sid}))
        have = {r[0] for r in conn.execute(ArtifactRow.__table__.select().with_only_columns(ArtifactRow.__table__.c.sha256))}
        for row in (r for r in raw.candidate_rows(source.engine, contract_sha) if r.session_id == sid):
            for ref in json.loads(row.evidence or '{"artifacts": {}}')["artifacts"].values():
                if ref["$artifact"] not in have:
                    art = raw.artifact_row(source.engine, ref["$artifact"])
                    conn.execute(ArtifactRow.__table__.insert().values(art.model_dump()))
                    have.add(art.sha256)
            conn.execute(CandidateRow.__table__.insert().values(
                {**row.model_dump(), "id": row.id + shift, "session_id": new_sid, "commit_hash": None}))
    return new_sid


def _other_store(path, contract, *, openings: bool) -> Repository:
    """Return another store of the same contract whose third session's ids are free in the fixture's store."""
    other = Repository(make_engine(str(path)))
    build(contract, other)
    s3 = other.start_session(contract.sha256, "scripted", 9, {"budget": 2})
    if not openings:  # a session written before chain format 3: no opening, rows hashed without their ids
        with other.engine.begin() as conn:
            conn.execute(SessionOpeningRow.__table__.delete().where(SessionOpeningRow.__table__.c.session_id == s3))
        other._openings.clear()
    Session(contract, other, InProcessRunner(), s3).run(Scripted([{"x": "1/5"}, {"x": "1/3"}]), SessionLimits(2))
    other.end_session(s3, "budget spent")
    return other


def _names_copy(fs, store, sid) -> bool:
    copied = {r.id for r in raw.candidate_rows(store.repo.engine, store.contract.sha256) if r.session_id == sid}
    return any((f.table == "candidates" and f.row in copied) or (f.table in ("sessions", "session_openings")
                                                               and f.row == sid) for f in fs)


@pytest.mark.parametrize("sid", [1, 2], ids=["sealed session", "unsealed session"])
def test_session_copied_from_another_store_with_the_same_contract_is_found(store, tmp_path, toy_contract, sid):
    other = _other_store(tmp_path / "other.db", toy_contract, openings=True)
    new_sid = _copy_session(other, store.repo, toy_contract.sha256, sid)
    fs = findings(store)
    assert fs and _names_copy(fs, store, new_sid), fs
    other.engine.dispose()


@pytest.mark.parametrize("openings", [True, False], ids=["format 3", "as format 2"])
def test_session_copied_with_its_own_ids_is_found(store, tmp_path, toy_contract, openings):
    other = _other_store(tmp_path / "other.db", toy_contract, openings=openings)
    sid = _copy_session(other, store.repo, toy_contract.sha256, 3, renumber=False)
    fs = findings(store)
    assert fs and _names_copy(fs, store, sid), fs
    words = "does not chain from its session's start" if openings else "not a commit of this lineage"
    assert any(words in f.problem for f in fs), fs
    other.engine.dispose()


def test_audit_runs_on_a_read_only_engine_that_refuses_writes(store, backend):
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    engine = make_engine(backend, create=False, readonly=True)
    try:
        report = audit_store(store.contract, Repository(engine), InProcessRunner())
        assert report.findings == [] and report.commits == 3 and report.lacks == ()
        with engine.connect() as c, pytest.raises(DBAPIError, match="(?i)read-?only"):
            c.execute(text("DELETE FROM sessions WHERE id = 2"))
    finally:
        engine.dispose()


def test_checkpoint_keeps_seals_and_refuses_a_malformed_one(store):
    from mathloop.store.checkpoint import CheckpointError

    d = json.loads(take(store.repo, store.contract.sha256).dumps())
    assert [s["session"] for s in d["seals"]] == [store.sealed_session]
    del d["seals"]  # a checkpoint written before seals were kept still reads
    assert Checkpoint.from_json(d).seals == {}
    with pytest.raises(CheckpointError, match=r"seals\[0\].seal"):
        Checkpoint.from_json({**d, "seals": [{"session": 1, "seal": "forged"}]})


def test_a_rerun_settles_only_contradictions_between_different_leans():
    from mathloop.cli.audit_cmd import _settled
    from mathloop.store.findings import Finding

    other = Finding(None, "a" * 64, "… by another Lean or rendering, without a re-run …", "lean_attestations", "a" * 64,
                    "status")
    forged = Finding(None, "b" * 64, "… by the same Lean on the same rendering: one of them is forged",
                     "lean_attestations", "b" * 64, "status")
    assert _settled([other, forged], []) == [other]
    assert _settled([other, forged], [Finding(None, "a" * 64, "re-run says refuted", "lean_attestations")]) == []
