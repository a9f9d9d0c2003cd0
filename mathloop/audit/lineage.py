"""Audit of what ties rows to their lineage: the contract row's anchor, memory rows' heads and commits,
sessions' openings, and the Lean attestations' statuses (chain format 3; older rows are named as lacking it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from mathloop.store import raw
from mathloop.store.chain import CHAIN_FORMAT, CONTRACT_FIELDS, GENESIS, LEGACY_FORMAT, edited_columns, lineage_anchor
from mathloop.store.findings import Finding
from mathloop.store.models import CandidateRow, CommitRow, SessionOpeningRow
from mathloop.store.repository import Repository, fields_of

COMMITTED_LABELS = ("correct", "progress")
DECIDED = ("checked", "refuted")  # Lean statuses that answer (the others say Lean did not run)
# what makes two Lean runs the same run: a kernel gives one answer for one file
LEAN_IDENTITY = ("kind", "lean_version", "lean_commit", "prelude_sha256", "artifact_sha256")

Add = Callable[[Finding], None]


@dataclass
class Coverage:
    """What the lineage's rows lack, in words (empty when every row is of the current chain format)."""

    lacks: list[str] = field(default_factory=list)


def audit_anchor(contract_sha: str, repo: Repository, commits: list[CommitRow],
                 openings: Mapping[int, SessionOpeningRow], coverage: Coverage) -> tuple[list[Finding], str | None]:
    """Return (findings, the stored anchor): the contract row as stored must still hash to the lineage anchor."""
    anchor_row = raw.lineage_anchor(repo.engine, contract_sha)
    row = raw.contract_row(repo.engine, contract_sha)
    uses = any((c.format or LEGACY_FORMAT) >= CHAIN_FORMAT for c in commits) or bool(openings)
    if anchor_row is None:
        if uses:
            return [Finding(None, None, "the lineage anchor was deleted, but format-3 commits or sessions rest on it",
                            table="lineage_anchors", row=contract_sha, field="anchor")], None
        if row is None and not commits:
            return [], None  # the lineage was never run in this store: no contract row, nothing it could lack
        coverage.lacks.append("the contract row (its exact text, target, name and created_at) predates chain format 3: "
                              "only its parsed TOML is covered (by the lineage key)")
        return [], None
    if row is None:
        return [], anchor_row.anchor
    fields = fields_of(row, CONTRACT_FIELDS)
    again = lineage_anchor(fields)
    if again == anchor_row.anchor:
        return [], anchor_row.anchor
    cols = edited_columns(anchor_row.field_digests, fields)
    what = ("the stored contract text was edited" if cols == ["text"] else
            f"the contract row was edited (column {', '.join(cols)} changed)" if cols else
            "the contract row no longer hashes to its lineage anchor (its locator was edited too)")
    return [Finding(None, None, what, table="contracts", row=contract_sha, field=",".join(cols) or None,
                    stored=anchor_row.anchor, recomputed=again)], anchor_row.anchor


class LineageLinks:
    """Checks each memory row and session against the lineage's commits (fed row by row by the memory pass)."""

    def __init__(self, commits: list[CommitRow]) -> None:
        self.seq = {c.hash: c.seq for c in commits}
        self.by_hash = {c.hash: c for c in commits}

    def memory_row(self, row: CandidateRow, add: Add) -> None:
        """Report a memory row whose head, commit or label does not belong to this lineage."""
        def bad(problem: str, column: str) -> None:
            add(Finding(None, row.commit_hash, f"memory row {row.id}: {problem}", table="candidates", row=row.id,
                        field=column))

        if row.commit_hash is not None:
            c = self.by_hash.get(row.commit_hash)
            if c is None or c.candidate_id != row.id:
                bad(f"claims commit {row.commit_hash[:12]}, which is not a commit of this lineage made from it",
                    "commit_hash")
                return
            want = c.parent if c.seq > 0 else None
            if row.head_commit != want:
                bad(f"was committed as seq {c.seq} but names head {str(row.head_commit)[:12]}, not the commit's parent",
                    "head_commit")
            return
        if row.label in COMMITTED_LABELS:
            bad(f"is labelled {row.label!r} but has no commit (only a commit can make progress)", "commit_hash")
        elif row.head_commit is None:
            if self.seq:
                bad("names no head, but only the root's candidate is checked without one", "head_commit")
        elif row.head_commit not in self.seq:
            bad(f"was checked against head {row.head_commit[:12]}, which is not a commit of this lineage "
                "(copied from another store?)", "head_commit")

    def opening(self, sid: int, opening: SessionOpeningRow, add: Add) -> None:
        """Report a session opened on a head that is not a commit of this lineage."""
        if opening.opened_on != GENESIS and opening.opened_on not in self.seq:
            add(Finding(None, None, f"session {sid} opened on head {opening.opened_on[:12]}, which is not a commit "
                        "of this lineage (copied from another store?)", table="session_openings", row=sid,
                        field="opened_on"))


