"""Re-verify a lineage: the hash chain, the stored evidence, every commit's check and gate, and the memory.

What is covered: commits (chain format 2: also their candidate's row hash), every memory row
(per-session chains sealed into the commits and the session's end), session rows, artifacts, the
contract text; with a checkpoint, that the chain still extends it (no rollback).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from mathloop.contract.model import Contract
from mathloop.domain import fraction_str, payload_sha, sha256_hex
from mathloop.lean.attest import audit_attestations
from mathloop.audit.lineage import (Coverage, LineageLinks, audit_anchor, audit_failed_rechecks,
                                           audit_lean_statuses)
from mathloop.audit.memory import MemoryStats, audit_contract_row, audit_memory
from mathloop.audit.recheck import Recheck, Rechecks
from mathloop.check.checker import Checker, checker_for
from mathloop.check.executors import Executor
from mathloop.check.rules import evidence_problems
from mathloop.check.runner import CheckRunner
from mathloop.store import raw
from mathloop.store.chain import (CHAIN_FORMAT, COMMIT_FIELDS, LEGACY_FORMAT, MEMORY_FORMAT, commit_body, commit_hash,
                                  edited_columns)
from mathloop.store.checkpoint import Checkpoint, compare
from mathloop.store.findings import Finding
from mathloop.store.models import GENESIS, CandidateRow, CommitRow
from mathloop.store.repository import CommitRecord, Repository, fields_of

__all__ = ["AuditReport", "Finding", "audit", "audit_store"]


@dataclass(frozen=True)
class AuditReport:
    """The outcome of one audit: findings (first = first edited row found) and what was covered."""

    findings: list[Finding]
    commits: int
    legacy_commits: int
    memory: MemoryStats
    checkpoint: Checkpoint | None = None
    lacks: tuple[str, ...] = ()  # what older rows lack (chain formats before CHAIN_FORMAT), in words


def audit(contract: Contract, repo: Repository, runner: CheckRunner | None,
          progress: Callable[[int, int], None] | None = None) -> tuple[list[Finding], int]:
    """Return (findings, commits audited): audit_store without a checkpoint."""
    report = audit_store(contract, repo, runner, progress)
    return report.findings, report.commits


def audit_store(contract: Contract, repo: Repository, runner: CheckRunner | None,
                progress: Callable[[int, int], None] | None = None,
                checkpoint: Checkpoint | None = None, executor: Executor | None = None) -> AuditReport:
    """Return the audit report. With a runner, every commit is re-checked from its stored payload against
    its parent's state and re-gated; without one, hashes and rows only. With an executor (the local pool),
    the re-checks run on it concurrently; the findings and their order are the serial audit's."""
    rows = raw.commit_rows(repo.engine, contract.sha256)
    findings: list[Finding] = []
    reported: set[tuple[str, str]] = set()
    coverage = Coverage()
    openings = raw.session_openings(repo.engine, contract.sha256)
    anchor_findings, anchor = audit_anchor(contract.sha256, repo, rows, openings, coverage)
    rechecks = Rechecks(checker_for(runner, contract) if runner is not None else None, executor)
    audited = 0

    def take(done: list[list[Finding]]) -> None:
        nonlocal findings, audited
        for found in done:
            for f in found:
                reported.add((f.table, str(f.row if f.row is not None else f.commit)))
            findings += found
            audited += 1
            if progress:
                progress(audited, len(rows))

    parent: CommitRecord | None = None
    newest, legacy = LEGACY_FORMAT, 0
    for i, row in enumerate(rows):
        fmt = row.format or LEGACY_FORMAT
        legacy += fmt == LEGACY_FORMAT
        take(rechecks.push(_audit_one(contract, repo, rechecks.checker, parent, row, i, downgraded=fmt < newest,
                                      anchor=anchor)))
        newest = max(newest, fmt)
        try:
            parent = CommitRecord.of(row)
        except (ValueError, TypeError, ArithmeticError):
            break  # reported by _audit_one; no parent state to re-check the rest against
    take(rechecks.drain())
    contract_findings = audit_contract_row(contract.sha256, repo)
    findings += contract_findings or anchor_findings  # one finding per contract row
    mem_findings, stats = audit_memory(contract.sha256, repo, reported, anchor=anchor, openings=openings,
                                       links=LineageLinks(rows))
    findings += mem_findings
    findings += _lean_attestations(contract, repo)
    findings += audit_lean_statuses(contract.sha256, repo)
    findings += audit_failed_rechecks(contract.sha256, repo)
    if checkpoint is not None:
        findings += [Finding(None, checkpoint.head, why, table="checkpoint", row=checkpoint.head)
                     for why in compare(repo, contract.sha256, checkpoint, OTHER_CHAINS)]
    older = sum(1 for r in rows if (r.format or LEGACY_FORMAT) == MEMORY_FORMAT)
    if older:
        coverage.lacks.append(f"{older} commit(s) of chain format {MEMORY_FORMAT} do not cover the lineage anchor "
                              "(the contract row as stored)")
    v2 = stats.sessions - stats.anchored
    if v2:
        coverage.lacks.append(f"{v2} session(s) predate chain format {CHAIN_FORMAT}: their memory chains do not "
                              "start from this lineage and their rows' ids are not hashed (rows whose head or commit "
                              "is not of this lineage are still found)")
    return AuditReport(findings, len(rows), legacy, stats, checkpoint, tuple(coverage.lacks))


