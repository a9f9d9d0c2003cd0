"""The memory rows of a quarantine re-check: what a worker answered in a session, and the commits that failed.

When a session quarantines a worker it re-checks everything that worker answered earlier in the session
(search/quarantine.py). A committed answer that fails its re-check stays in the append-only chain; the session
records it as a memory row with label `error` and `meta.recheck_failed_commit` = the commit's hash, which `audit`
reports as a finding and `status` shows. The memory rows are hash-chained, so the mark cannot be dropped quietly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mathloop.store.models import CandidateRow, stored
from mathloop.store.repository import CandidateRecord, Repository

FAILED_COMMIT = "recheck_failed_commit"  # meta key: the commit whose worker answer failed the session's re-check
RECHECK_OF = "recheck_of"                # meta key: the memory row whose worker answer the session re-checked
WORKER = "quarantined_worker"            # meta key: the worker that gave it
CHECKED_BY = "checked_by"                # meta key: who produced the outcome a row records
UNVERIFIED = "unverified_remote"         # meta key: a remote worker's answer the session took on its word
LOOP_KEYS = (FAILED_COMMIT, RECHECK_OF, WORKER, CHECKED_BY, UNVERIFIED)  # written by the loop only, never by a proposer


@dataclass(frozen=True)
class FailedRecheck:
    """A committed answer of a quarantined worker that the session's own check contradicts."""

    candidate_id: int
    session_id: int | None
    commit: str
    worker: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"memory_row": self.candidate_id, "session": self.session_id, "commit": self.commit,
                "worker": self.worker, "reason": self.reason}


def answers_of(repo: Repository, contract_sha: str, worker: str) -> list[CandidateRecord]:
    """Return the lineage's memory rows, of every session, whose outcome `worker` produced (meta.checked_by) and that
    no earlier quarantine re-check has dealt with yet (superseded: meta.recheck_of; marked: recheck_failed_commit),
    oldest first."""
    with Session(repo.engine) as s:
        rows = list(s.exec(select(CandidateRow.id, CandidateRow.proposer_meta).where(
            CandidateRow.contract_sha == contract_sha, col(CandidateRow.proposer_meta).contains(CHECKED_BY))
            .order_by(col(CandidateRow.id))))
    metas = [(stored(i), _meta(meta)) for i, meta in rows]
    done = {m.get(RECHECK_OF) for _, m in metas if m.get(RECHECK_OF) is not None}
    ids = [i for i, m in metas if m.get(CHECKED_BY) == worker and i not in done]
    return [r for r in (repo.candidate(i) for i in ids) if r is not None]


def failed_rechecks(engine: Engine, contract_sha: str) -> list[FailedRecheck]:
    """Return every committed answer of the lineage that failed a quarantine re-check, oldest first."""
    with Session(engine) as s:
        rows = s.exec(select(CandidateRow.id, CandidateRow.session_id, CandidateRow.proposer_meta, CandidateRow.reasons)
                      .where(CandidateRow.contract_sha == contract_sha, CandidateRow.label == "error",
                             col(CandidateRow.proposer_meta).contains(FAILED_COMMIT))
                      .order_by(col(CandidateRow.id)))
        out = []
        for cid, sid, meta, reasons in rows:
            m = _meta(meta)
            if isinstance(m.get(FAILED_COMMIT), str):
                why = _meta_list(reasons)
                out.append(FailedRecheck(stored(cid), sid, m[FAILED_COMMIT], str(m.get(WORKER)), why[0] if why else ""))
    return out


def checked_payloads(engine: Engine, contract_sha: str) -> set[str]:
    """Return the payload sha256s of the lineage's memory rows that count for the exact-repeat rule: every row but
    a remote worker's answer the session took on its word (meta.unverified_remote), so that a lying worker cannot
    keep a payload from ever being checked again."""
    out: set[str] = set()
    with Session(engine) as s:
        for sha, meta in s.exec(select(CandidateRow.payload_sha, CandidateRow.proposer_meta)
                                .where(CandidateRow.contract_sha == contract_sha)):
            if UNVERIFIED not in (meta or "") or _meta(meta).get(UNVERIFIED) is not True:
                out.add(sha)
    return out


def resting_on_failed(repo: Repository, contract_sha: str) -> set[str]:
    """Return the hashes of the commits that failed a quarantine re-check and of every later commit of the lineage
    (the chain is linear: each later commit rests on them), so that no view, export or reward reference shows one
    as verified."""
    failed = {f.commit for f in failed_rechecks(repo.engine, contract_sha)}
    out: set[str] = set()
    if failed:
        for c in repo.commits(contract_sha):
            if c.hash in failed or out:
                out.add(c.hash)
    return out


def _meta(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:  # an unreadable column is the audit's finding (its row hash), not this reader's
        return {}
    return value if isinstance(value, dict) else {}


def _meta_list(text: str | None) -> list[str]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []
