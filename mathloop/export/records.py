"""Labelled training records: every candidate with its label, parent state, evidence and hypotheses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterator

from mathloop.contract.model import Contract
from mathloop.propose.origin import credit
from mathloop.outputs import replacing
from mathloop.store.rechecks import resting_on_failed
from mathloop.store.repository import CandidateRecord, Repository


def records(contract: Contract, repo: Repository) -> Iterator[dict]:
    """Yield one JSON-able record per candidate of the lineage, oldest first.

    `recheck_failed` is True on a committed record whose worker answer failed a quarantine re-check
    (store/rechecks), and on every record whose parent commit rests on such a commit: its label is not the verifier's.
    """
    commits = repo.commits(contract.sha256)
    states = {c.hash: c.state for c in commits}
    tainted = resting_on_failed(repo, contract.sha256)
    hypotheses = [{"id": h.id, "title": h.title, "citation": h.citation} for h in contract.hypotheses]
    for c in repo.candidates(contract.sha256):
        yield _record(contract, c, states, hypotheses, tainted)


def _record(contract: Contract, c: CandidateRecord, states: dict, hypotheses: list, tainted: set[str]) -> dict:
    return {
        "target": contract.name,
        "implementation": contract.target,
        "contract_sha256": contract.sha256,
        "candidate_id": c.id,
        "session_id": c.session_id,
        "created_at": c.created_at,
        "proposer": c.proposer,
        "origin": credit(c.meta, c.proposer),
        "payload": c.payload,
        "label": c.label,
        "reasons": list(c.reasons),
        "parent_commit": c.head_commit,
        "parent_state": states.get(c.head_commit) if c.head_commit else None,
        "commit": c.commit_hash,
        "evidence": c.evidence.to_json() if c.evidence else None,
        "meta": dict(c.meta),
        "hypotheses": hypotheses,
        "recheck_failed": c.commit_hash in tainted or c.head_commit in tainted,
    }


def write_records(contract: Contract, repo: Repository, out: Path, progress: Callable[[], None] | None = None) -> int:
    """Write the records as JSONL all or nothing (mathloop.outputs); return how many.

    Raises:
        OutputError: `out` cannot be written (its folder is missing or read-only, the disk is full).
    """
    n = 0
    with replacing(out) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            for rec in records(contract, repo):
                f.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
                n += 1
                if progress:
                    progress()
    return n