def _lean_tip(repo: Repository, contract_sha: str) -> tuple[int, str] | None:
    from sqlmodel import Session, col, select

    from mathloop.lean.attest import LeanAttestationRow

    if not raw.has_table(repo.engine, LeanAttestationRow.__tablename__):  # read-only stores are never given it
        return None
    with Session(repo.engine) as s:
        last = s.exec(select(LeanAttestationRow).where(LeanAttestationRow.contract_sha == contract_sha)
                      .order_by(col(LeanAttestationRow.seq).desc()).limit(1)).first()
        return (last.seq + 1, last.hash) if last else None


def _lean_hash_at(repo: Repository, contract_sha: str, seq: int) -> str | None:
    from sqlmodel import Session, select

    from mathloop.lean.attest import LeanAttestationRow

    if not raw.has_table(repo.engine, LeanAttestationRow.__tablename__):
        return None
    with Session(repo.engine) as s:
        return s.exec(select(LeanAttestationRow.hash).where(LeanAttestationRow.contract_sha == contract_sha,
                                                            LeanAttestationRow.seq == seq)).first()


# Chains beside the commits and the memory that a checkpoint also pins (rollback of Lean results).
OTHER_CHAINS = {"lean_attestations": (_lean_tip, _lean_hash_at)}


def _lean_attestations(contract: Contract, repo: Repository) -> list[Finding]:
    """Return the Lean layer's own audit of its attestation chain (mathloop/lean/attest.py), when present."""
    if not raw.has_table(repo.engine, "lean_attestations"):  # no Lean result was ever recorded in this store
        return []
    from mathloop.targets import build_target

    return list(audit_attestations(contract, repo, build_target(contract)))


