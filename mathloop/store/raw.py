"""Stored rows exactly as written (no decoding), for audit and checkpoints: hashes are checked over them."""

from __future__ import annotations

from typing import Iterable

from sqlalchemy import func, inspect
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mathloop.store.models import (ArtifactRow, CandidateRow, CommitRow, ContractRow, LineageAnchorRow,
                                   SessionOpeningRow, SessionRow, stored)


def has_table(engine: Engine, name: str) -> bool:
    """Return whether the store has this table (a store opened read-only is never given new ones)."""
    return inspect(engine).has_table(name)


def lineage_anchor(engine: Engine, contract_sha: str) -> LineageAnchorRow | None:
    """Return the lineage's anchor row (chain format 3), or None (an older store, or deleted)."""
    if not has_table(engine, LineageAnchorRow.__tablename__):
        return None
    with Session(engine) as s:
        return s.get(LineageAnchorRow, contract_sha)


def session_openings(engine: Engine, contract_sha: str) -> dict[int, SessionOpeningRow]:
    """Return the opening rows (chain format 3) of the lineage's sessions by session id."""
    if not has_table(engine, SessionOpeningRow.__tablename__):
        return {}
    with Session(engine) as s:
        return {int(r.session_id): r for r in s.exec(select(SessionOpeningRow)
                                                      .where(SessionOpeningRow.contract_sha == contract_sha))}


def commit_rows(engine: Engine, contract_sha: str) -> list[CommitRow]:
    """Return the lineage's commit rows in seq order."""
    with Session(engine) as s:
        return list(s.exec(select(CommitRow).where(CommitRow.contract_sha == contract_sha).order_by(col(CommitRow.seq))))


def candidate_rows(engine: Engine, contract_sha: str, *, batch: int = 500) -> Iterable[CandidateRow]:
    """Yield the lineage's memory rows as stored, oldest first (streamed in batches)."""
    last = 0
    while True:
        with Session(engine) as s:
            rows = list(s.exec(select(CandidateRow).where(CandidateRow.contract_sha == contract_sha,
                                                          col(CandidateRow.id) > last)
                               .order_by(col(CandidateRow.id)).limit(batch)))
        if not rows:
            return
        yield from rows
        last = stored(rows[-1].id)


def candidate_row(engine: Engine, candidate_id: int) -> CandidateRow | None:
    """Return one memory row by id, or None."""
    with Session(engine) as s:
        return s.get(CandidateRow, candidate_id)


def session_rows(engine: Engine, contract_sha: str) -> dict[int, SessionRow]:
    """Return the lineage's session rows by id."""
    with Session(engine) as s:
        return {stored(r.id): r for r in s.exec(select(SessionRow).where(SessionRow.contract_sha == contract_sha))}


def contract_row(engine: Engine, contract_sha: str) -> ContractRow | None:
    """Return the recorded contract lineage row, or None."""
    with Session(engine) as s:
        return s.get(ContractRow, contract_sha)


def artifact_row(engine: Engine, sha: str) -> ArtifactRow | None:
    """Return an artifact row by its sha256 key, or None."""
    with Session(engine) as s:
        return s.get(ArtifactRow, sha)


def memory_tips(engine: Engine, contract_sha: str) -> dict[int | None, tuple[int, str]]:
    """Return {session id: (chained rows, last row hash)} for every session chain of the lineage."""
    with Session(engine) as s:
        tops = s.exec(select(CandidateRow.session_id, func.max(CandidateRow.chain_seq))
                      .where(CandidateRow.contract_sha == contract_sha, col(CandidateRow.chain_seq).is_not(None))
                      .group_by(col(CandidateRow.session_id))).all()
        out: dict[int | None, tuple[int, str]] = {}
        for sid, top in tops:
            h = s.exec(select(CandidateRow.row_hash).where(CandidateRow.contract_sha == contract_sha,
                                                          CandidateRow.session_id == sid,
                                                          CandidateRow.chain_seq == top)).first()
            out[sid] = (stored(top) + 1, str(h))
        return out


def memory_row_at(engine: Engine, contract_sha: str, session_id: int | None, chain_seq: int) -> CandidateRow | None:
    """Return the memory row at a place of a session's chain, or None."""
    with Session(engine) as s:
        return s.exec(select(CandidateRow).where(CandidateRow.contract_sha == contract_sha,
                                                 CandidateRow.session_id == session_id,
                                                 CandidateRow.chain_seq == chain_seq)).first()
