"""The one place that counts a lineage's commits and memory labels: status, run's summary and the web index agree.

Definitions (documented in docs/guide.md, "Counts"):
- `commits`: the commits of the lineage's chain, the root (the contract's verified seed state) included,
  so a fresh lineage after one session with two commits has 3;
- `labels`: memory rows per label, every candidate ever recorded for the lineage, the seed's own row included;
- with `session_id`, both are restricted to the rows that session wrote (a session's commits are those whose
  candidate it recorded).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from mathloop.store.models import CandidateRow, CommitRow


@dataclass(frozen=True)
class Counts:
    """Commits and memory labels of a lineage (or of one session of it)."""

    commits: int
    labels: dict[str, int] = field(default_factory=dict)

    @property
    def candidates(self) -> int:
        """Return the number of memory rows counted."""
        return sum(self.labels.values())

    def line(self) -> str:
        """Return "commits 3 · progress 2, regression 1" (labels sorted by name).

        >>> Counts(3, {"regression": 1, "progress": 2}).line()
        'commits 3 · progress 2, regression 1'
        >>> Counts(0).line()
        'commits 0 · no candidates'
        """
        labels = ", ".join(f"{k} {v}" for k, v in sorted(self.labels.items())) or "no candidates"
        return f"commits {self.commits} · {labels}"


# What each label means, in the words every count is explained with (run's summary, status; docs/guide.md, "Counts").
LABEL_MEANING = {
    "correct": "committed, nothing left open",
    "progress": "committed, something still open (e.g. a bound short of the contract's goal)",
    "no_progress": "checked, nothing better than the head (or a repeat, not checked again)",
    "regression": "checked, worse than the head somewhere, not committed",
    "incomparable": "checked, better somewhere and worse elsewhere, not committed",
    "malformed": "refused before any check (schema or limits)",
    "error": "the checker could not answer (timeout, crash): no property of the candidate",
}
COMMITS_MEANING = "commits: the lineage's chain, root included (the contract's seed, committed first)"


def explain_labels(labels: dict[str, int] | list[str]) -> str:
    """Return "correct: committed, …; progress: …" for the labels shown (in the order of LABEL_MEANING).

    >>> explain_labels({"no_progress": 2, "correct": 1})
    'correct: committed, nothing left open; no_progress: checked, nothing better than the head (or a repeat, not checked again)'
    """
    return "; ".join(f"{k}: {v}" for k, v in LABEL_MEANING.items() if k in labels)


def lineage_counts(engine: Engine, contract_sha: str, session_id: int | None = None) -> Counts:
    """Return the commits and label counts of the lineage `contract_sha` (only session `session_id`'s if given)."""
    with Session(engine) as s:
        labels_q = (select(CandidateRow.label, func.count()).where(CandidateRow.contract_sha == contract_sha)
                    .group_by(CandidateRow.label))
        commits_q = select(func.count()).select_from(CommitRow).where(CommitRow.contract_sha == contract_sha)
        if session_id is not None:
            labels_q = labels_q.where(CandidateRow.session_id == session_id)
            commits_q = (commits_q.join(CandidateRow, CandidateRow.id == CommitRow.candidate_id)
                         .where(CandidateRow.session_id == session_id))
        labels = {str(label): int(n) for label, n in s.exec(labels_q)}
        commits = int(s.exec(commits_q).one())
    return Counts(commits, labels)
