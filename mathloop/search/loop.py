"""The search loop: propose -> check -> gate -> record or commit, until the budget is spent."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from mathloop.contract.model import Contract
from mathloop.domain import Evidence, Label, payload_sha
from mathloop.propose.base import Context, Proposal, Proposer, StopSession
from mathloop.search.bracket import guard as bracket_guard
from mathloop.search.executors import Executor
from mathloop.search.gate import decide, open_obligations
from mathloop.search.runner import CheckOutcome, CheckRunner
from mathloop.store.repository import CommitRecord, HeadMoved, Repository

MAX_REGATES = 5


class SeedRefused(RuntimeError):
    """The contract's seed candidate did not check; there is no root to build on."""


@dataclass(frozen=True)
class SessionLimits:
    """When a session stops and how much proposers see.

    Attributes:
        budget: candidates to process (every label counts, malformed and error included).
        time_limit_s: wall-clock seconds, checked between candidates; None = no limit.
        samples: proposals requested per round.
        rejections_in_context: K most recent refused candidates shown to proposers.
    """

    budget: int
    time_limit_s: float | None = None
    samples: int = 1
    rejections_in_context: int = 8


@dataclass
class SessionSummary:
    """What a session did: labels, commits, the head at the end and why it stopped."""

    session_id: int | None
    labels: Counter = field(default_factory=Counter)
    commits: int = 0
    root: CommitRecord | None = None
    start_head: CommitRecord | None = None
    head: CommitRecord | None = None
    outcome: str = ""
    seconds: float = 0.0


class Observer(Protocol):
    def candidate(self, label: Label, head: CommitRecord | None, summary: SessionSummary) -> None: ...


