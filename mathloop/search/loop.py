"""The search loop: propose -> judge -> commit or record, until the budget or the time is spent."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from mathloop.check.checker import Checker, checker_for
from mathloop.check.executors import Executor, Pending
from mathloop.check.gate import Decision, open_obligations
from mathloop.check.outcome import CheckOutcome
from mathloop.check.runner import ProcessRunner
from mathloop.contract.model import Contract
from mathloop.domain import Evidence, Label, payload_sha
from mathloop.propose.base import Context, Proposal, Proposer, StopSession
from mathloop.store.rechecks import LOOP_KEYS, UNVERIFIED, checked_payloads, failed_rechecks
from mathloop.store.repository import CommitRecord, HeadMoved, Repository

if TYPE_CHECKING:
    from mathloop.check.bracket import Limit
    from mathloop.search.quarantine import Recheck

MAX_REGATES = 5
# The reason and meta flag that mark a repeat: recorded with the label no_progress (it adds nothing to the
# memory), never sent to a checker; `meta.repeat_of` tells the dataset and counts apart from checked ones.
REPEAT_REASON = "repeat of stored candidate {sha}: an exact repeat (canonical JSON) is not checked again"


class SeedRefused(RuntimeError):
    """The contract's seed candidate did not check; there is no root to build on."""


class LineageRefused(RuntimeError):
    """A commit of the lineage failed a quarantine re-check (search/quarantine.py): no session extends it."""


@dataclass(frozen=True)
class SessionLimits:
    """When a session stops and how much proposers see.

    Attributes:
        budget: candidates to process (every label counts, malformed and error included).
        time_limit_s: wall-clock seconds, checked between candidates; None = no limit.
        samples: proposals requested per round.
        rejections_in_context: K most recent refused candidates shown to proposers.
        deadline: an absolute time (the session clock's) at which the session stops whatever head start
            `time_limit_s` gave it (the seed's warm-up); `run --time-limit` bounds the whole command with it.
    """

    budget: int
    time_limit_s: float | None = None
    samples: int = 1
    rejections_in_context: int = 8
    deadline: float | None = None


@dataclass
class SessionSummary:
    """What a session did: labels, commits, the head at the end and why it stopped.

    `interrupted`: checks cut by the time limit; their candidates were not judged and get no label.
    """

    session_id: int | None
    labels: Counter[str] = field(default_factory=Counter)
    commits: int = 0
    root: CommitRecord | None = None
    start_head: CommitRecord | None = None
    head: CommitRecord | None = None
    outcome: str = ""
    seconds: float = 0.0
    interrupted: int = 0
    repeats: int = 0  # exact repeats of a stored payload: recorded as no_progress without a check
    rechecks: list[Recheck] = field(default_factory=list)  # per worker quarantined in the session

    @property
    def failed_commits(self) -> list[str]:
        """Return this session's commits whose worker answer failed the quarantine re-check (run then exits 1)."""
        return [h for r in self.rechecks for h in r.failed_commits]


class Observer(Protocol):
    """Who watches a session: `started` once with the head it opens on, `candidate` after each label, `finished`
    once with the summary. `started` and `finished` are optional: an observer that subclasses this protocol
    inherits their defaults (nothing)."""

    def started(self, head: CommitRecord) -> None:
        """Take the head the session opens on; default: nothing."""
        return None

    def candidate(self, label: Label, head: CommitRecord | None, summary: SessionSummary) -> None: ...

    def finished(self, summary: SessionSummary) -> None:
        """Take the session's summary once it ends; default: nothing."""
        return None


