"""Re-verify a lineage: the hash chain, the stored evidence, and every commit's check and gate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mathloop.contract.model import Contract
from mathloop.domain import Label, fraction_str, payload_sha, sha256_hex
from mathloop.search.gate import decide
from mathloop.search.runner import CheckRunner
from mathloop.store.chain import commit_body, commit_hash
from mathloop.store.models import GENESIS
from mathloop.store.repository import CommitRecord, Repository


@dataclass(frozen=True)
class Finding:
    """One thing wrong with one commit."""

    seq: int
    commit: str
    problem: str


def audit(contract: Contract, repo: Repository, runner: CheckRunner | None,
          progress: Callable[[int, int], None] | None = None) -> tuple[list[Finding], int]:
    """Return (findings, commits audited). With a runner, every commit is re-checked from its stored
    payload against its parent's state and re-gated; without one, only hashes and rows are verified."""
    commits = repo.commits(contract.sha256)
    findings: list[Finding] = []
    parent: CommitRecord | None = None
    for i, c in enumerate(commits):
        findings += _audit_one(contract, repo, runner, parent, c, i)
        parent = c
        if progress:
            progress(i + 1, len(commits))
    return findings, len(commits)


def _audit_one(contract: Contract, repo: Repository, runner: CheckRunner | None,
               parent: CommitRecord | None, c: CommitRecord, i: int) -> list[Finding]:
    def bad(problem: str) -> list[Finding]:
        return [Finding(c.seq, c.hash, problem)]

    expected_parent = parent.hash if parent else GENESIS
    if c.seq != i or c.parent != expected_parent:
        return bad(f"chain broken: seq {c.seq} has parent {c.parent[:12]}, expected {expected_parent[:12]} at position {i}")
    body = commit_body(contract_sha=c.contract_sha, seq=c.seq, payload_sha=c.payload_sha, state=c.state,
                       ranks=c.ranks, bounds={k: fraction_str(v) for k, v in c.bounds.items()},
                       evidence_sha=c.evidence_sha, label=c.label, created_at=c.created_at)
    if commit_hash(c.parent, body) != c.hash:
        return bad("hash mismatch: the commit row was edited (its fields no longer hash to its id)")
    try:
        cand = repo.candidate(c.candidate_id)
    except (ValueError, KeyError, TypeError) as e:  # an edit that no longer even decodes
        return bad(f"memory row {c.candidate_id}: stored evidence is unreadable ({e})")
    if cand is None or cand.commit_hash != c.hash:
        return bad(f"memory row {c.candidate_id} is missing or does not point back at this commit")
    if payload_sha(cand.payload) != c.payload_sha or cand.payload_sha != c.payload_sha:
        return bad(f"memory row {c.candidate_id}: payload was edited (sha {cand.payload_sha[:12]} != {c.payload_sha[:12]})")
    ev = cand.evidence
    if ev is None or sha256_hex(ev.canonical_bytes()) != c.evidence_sha:
        return bad(f"memory row {c.candidate_id}: stored evidence or an artifact was edited (sha mismatch)")
    if dict(ev.state) != dict(c.state) or ev.ranks != dict(c.ranks) or dict(ev.bounds) != dict(c.bounds):
        return bad("commit state/ranks/bounds differ from its evidence")
    if runner is None:
        return []
    out = runner.check(contract, parent.state if parent else None, cand.payload)
    if out.evidence is None:
        return bad(f"re-check failed: {out.malformed or out.error}")
    if sha256_hex(out.evidence.canonical_bytes()) != c.evidence_sha:
        return bad("re-check gives different evidence than was committed (checker not deterministic, or changed)")
    decision = decide(contract, parent.scores if parent else None, out.evidence)
    if decision.label is Label.ERROR:
        return bad("; ".join(decision.reasons))
    if not decision.commits or decision.label.value != c.label:
        return bad(f"gate does not pass on re-check (label {decision.label.value}, committed as {c.label})")
    return []
