"""The audit's re-checks: each commit's stored payload checked again on its stored parent state, and gated.

Every commit names its parent and every parent's state is stored, so the re-checks of different commits
are independent: with an executor (the one local pool, check/executors.py) a window of them runs at once,
and each commit's findings are still handed back in commit order, so that a parallel audit reports
exactly what a serial one does, in the same order.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from mathloop.check.bracket import Limit
from mathloop.check.checker import Checker
from mathloop.check.executors import Executor, Pending
from mathloop.check.gate import Decision
from mathloop.check.outcome import CheckOutcome
from mathloop.domain import Label, Scores, sha256_hex
from mathloop.store.findings import Finding
from mathloop.store.models import CommitRow


@dataclass(frozen=True)
class Recheck:
    """One commit to check again: its parent's state and scores, its payload, the bracket limits, what it committed."""

    row: CommitRow
    parent_state: Mapping[str, Any] | None
    payload: Any
    head: Scores | None
    limits: Sequence[Limit]
    evidence_sha: str
    label: str


def recheck_findings(job: Recheck, out: CheckOutcome, decision: Decision | None) -> list[Finding]:
    """Return the findings of one re-check: evidence not byte-identical to the committed, or a gate that refuses."""
    def bad(problem: str, field: str | None = None, stored: str | None = None,
            recomputed: str | None = None) -> list[Finding]:
        return [Finding(job.row.seq, job.row.hash, problem, "commits", job.row.hash, field, stored, recomputed)]

    if out.evidence is None or decision is None:  # the gate decides only on evidence
        return bad(f"re-check failed: {out.malformed or out.error}")
    again_ev = sha256_hex(out.evidence.canonical_bytes())
    if again_ev != job.evidence_sha:
        return bad("re-check gives different evidence than was committed (checker not deterministic, or changed)",
                   field="evidence_sha", stored=job.evidence_sha, recomputed=again_ev)
    if decision.label is Label.ERROR:
        return bad("; ".join(decision.reasons))
    if not decision.commits or decision.label.value != job.label:
        return bad(f"gate does not pass on re-check (label {decision.label.value}, committed as {job.label})",
                   field="label")
    return []


class Rechecks:
    """Commits' findings in commit order: rows with findings (or no re-check) pass through, re-checks run in a window.

    Without an executor each re-check runs at once in the checker's own child (the serial audit); with one,
    up to `executor.in_flight` run concurrently on it. `push` and `drain` return the findings of the commits
    finished so far, one list per commit, in the order they were pushed.
    """

    def __init__(self, checker: Checker | None, executor: Executor | None = None) -> None:
        if executor is not None and not getattr(executor, "local", False):
            raise ValueError(f"audit re-checks run on the auditor's own children, not on {executor.name}")
        self.checker = checker
        self.executor = executor if checker is not None else None
        self.window = max(1, getattr(executor, "in_flight", 1)) if self.executor is not None else 0
        self._queue: deque[tuple[list[Finding] | Recheck, Pending | None]] = deque()

    def push(self, item: list[Finding] | Recheck | None) -> list[list[Finding]]:
        """Queue one commit's static findings, or its re-check (None: nothing to re-check, no findings)."""
        if item is None or isinstance(item, list) or self.checker is None:
            self._queue.append((item if isinstance(item, list) else [], None))
        elif self.executor is None:
            out, decision = self.checker.judge(item.parent_state, item.payload, item.head, item.limits)
            self._queue.append((recheck_findings(item, out, decision), None))
        else:
            self._queue.append((item, self.executor.submit(self.checker.contract, item.parent_state, item.payload)))
        return self._take(self.window)

    def drain(self) -> list[list[Finding]]:
        """Wait for every re-check still running; return the remaining commits' findings in order."""
        return self._take(0)

    def _take(self, keep: int) -> list[list[Finding]]:
        done = []
        while self._queue and (len(self._queue) > keep or self._queue[0][1] is None):
            item, pending = self._queue.popleft()
            if isinstance(item, list):
                done.append(item)
                continue
            if pending is None or self.checker is None:  # push queues a re-check only with its running answer
                raise RuntimeError("a queued re-check has no pending answer")
            # the pool's children are the auditor's own, like the serial audit's child: their outcome is settled
            # here by the same gate (Checker.settle), never taken on a remote worker's word
            out, decision = self.checker.settle(pending.result(), item.head, item.limits)
            done.append(recheck_findings(item, out, decision))
        return done
