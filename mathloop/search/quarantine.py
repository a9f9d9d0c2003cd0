"""Re-check everything a quarantined worker answered in the lineage (this session and earlier ones), commits included.

A worker is quarantined when the session's own re-check of one of its answers disagrees, or when its evidence
breaks the contract's rules (check/checker.py). Until then its answers were believed (an authenticated
executor's answers are re-checked only in a `--recheck` share), so each one it gave in this lineage, in any
session, not yet dealt with by an earlier quarantine, is checked again here, in the session's own checker, against the state it was judged on:

- an answer that agrees: nothing is written;
- an answer that disagrees and did not commit: the candidate is judged again by the session against the current
  head (it may commit now), recorded with `meta.recheck_of` = the worker's row, which it supersedes;
- an answer that disagrees and was committed: the chain is append-only, so the commit stays. A memory row
  labelled `error` with `meta.recheck_failed_commit` = the commit marks it; `audit` reports it as a finding (the
  lineage fails its audit from that commit), `status` shows it, the session stops and `run` exits 1. No later
  `run` extends the lineage: every commit after it rests on a state the verifier did not decide. The worker's
  other wrong answers are then recorded as `error` rows naming them, not judged again on that head.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from mathloop.check.checker import Checker, disagreement
from mathloop.check.outcome import CheckOutcome
from mathloop.contract.model import Contract
from mathloop.domain import Label
from mathloop.propose.base import Proposal
from mathloop.store.rechecks import CHECKED_BY, FAILED_COMMIT, RECHECK_OF, WORKER, answers_of
from mathloop.store.repository import CandidateRecord, CommitRecord, Repository

if TYPE_CHECKING:
    from mathloop.check.bracket import Limit

# The loop's step: judge a proposal against the head and commit or record it; returns (head, label or None).
Step = Callable[[CommitRecord, Proposal, None, "Sequence[Limit]"], tuple[CommitRecord, "Label | None"]]

BY_SESSION = "session (re-check after quarantine)"


@dataclass
class Recheck:
    """What re-checking one quarantined worker's earlier answers found.

    Attributes:
        answers: its answers in the lineage not yet re-checked; agreed / disagreed: how the session's own checks compared;
        failed_commits: the commits among the disagreeing answers; not_rechecked: cut by the session's time limit.
    """

    worker: str
    why: str
    answers: int = 0
    agreed: int = 0
    disagreed: int = 0
    failed_commits: list[str] = field(default_factory=list)
    not_rechecked: int = 0

    def line(self) -> str:
        """Return e.g. "worker W quarantined (why): 5 earlier answer(s) re-checked, 4 agreed, 1 disagreed"."""
        text = (f"{self.worker} quarantined ({self.why}): {self.answers - self.not_rechecked} earlier answer(s) "
                f"re-checked, {self.agreed} agreed, {self.disagreed} disagreed")
        if self.failed_commits:
            text += f"; committed and failed: {', '.join(h[:12] for h in self.failed_commits)}"
        if self.not_rechecked:
            text += f"; {self.not_rechecked} not re-checked (time limit)"
        return text


def recheck_answers(repo: Repository, contract: Contract, checker: Checker, session_id: int | None, step: Step,
                    worker: str, head: CommitRecord, labels: Counter[str]) -> tuple[CommitRecord, Recheck]:
    """Re-check every answer `worker` gave in the lineage (see the module docstring), judging again through the
    loop's `step`; rows written go to session `session_id`. Return the head and what was found; every row written
    is counted in `labels`."""
    rec = Recheck(worker, checker.quarantined.get(worker, "quarantined"))
    wrong: list[tuple[CandidateRecord, str]] = []
    for row in answers_of(repo, contract.sha256, worker):  # of every session: a worker caught now lied before too
        rec.answers += 1
        parent = repo.get_commit(row.head_commit) if row.head_commit else None
        mine = checker.check(parent.state if parent else None, row.payload)
        if mine.interrupted:
            rec.not_rechecked += 1
            continue
        why = disagreement(_claimed(row), mine)
        if why is None:
            rec.agreed += 1
        else:
            rec.disagreed += 1
            wrong.append((row, why))
    rec.failed_commits = [row.commit_hash for row, _ in wrong if row.commit_hash]
    for row, why in wrong:
        meta = {CHECKED_BY: BY_SESSION, RECHECK_OF: row.id, WORKER: worker}
        if row.commit_hash:
            reason = (f"commit {row.commit_hash[:12]} ({row.label}), checked by quarantined worker {worker}, fails the "
                      f"session's re-check: {why}; the chain is append-only: the commit stays, and the lineage fails "
                      "its audit from it")
            meta[FAILED_COMMIT] = row.commit_hash
        elif rec.failed_commits:
            reason = (f"memory row {row.id} ({row.label}), checked by quarantined worker {worker}, fails the session's "
                      f"re-check: {why}; not judged again: the head rests on a commit that failed its re-check")
        else:  # the session's own judgement, against the current head, supersedes the worker's row
            head, label = step(head, Proposal(row.payload, row.proposer, {RECHECK_OF: row.id, WORKER: worker}),
                                       None, checker.limits(repo, head.hash))
            if label is not None:
                labels[label.value] += 1
            continue
        repo.record(contract_sha=contract.sha256, session_id=session_id, head_commit=head.hash,
                    payload=row.payload, proposer=row.proposer, meta=meta, label=Label.ERROR, reasons=[reason],
                    evidence=None)
        labels[Label.ERROR.value] += 1
    return head, rec


def _claimed(row: CandidateRecord) -> CheckOutcome:
    """Return the outcome a memory row records the worker as having given."""
    if row.evidence is not None:
        return CheckOutcome(evidence=row.evidence)
    if row.label == Label.MALFORMED.value and row.reasons:
        return CheckOutcome(malformed=row.reasons[0])
    return CheckOutcome(error=row.reasons[0] if row.reasons else "no outcome recorded")