@dataclass
class Session:
    """One search session over one contract lineage."""

    contract: Contract
    repo: Repository
    runner: CheckRunner
    session_id: int | None = None
    on_commit: Callable[[CommitRecord, Evidence], None] | None = None
    executor: Executor | None = None  # checks a round's proposals concurrently (search/executors.py)
    # commits this session made itself: a lost race also moves the session's head (to the winner's)
    made: int = field(default=0, init=False, repr=False)

    def ensure_root(self) -> CommitRecord:
        """Return the head, checking and committing the contract's seed as the root if there is none."""
        self.repo.ensure_contract(self.contract)
        head = self.repo.head(self.contract.sha256)
        if head is not None:
            return head
        payload = dict(self.contract.seed)
        out = self.runner.check(self.contract, None, payload)
        if out.evidence is None:
            raise SeedRefused(f"{self.contract.path}: seed: {out.malformed or out.error}")
        decision = decide(self.contract, None, out.evidence)
        if decision.label is Label.ERROR:
            raise SeedRefused(f"{self.contract.path}: seed: {'; '.join(decision.reasons)}")
        try:
            root = self.repo.commit(contract_sha=self.contract.sha256, session_id=self.session_id, parent=None,
                                    payload=payload, proposer="seed", meta={"source": str(self.contract.path)},
                                    label=decision.label, evidence=out.evidence)
        except HeadMoved:  # another process committed the root first
            return self.repo.head(self.contract.sha256)
        self._committed(root, out.evidence)
        return root

    def _committed(self, commit: CommitRecord, evidence: Evidence) -> None:
        if self.on_commit is not None:
            self.on_commit(commit, evidence)

    def _record(self, head: CommitRecord, p: Proposal, label: Label, reasons: list[str], evidence=None) -> None:
        self.repo.record(contract_sha=self.contract.sha256, session_id=self.session_id, head_commit=head.hash,
                         payload=p.payload, proposer=p.proposer, meta=p.meta, label=label, reasons=reasons,
                         evidence=evidence)

    def step(self, head: CommitRecord, p: Proposal, ready: CheckOutcome | None = None) -> tuple[CommitRecord, Label]:
        """Check one proposal against the head (`ready`: its outcome already computed against exactly
        this head state); commit it if the gate passes. Returns (head, label)."""
        if p.malformed is not None:
            self._record(head, p, Label.MALFORMED, [p.malformed])
            return head, Label.MALFORMED
        for _ in range(MAX_REGATES):
            out, ready = (ready, None) if ready is not None else (self.runner.check(self.contract, head.state, p.payload), None)
            if out.malformed is not None:
                self._record(head, p, Label.MALFORMED, [out.malformed])
                return head, Label.MALFORMED
            if out.error is not None:
                self._record(head, p, Label.ERROR, [out.error])
                return head, Label.ERROR
            evidence = out.evidence
            why = bracket_guard(self.repo, self.contract, evidence, head.hash)  # the other side of the bracket
            if why:
                self._record(head, p, Label.ERROR, [why], evidence)
                return head, Label.ERROR
            decision = decide(self.contract, head.scores, evidence)
            if not decision.commits:
                self._record(head, p, decision.label, list(decision.reasons), evidence)
                return head, decision.label
            try:
                commit = self.repo.commit(contract_sha=self.contract.sha256, session_id=self.session_id, parent=head,
                                          payload=p.payload, proposer=p.proposer, meta=p.meta, label=decision.label,
                                          evidence=evidence)
            except HeadMoved:
                head = self.repo.head(self.contract.sha256)  # another writer won: re-check and re-gate
                continue
            self.made += 1
            self._committed(commit, evidence)
            return commit, decision.label
        self._record(head, p, Label.ERROR, [f"head kept moving during {MAX_REGATES} re-gates"])
        return head, Label.ERROR

    def _submit(self, head: CommitRecord, batch: list[Proposal]) -> list[tuple[Any, Any]]:
        """Return (state checked against, future) per proposal: all checks of the round start at once."""
        if self.executor is None:
            return [(None, None)] * len(batch)
        out = []
        for p in batch:
            state = head.state if p.expects_state is None else p.expects_state
            out.append((state, None if p.malformed else self.executor.submit(self.contract, state, p.payload)))
        return out

    def run(self, proposer: Proposer, limits: SessionLimits, observer: Observer | None = None,
            clock: Callable[[], float] = time.monotonic) -> SessionSummary:
        """Run rounds until the budget or time limit is spent or the proposer has nothing more."""
        t0 = clock()
        head = self.ensure_root()
        summary = SessionSummary(self.session_id, start_head=head, head=head)
        seen = set(self.repo.seen_payloads(self.contract.sha256))
        done = 0
        rnd = 0
        while True:
            if done >= limits.budget:
                summary.outcome = "budget spent"
                break
            if limits.time_limit_s is not None and clock() - t0 >= limits.time_limit_s:
                summary.outcome = "time limit"
                break
            ctx = Context(self.contract, head.as_head(), open_obligations(head.ranks),
                          self.repo.recent_rejections(self.contract.sha256, limits.rejections_in_context),
                          frozenset(seen), rnd, min(limits.samples, limits.budget - done),
                          None if limits.time_limit_s is None else t0 + limits.time_limit_s)
            try:
                proposals = proposer.propose(ctx)
            except StopSession as e:
                summary.outcome = f"proposer stopped: {e}"
                break
            if not proposals:
                timed_out = limits.time_limit_s is not None and clock() - t0 >= limits.time_limit_s
                summary.outcome = "time limit" if timed_out else "proposer exhausted"
                break
            batch = proposals[: limits.budget - done]
            pending = self._submit(head, batch)
            for p, (state, fut) in zip(batch, pending):
                ready = fut.result() if fut is not None and state == head.state else None
                if ready is not None and ready.error is not None:
                    ready = None  # a lost or failed worker: the check is run again here, recorded once
                made = self.made
                head, label = self.step(head, p, ready)
                summary.commits += self.made - made
                done += 1
                seen.add(payload_sha(p.payload))
                summary.labels[label.value] += 1
                summary.head = head
                if observer is not None:
                    observer.candidate(label, head, summary)
                if limits.time_limit_s is not None and clock() - t0 >= limits.time_limit_s:
                    break
            rnd += 1
        summary.head = head
        summary.seconds = clock() - t0
        return summary