def audit_lean_statuses(contract_sha: str, repo: Repository) -> list[Finding]:
    """Return a finding for each Lean attestation that contradicts an earlier decided one for the same commit:
    the audit's one contradiction check (the Lean layer verifies its chain's hashes, rows and renderings).

    The kernel answers once per file: `refuted` after `checked` (or the reverse) by the same Lean on the same
    rendering means one of them is forged; by another Lean it needs `mathloop audit --lean` to settle. A
    `checked` rendering never later fails to render: `not_rendered`, or `refuted` without a rendering, after
    it is a contradiction too. `unavailable` says only that Lean did not run.
    """
    from mathloop.lean.attest import LeanAttestationRow  # the Lean layer's table (read here, never written)
    from sqlmodel import Session, col, select

    if not raw.has_table(repo.engine, LeanAttestationRow.__tablename__):
        return []
    with Session(repo.engine) as s:
        rows = list(s.exec(select(LeanAttestationRow).where(LeanAttestationRow.contract_sha == contract_sha)
                           .order_by(col(LeanAttestationRow.seq))))
    first: dict[str, tuple[int, dict[str, Any]]] = {}
    out = []
    for r in rows:
        try:
            body = json.loads(r.body)
            status = body["status"]
        except (ValueError, KeyError, TypeError):
            continue  # an unreadable body is the attestation chain's own finding
        if status == "not_rendered" and first.get(r.commit_hash, (0, {}))[1].get("status") == "checked":
            status = "refuted"  # "renders nothing" after a checked rendering: judged as a refutation without one
        if status not in DECIDED:
            continue
        if r.commit_hash not in first:
            first[r.commit_hash] = (r.seq, body)
            continue
        seq0, body0 = first[r.commit_hash]
        if body0["status"] == status:
            continue
        same = all(body0.get(k) == body.get(k) for k in LEAN_IDENTITY)
        why = ("by the same Lean on the same rendering: one of them is forged" if same else
               "without a rendering, while the earlier one checked a rendering of the same stored evidence"
               if body0["status"] == "checked" and body0.get("artifact_sha256") and not body.get("artifact_sha256") else
               "by another Lean or rendering, without a re-run that settles it (`mathloop audit --lean`)")
        out.append(Finding(None, r.commit_hash, f"Lean attestation {r.seq} says {body['status']!r} but attestation "
                           f"{seq0} says {body0['status']!r} for the same commit, {why}",
                           table=LeanAttestationRow.__tablename__, row=r.commit_hash, field="status"))
    return out


def audit_failed_rechecks(contract_sha: str, repo: Repository) -> list[Finding]:
    """Return a finding for every commit a session marked as failing its quarantine re-check (store/rechecks.py):
    a quarantined worker's committed answer that the session's own check contradicts. The chain is append-only, so
    the commit stays and the lineage fails its audit from it, whether or not this audit re-checks commits itself."""
    from mathloop.store.rechecks import failed_rechecks

    out = []
    for f in failed_rechecks(repo.engine, contract_sha):
        c = repo.get_commit(f.commit)
        ours = c is not None and c.contract_sha == contract_sha
        out.append(Finding(c.seq if c is not None and ours else None, f.commit,
                           f"commit failed the session's re-check after worker {f.worker} was quarantined (session "
                           f"{f.session_id}): {f.reason}" if ours else
                           f"memory row marks commit {f.commit[:12]} as failing a re-check, but it is not a commit of "
                           "this lineage", table="candidates", row=f.candidate_id, field="proposer_meta"))
    return out