@dataclass
class Session:
    """One search session over one contract lineage; every check and every decision goes through `checker`.

    `checker` may be a bare runner (tests): it is then wrapped in a Checker with `executor`.
    """

    contract: Contract
    repo: Repository
    checker: Checker | Any
    session_id: int | None = None
    on_commit: Callable[[CommitRecord, Evidence], None] | None = None
    executor: Executor | None = None
    # commits this session made itself: a lost race also moves the session's head (to the winner's)
    made: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self.checker = checker_for(self.checker, self.contract, self.executor)

    def ensure_root(self) -> CommitRecord:
        """Return the head, checking and committing the contract's seed as the root if there is none.

        Raises:
            SeedRefused: the seed does not check. LineageRefused: a commit of the lineage failed a quarantine
                re-check, so every commit after it rests on a state the verifier did not decide.
        """
        self.repo.ensure_contract(self.contract)
        failed = failed_rechecks(self.repo.engine, self.contract.sha256)
        if failed:
            raise LineageRefused(f"lineage {self.contract.name} ({self.contract.sha256[:12]}): commit "
                                 f"{failed[0].commit[:12]} failed the re-check of session {failed[0].session_id} (worker "
                                 f"{failed[0].worker} quarantined): no session extends it; start a new store "
                                 "(`mathloop status` and `mathloop audit` show it)")
        head = self.repo.head(self.contract.sha256)
        if head is not None:
            return head
        payload = dict(self.contract.seed)
        out, decision = self.checker.judge(None, payload, None, self.checker.limits(self.repo, None))
        if decision is None or out.evidence is None or decision.label is Label.ERROR or decision.capped:
            why = out.malformed or out.error or "; ".join(decision.reasons if decision is not None else ())
            raise SeedRefused(f"{self.contract.path}: seed: {why}")
        try:
            root = self.repo.commit(contract_sha=self.contract.sha256, session_id=self.session_id, parent=None,
                                    payload=payload, proposer="seed", meta={"source": str(self.contract.path)},
                                    label=decision.label, evidence=out.evidence)
        except HeadMoved:  # another process committed the root first
            return self._moved_head()
        self._committed(root, out.evidence)
        return root

    def _moved_head(self) -> CommitRecord:
        """Return the head another writer moved the lineage to (a HeadMoved says there is one)."""
        head = self.repo.head(self.contract.sha256)
        if head is None:
            raise RuntimeError(f"lineage {self.contract.sha256[:12]}: the head moved, but the store has none")
        return head

    def _committed(self, commit: CommitRecord, evidence: Evidence) -> None:
        if self.on_commit is not None:
            self.on_commit(commit, evidence)

    def _record_repeat(self, head: CommitRecord, p: Proposal, sha: str) -> None:
        self.repo.record(contract_sha=self.contract.sha256, session_id=self.session_id, head_commit=head.hash,
                         payload=p.payload, proposer=p.proposer, meta={**p.meta, "repeat_of": sha},
                         label=Label.NO_PROGRESS, reasons=[REPEAT_REASON.format(sha=sha[:16])], evidence=None)

    def _record(self, head: CommitRecord, p: Proposal, label: Label, reasons: list[str], out: CheckOutcome | None = None) -> None:
        meta = p.meta if out is None or out.worker is None else {**p.meta, "checked_by": out.worker}
        if out is not None and out.unverified:  # not checked here: the repeat rule does not count it (checked_payloads)
            meta = {**meta, UNVERIFIED: True}
        self.repo.record(contract_sha=self.contract.sha256, session_id=self.session_id, head_commit=head.hash,
                         payload=p.payload, proposer=p.proposer, meta=meta, label=label, reasons=reasons,
                         evidence=out.evidence if out is not None else None)

    def step(self, head: CommitRecord, p: Proposal, judged: tuple[CheckOutcome, Decision | None] | None = None,
             limits: Sequence[Limit] = ()) -> tuple[CommitRecord, Label | None]:
        """Judge one proposal against the head (`judged`: already judged against exactly this head) and commit it
        if the gate passes; returns (head, label), label None when its check was cut by the time limit."""
        if p.malformed is not None:
            self._record(head, p, Label.MALFORMED, [p.malformed])
            return head, Label.MALFORMED
        for _ in range(MAX_REGATES):
            out, decision = judged or self.checker.judge(head.state, p.payload, head.scores, limits)
            judged = None
            if out.interrupted:
                return head, None
            if decision is None:
                label = Label.MALFORMED if out.malformed is not None else Label.ERROR
                self._record(head, p, label, [out.malformed or out.error or "checker gave no answer"], out)
                return head, label
            if not decision.commits or out.evidence is None:  # the gate commits only on evidence
                self._record(head, p, decision.label, list(decision.reasons), out)
                return head, decision.label
            try:
                commit = self.repo.commit(contract_sha=self.contract.sha256, session_id=self.session_id, parent=head,
                                          payload=p.payload, proposer=p.proposer, meta=self._meta(p, out),
                                          label=decision.label, evidence=out.evidence)
            except HeadMoved:
                head = self._moved_head()  # another writer won: re-check and re-gate
                limits = self.checker.limits(self.repo, head.hash)
                continue
            self.made += 1
            self._committed(commit, out.evidence)
            return commit, decision.label
        self._record(head, p, Label.ERROR, [f"head kept moving during {MAX_REGATES} re-gates"])
        return head, Label.ERROR

    @staticmethod
    def _meta(p: Proposal, out: CheckOutcome) -> dict[str, Any]:
        return dict(p.meta) if out.worker is None else {**p.meta, "checked_by": out.worker}

    def _recheck_quarantined(self, head: CommitRecord, summary: SessionSummary) -> CommitRecord:
        """Re-check every earlier answer of each worker quarantined since the last call (search/quarantine.py);
        a committed answer that fails stops the session. Returns the head."""
        from mathloop.search.quarantine import recheck_answers

        for worker in self.checker.newly_quarantined():
            head, rec = recheck_answers(self.repo, self.contract, self.checker, self.session_id, self.step, worker, head,
                                        summary.labels)
            summary.rechecks.append(rec)
        if summary.failed_commits and not summary.outcome:
            summary.outcome = (f"stopped: {len(summary.failed_commits)} commit(s) by a quarantined worker failed the "
                               "session's re-check (the lineage fails its audit from the first)")
        return head

    def _submit(self, head: CommitRecord, batch: list[Proposal]) -> list[tuple[Mapping[str, Any], Pending | None]]:
        """Start every check of the round at once; return (state checked against, pending check) per proposal."""
        out: list[tuple[Mapping[str, Any], Pending | None]] = []
        for p in batch:
            if p.meta.get("repeat_of") is not None:
                out.append((head.state, None))
                continue
            state = head.state if p.expects_state is None else p.expects_state
            out.append((state, None if p.malformed or self.checker.executor is None else self.checker.submit(state, p.payload)))
        return out

    def run(self, proposer: Proposer, limits: SessionLimits, observer: Observer | None = None,
            clock: Callable[[], float] = time.monotonic) -> SessionSummary:
        """Run rounds until the budget or time limit is spent or the proposer has nothing more."""
        t0 = clock()
        proposer.use_child(ProcessRunner)  # a proposer that proposes ahead does its float work in a child of its own
        head = self.ensure_root()
        warm_from = clock()
        self.checker.warm()  # every executor worker checks the seed once now, not inside the first round
        t0 += clock() - warm_from  # a head start, not part of the session's time
        ends = [t for t in (None if limits.time_limit_s is None else t0 + limits.time_limit_s, limits.deadline)
                if t is not None]
        end = min(ends) if ends else None  # on the session clock
        if end is not None:  # a check still running at the limit is cut there, not at its timeout
            self.checker.set_deadline(time.monotonic() + (end - clock()))

        def over() -> bool:
            return end is not None and clock() >= end

        summary = SessionSummary(self.session_id, start_head=head, head=head)
        if observer is not None:
            observer.started(head)
        seen = checked_payloads(self.repo.engine, self.contract.sha256)
        done = rnd = 0
        while not summary.outcome:
            if done >= limits.budget or over():
                summary.outcome = "budget spent" if done >= limits.budget else "time limit"
                break
            ctx = Context(self.contract, head.as_head(), open_obligations(head.ranks),
                          self.repo.recent_rejections(self.contract.sha256, limits.rejections_in_context),
                          frozenset(seen), rnd, min(limits.samples, limits.budget - done), end)
            try:
                proposals = proposer.propose(ctx)                                     # propose
            except StopSession as e:
                summary.outcome = f"proposer stopped: {e}"
                break
            if not proposals:
                summary.outcome = "time limit" if over() else "proposer exhausted"
                break
            batch = _mark_repeats(proposals, seen)[: limits.budget - done]
            bounds = self.checker.limits(self.repo, head.hash)  # the partner lineage's bounds, once per round
            for p, (state, pending) in zip(batch, self._submit(head, batch)):
                judged = (self.checker.take(pending, state, p.payload, head.scores, bounds)  # judge
                          if pending is not None and state == head.state else None)
                if p.meta.get("repeat_of") is not None:
                    self._record_repeat(head, p, p.meta["repeat_of"])
                    summary.repeats += 1
                    done += 1
                    summary.labels[Label.NO_PROGRESS.value] += 1
                    if observer is not None:
                        observer.candidate(Label.NO_PROGRESS, head, summary)
                    if over():
                        summary.outcome = "time limit"
                        break
                    continue
                made = self.made
                head, label = self.step(head, p, judged, bounds)                          # commit or record
                head = self._recheck_quarantined(head, summary)  # a worker caught: its earlier answers again
                summary.commits += self.made - made
                done += 1
                if label is None:
                    summary.interrupted += 1
                elif judged is None or not judged[0].unverified:  # a worker's word is no check: it may come again
                    seen.add(payload_sha(p.payload))
                    summary.labels[label.value] += 1
                summary.head = head
                if observer is not None and label is not None:
                    observer.candidate(label, head, summary)
                if summary.outcome or over():
                    summary.outcome = summary.outcome or "time limit"
                    break
            rnd += 1
        summary.head = head
        summary.seconds = clock() - t0
        if observer is not None:
            observer.finished(summary)
        return summary


def _mark_repeats(proposals: list[Proposal], seen: set[str]) -> list[Proposal]:
    """Return the round's proposals in their order, each exact repeat of a stored (or earlier in this round) payload
    flagged with `meta.repeat_of` = its payload sha256, so that it is recorded, not checked."""
    out, here = [], set()
    for p in proposals:
        meta = {k: v for k, v in p.meta.items() if k not in _LOOP_ONLY}  # only the loop writes these keys
        if meta.keys() != p.meta.keys():
            p = Proposal(p.payload, p.proposer, meta, p.malformed, p.expects_state)
        if p.malformed is not None:
            out.append(p)
            continue
        sha = payload_sha(p.payload)
        if sha in seen or sha in here:
            out.append(Proposal(p.payload, p.proposer, {**p.meta, "repeat_of": sha}, None, p.expects_state))
        else:
            here.add(sha)
            out.append(p)
    return out


_LOOP_ONLY = ("repeat_of", *LOOP_KEYS)