def _audit_one(contract: Contract, repo: Repository, checker: Checker | None, parent: CommitRecord | None,
               row: CommitRow, i: int, downgraded: bool, anchor: str | None = None) -> list[Finding] | Recheck:
    """Return one commit's findings from its rows, or (none found, a checker given) its Recheck."""
    def bad(problem: str, table: str = "commits", key: object = None, field: str | None = None,
            stored: str | None = None, recomputed: str | None = None) -> list[Finding]:
        return [Finding(row.seq, row.hash, problem, table, key if key is not None else row.hash, field, stored,
                        recomputed)]

    expected_parent = parent.hash if parent else GENESIS
    if row.seq != i or row.parent != expected_parent:
        return bad(f"chain broken: seq {row.seq} has parent {row.parent[:12]}, expected {expected_parent[:12]} "
                   f"at position {i}", field="parent" if row.seq == i else "seq")
    if downgraded:
        return bad(f"chain format downgraded: a format-{row.format or LEGACY_FORMAT} commit follows a commit of a "
                   "newer format (its format was edited)", field="format")
    if (row.format or LEGACY_FORMAT) not in range(LEGACY_FORMAT, CHAIN_FORMAT + 1):
        return bad(f"unknown chain format {row.format!r}", field="format")
    try:
        c = CommitRecord.of(row)
    except (ValueError, TypeError, ArithmeticError) as e:
        return bad(f"hash mismatch: the commit row does not even decode ({type(e).__name__})",
                   field=",".join(edited_columns(row.field_digests, fields_of(row, COMMIT_FIELDS))) or None)
    cand_row = raw.candidate_row(repo.engine, c.candidate_id)
    body = commit_body(contract_sha=c.contract_sha, seq=c.seq, payload_sha=c.payload_sha, state=c.state,
                       ranks=c.ranks, bounds={k: fraction_str(v) for k, v in c.bounds.items()},
                       evidence_sha=c.evidence_sha, label=c.label, created_at=c.created_at,
                       format=row.format or LEGACY_FORMAT, candidate_id=c.candidate_id,
                       candidate_hash=cand_row.row_hash if cand_row is not None else None, lineage=anchor)
    again = commit_hash(c.parent, body)
    if again != c.hash:
        cols = edited_columns(row.field_digests, fields_of(row, COMMIT_FIELDS))
        what = (f"column {', '.join(cols)} changed" if cols else "its fields no longer hash to its id"
                + (" (its locator, or the committed candidate's row hash, was edited too)"
                   if (row.format or LEGACY_FORMAT) >= MEMORY_FORMAT else ""))
        return bad(f"hash mismatch: the commit row was edited ({what})", field=",".join(cols) or None,
                   stored=c.hash, recomputed=again)
    try:
        cand = repo.candidate(c.candidate_id)
    except (ValueError, KeyError, TypeError, ArithmeticError) as e:  # an edit that no longer even decodes
        return bad(f"memory row {c.candidate_id}: stored evidence is unreadable ({e})", "candidates",
                   c.candidate_id, "evidence")
    if cand is None or cand.commit_hash != c.hash:
        return bad(f"memory row {c.candidate_id} is missing or does not point back at this commit", "candidates",
                   c.candidate_id, "commit_hash")
    if payload_sha(cand.payload) != c.payload_sha or cand.payload_sha != c.payload_sha:
        return bad(f"memory row {c.candidate_id}: payload was edited", "candidates", c.candidate_id, "payload",
                   c.payload_sha, payload_sha(cand.payload))
    ev = cand.evidence
    ev_sha = sha256_hex(ev.canonical_bytes()) if ev is not None else None
    if ev is None or ev_sha != c.evidence_sha:
        return bad(f"memory row {c.candidate_id}: stored evidence or an artifact was edited (sha mismatch)",
                   *_evidence_culprit(repo, cand_row, c.candidate_id), stored=c.evidence_sha, recomputed=ev_sha)
    if dict(ev.state) != dict(c.state) or ev.ranks != dict(c.ranks) or dict(ev.bounds) != dict(c.bounds):
        return bad("commit state/ranks/bounds differ from its evidence", field="state,ranks,bounds")
    problems = evidence_problems(contract, ev)  # what the gate refuses on writing is refused on reading too
    if problems:
        return bad("stored evidence refused: " + "; ".join(problems), "candidates", c.candidate_id, "evidence")
    if checker is None:
        return []
    # the one checking path (check, gate and bracket limits), run by Rechecks: at once, or on the pool
    return Recheck(row, parent.state if parent else None, cand.payload, parent.scores if parent else None,
                   checker.limits(repo, parent.hash if parent else None), c.evidence_sha, c.label)


def _evidence_culprit(repo: Repository, cand_row: CandidateRow | None, candidate_id: int) -> tuple[str, object, str]:
    """Return (table, row, column) of what changed a committed evidence: an artifact or the evidence text."""
    if cand_row is None or cand_row.evidence is None:
        return "candidates", candidate_id, "evidence"
    try:
        refs = json.loads(cand_row.evidence).get("artifacts", {}).values()
        for ref in refs:
            art = raw.artifact_row(repo.engine, ref["$artifact"])
            if art is None or sha256_hex(art.content.encode("utf-8")) != ref["$artifact"]:
                return "artifacts", ref["$artifact"], "content"
    except (ValueError, AttributeError, KeyError, TypeError):
        pass
    return "candidates", candidate_id, "evidence"
