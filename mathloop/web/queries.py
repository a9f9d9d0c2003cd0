"""The reads the web view needs beyond the repository's: lineage summaries and pages of candidates."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from mathloop.contract import Contract, ContractError
from mathloop.targets import load_stored
from mathloop.store.models import CandidateRow, CommitRow, ContractRow
from mathloop.store.rechecks import failed_rechecks
from mathloop.store.repository import Repository
from mathloop.view.counts import lineage_counts


@dataclass(frozen=True)
class Lineage:
    """One contract lineage of the store with its head (None before the root)."""

    sha256: str
    name: str
    target: str
    created_at: str
    commits: int
    head: CommitRow | None
    labels: dict[str, int]
    failed: tuple[str, ...] = ()  # commits that failed a quarantine re-check (store/rechecks): the head rests on them


@dataclass(frozen=True)
class CandidateLine:
    """One memory row as listed: enough to choose which to open."""

    id: int
    created_at: str
    label: str
    proposer: str
    reasons: tuple[str, ...]
    payload: str
    commit_hash: str | None
    session_id: int | None


def lineages(repo: Repository, sha: str | None = None) -> list[Lineage]:
    """Return every lineage in the store (or only the one with this contract hash), by name.

    Commits and labels are counted by `lineage_counts`, the function `status` uses, so both agree.
    """
    with Session(repo.engine) as s:
        q = select(ContractRow).order_by(ContractRow.name, ContractRow.created_at)
        rows = list(s.exec(q.where(ContractRow.sha256 == sha) if sha else q))
        out = []
        for r in rows:
            head = s.exec(select(CommitRow).where(CommitRow.contract_sha == r.sha256)
                          .order_by(col(CommitRow.seq).desc()).limit(1)).first()
            counts = lineage_counts(repo.engine, r.sha256)
            failed = tuple(f.commit for f in failed_rechecks(repo.engine, r.sha256))
            out.append(Lineage(r.sha256, r.name, r.target, r.created_at, counts.commits, head, dict(counts.labels),
                               failed))
    return out


def contract_row(repo: Repository, sha: str) -> ContractRow | None:
    with Session(repo.engine) as s:
        return s.get(ContractRow, sha)


@lru_cache(maxsize=64)
def _contract_from_text(name: str, sha: str, text: str) -> Contract:
    return load_stored(name, sha, text)


def stored_contract(row: ContractRow) -> Contract:
    """Return the contract a lineage was recorded with (from its stored text). Raises ContractError."""
    return _contract_from_text(row.name, row.sha256, row.text)


def candidates_page(repo: Repository, sha: str, label: str | None, offset: int, limit: int) -> tuple[list[CandidateLine], int]:
    """Return one page of the lineage's candidates (newest first), optionally of one label, and the total."""
    with Session(repo.engine) as s:
        where = [CandidateRow.contract_sha == sha] + ([CandidateRow.label == label] if label else [])
        total = int(s.exec(select(func.count()).select_from(CandidateRow).where(*where)).one())
        rows = s.exec(select(CandidateRow.id, CandidateRow.created_at, CandidateRow.label, CandidateRow.proposer,
                             CandidateRow.reasons, CandidateRow.payload, CandidateRow.commit_hash,
                             CandidateRow.session_id)
                      .where(*where).order_by(col(CandidateRow.id).desc()).offset(offset).limit(limit))
        lines = [CandidateLine(int(i), c, l, p, tuple(_json_list(r)), pl, h, sid) for i, c, l, p, r, pl, h, sid in rows]
    return lines, total


def _json_list(text: str) -> list[Any]:
    try:
        v = json.loads(text)
    except ValueError:
        return [text]
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


__all__ = ["ContractError", "Lineage", "CandidateLine", "lineages", "contract_row", "stored_contract",
           "candidates_page"]
