"""The one checking object: built once per session, it runs checks and hands back (outcome, decision) pairs.

The loop, `mathloop check`, the audit's re-check, the reward Environment and `bench` all judge through a
Checker, and `gate.decide` is the only gate it applies (bracket limits included), so no path can label a
candidate differently. It owns the checker children (the session's own child, and the executor's pool or
cluster) and the session's deadline. Answers from an executor are validated against the contract and, when
they would move the head, re-checked here first unless the executor is authenticated (then a random
`recheck` share is; a mismatch quarantines that worker).
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any, Mapping, Sequence

from mathloop.check.bracket import Limit, limits as bracket_limits
from mathloop.check.executors import Executor, Pending
from mathloop.check.gate import Decision, decide
from mathloop.check.outcome import CheckOutcome
from mathloop.check.rules import evidence_problems
from mathloop.check.runner import CheckRunner, ProcessRunner
from mathloop.contract.model import Contract
from mathloop.domain import Label, Scores

SESSION = "session"
DEFAULT_RECHECK = 0.05


class Checker:
    """Checks candidates of one contract and judges them with the gate; see the module docstring.

    Args:
        contract: the lineage's contract; target: its Target (built when None, for name and version).
        executor: where a round's checks run concurrently (None: one at a time in the session's child).
        timeout_s: seconds per check (default the contract's); deadline: `time.monotonic()` instant of the
            session's --time-limit (a check still running then is interrupted).
        runner: the session's own checker (default a ProcessRunner); used for in-order checks and re-checks.
        recheck: the share of an authenticated executor's head-moving answers re-checked here.
    """

    def __init__(self, contract: Contract, *, target: Any = None, executor: Executor | None = None,
                 timeout_s: float | None = None, deadline: float | None = None, runner: CheckRunner | None = None,
                 recheck: float = DEFAULT_RECHECK, rng: random.Random | None = None) -> None:
        if not 0 <= recheck <= 1:
            raise ValueError(f"--recheck: must be between 0 and 1, got {recheck}")
        self.contract = contract
        self.timeout_s = float(timeout_s if timeout_s is not None else contract.check_timeout_s)
        self.runner = runner if runner is not None else ProcessRunner(self.timeout_s)
        self.executor = executor
        self.recheck = recheck
        self._rng = rng or random.Random()
        self._identity = (target.name, target.version) if target is not None else None
        self.quarantined: dict[str, str] = {}  # worker -> why
        self._to_recheck: list[str] = []  # quarantined workers whose earlier answers the session has not re-checked
        self.deadline: float | None = None
        self.set_deadline(deadline)
        set_timeout = getattr(executor, "set_timeout", None)  # the Checker owns the timeout: its executor's too
        if set_timeout is not None:
            set_timeout(self.timeout_s)

    @property
    def name(self) -> str:
        return self.executor.name if self.executor is not None else "local, 1 worker (in order)"

    @property
    def in_flight(self) -> int:
        return self.executor.in_flight if self.executor is not None else 1

    def __enter__(self) -> "Checker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_deadline(self, at: float | None) -> None:
        """Cut every check still running at `at` (None: no deadline)."""
        self.deadline = at
        self.runner.deadline = at
        setter = getattr(self.executor, "set_deadline", None)  # an embedder's executor may have no deadlines
        if setter is not None:
            setter(at)

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def warm(self) -> int:
        """Check the seed once in every executor worker (a head start for the first round); return how many answered
        (0 when the warm-up fails: only a head start, a worker that fails here fails its checks too, as errors)."""
        warm = getattr(self.executor, "warm", None)  # an embedder's executor may have none
        try:
            return warm(self.contract) if warm is not None else 0
        except Exception:
            return 0

    def limits(self, repo: Any, head_commit: str | None) -> tuple[Limit, ...]:
        """Return the partner lineage's bounds this lineage may not cross, read from the store once (per round)."""
        return bracket_limits(repo, self.contract, head_commit) if repo is not None else ()

    # -- one candidate ------------------------------------------------------------------------
    def check(self, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:
        """Return the outcome of checking `payload` on `parent_state` in the session's own checker child."""
        return self.runner.check(self.contract, parent_state, payload).by(SESSION)

    def judge(self, parent_state: Mapping[str, Any] | None, payload: Any, head: Scores | None,
              limits: Sequence[Limit] = ()) -> tuple[CheckOutcome, Decision | None]:
        """Return (outcome, decision) for `payload` checked here against `head` (decision None without evidence)."""
        return self.settle(self.check(parent_state, payload), head, limits)

    def settle(self, out: CheckOutcome, head: Scores | None, limits: Sequence[Limit] = (),
               remote: bool = False) -> tuple[CheckOutcome, Decision | None]:
        """Return (outcome, the gate's decision) for an outcome already computed (None without evidence)."""
        if out.evidence is None:
            return out, None
        problems = evidence_problems(self.contract, out.evidence, checker=self._identity if remote else None)
        if problems:  # an `error` whose evidence is not kept: it may not even serialise
            who = "worker's evidence" if remote else "evidence"
            return CheckOutcome(error=f"{who} refused: " + "; ".join(problems), worker=out.worker), None
        return out, decide(self.contract, head, out.evidence, limits)

    # -- a round on the executor --------------------------------------------------------------
    def submit(self, parent_state: Mapping[str, Any] | None, payload: Any) -> Pending | None:
        """Start a check on the executor (None without one: `take` then checks here)."""
        return self.executor.submit(self.contract, parent_state, payload) if self.executor is not None else None

    def take(self, pending: Pending | None, parent_state: Mapping[str, Any] | None, payload: Any, head: Scores | None,
             limits: Sequence[Limit] = ()) -> tuple[CheckOutcome, Decision | None]:
        """Return (outcome, decision) of a submitted check. An executor's error is re-checked here (a lost worker
        costs nothing); an answer that would move the head is re-checked here unless the executor is
        authenticated (then a `recheck` share is), an answer the gate labels `error` always is, and a worker that
        disagrees is quarantined (its earlier answers are then re-checked by the loop: newly_quarantined)."""
        if pending is None:
            return self.judge(parent_state, payload, head, limits)
        out = pending.result()
        local = getattr(self.executor, "local", False)  # the session's own children (LocalPool): their word is ours
        if out.interrupted and (local or self._deadline_passed()):
            return out, None
        # a remote `interrupted` before the deadline is a claim, not a fact: an error, checked here
        if out.error is not None or (out.worker or "") in self.quarantined:
            return self.judge(parent_state, payload, head, limits)
        if out.malformed is not None and not local:  # a remote `malformed` could bury a good payload: parsed here
            return self._recheck(out, None, parent_state, payload, head, limits)
        out, decision = self.settle(out, head, limits, remote=True)
        if out.error is not None:  # evidence that breaks the contract's rules: the worker is not believed
            self._quarantine(out.worker, out.error)
            mine, my_decision = self.judge(parent_state, payload, head, limits)
            return mine.by(f"{SESSION} (re-check; worker {out.worker}'s evidence refused: quarantined)"), my_decision
        # an answer the gate calls `error` (beyond a class maximum, across the bracket) is a checker bug or a lie, and one
        # above a designed cap may be a lie: always re-checked, so that a lying worker is caught there too; one that
        # would commit by the --recheck rule
        must = decision is not None and (decision.label is Label.ERROR or decision.capped
                                         or (decision.commits and self._must_recheck()))
        if not must:  # a remote answer that does not move the head, taken on its word: marked so (the repeat rule)
            return (out if local else replace(out, unverified=True)), decision
        return self._recheck(out, decision, parent_state, payload, head, limits)

    def _recheck(self, out: CheckOutcome, decision: Decision | None, parent_state: Mapping[str, Any] | None,
                 payload: Any, head: Scores | None, limits: Sequence[Limit]) -> tuple[CheckOutcome, Decision | None]:
        """Return a worker's (outcome, decision) once the session's own check agrees; else the session's, with the
        worker quarantined."""
        mine, my_decision = self.judge(parent_state, payload, head, limits)
        if disagreement(out, mine) is not None:
            why = f"worker {out.worker} answered differently from the session's re-check"
            self._quarantine(out.worker, why)
            return mine.by(f"{SESSION} (re-check; {why}: quarantined)"), my_decision
        return out.by(f"{out.worker} (re-checked)"), decision

    def newly_quarantined(self) -> list[str]:
        """Return the workers quarantined since the last call: everything each returned earlier in the session is
        to be re-checked here (search/quarantine.py does it from the store, committed answers included)."""
        out, self._to_recheck = self._to_recheck, []
        return out

    def _deadline_passed(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _must_recheck(self) -> bool:
        authenticated = self.executor is not None and getattr(self.executor, "authenticated", False)
        return not authenticated or self._rng.random() < self.recheck

    def _quarantine(self, worker: str | None, why: str) -> None:
        if worker and worker not in self.quarantined:
            self.quarantined[worker] = why
            self._to_recheck.append(worker)
            hook = getattr(self.executor, "quarantine", None)
            if hook is not None:
                hook(worker)

    def close(self) -> None:
        """Stop every checker child and the executor (idempotent)."""
        try:
            self.runner.close()
        finally:
            if self.executor is not None:
                ex, self.executor = self.executor, None
                ex.close()


def disagreement(theirs: CheckOutcome, mine: CheckOutcome) -> str | None:
    """Return how a worker's outcome differs from the session's own check of the same candidate (None: the same
    evidence bytes, timings aside, or the same malformed reason)."""
    if theirs.evidence is not None and mine.evidence is not None:
        if theirs.evidence.canonical_bytes() == mine.evidence.canonical_bytes():
            return None
        a, b = theirs.evidence, mine.evidence
        if dict(a.bounds) != dict(b.bounds):
            return (f"bounds {', '.join(f'{k} = {v}' for k, v in sorted(a.bounds.items())) or 'none'} against the "
                    f"session's {', '.join(f'{k} = {v}' for k, v in sorted(b.bounds.items())) or 'none'}")
        return "different evidence bytes (results, state or artifacts)"
    if theirs.malformed is not None and theirs.malformed == mine.malformed:
        return None
    return f"{_said(theirs)} against the session's {_said(mine)}"


def _said(out: CheckOutcome) -> str:
    if out.evidence is not None:
        return "evidence"
    return f"malformed ({out.malformed[:80]})" if out.malformed is not None else f"error ({str(out.error)[:80]})"


def build_checker(contract: Contract, target: Any, *, executor: Executor | None = None,
                  runner: CheckRunner | None = None, timeout_s: float | None = None,
                  recheck: float = DEFAULT_RECHECK) -> Checker:
    """Return the Checker of `contract` judged as `target`: the one construction every session, `check`, `bench`,
    reward environment and evaluator uses (see Checker for the arguments).

    `target` None only for a bare runner's checker (tests, embedders): a remote worker's evidence is then not held
    to the target's name and version.
    """
    return Checker(contract, target=target, executor=executor, runner=runner, timeout_s=timeout_s, recheck=recheck)


def checker_for(runner_or_checker: Any, contract: Contract, executor: Executor | None = None) -> Checker:
    """Return a Checker: the one given, or one over a bare runner (tests and embedders that pass a runner)."""
    if isinstance(runner_or_checker, Checker):
        return runner_or_checker
    return build_checker(contract, None, executor=executor, runner=runner_or_checker)
