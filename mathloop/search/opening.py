"""`open_session`: the one place a search session is assembled, run under its signals, and sealed.

`mathloop run`, `bench` and the notebooks open sessions here: the contract, its target, the proposer, the store,
the executor, the Checker, the Lean worker and the Session, built in that order (bad input fails before the store
is touched), and closed in the reverse order however the session ends: the session row is sealed with how it
ended, the Lean worker is stopped (what it had not checked stays pending for the next run), every checker child
and the executor stop, and the SIGTERM handler is given back.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Callable, Iterator

from mathloop.check.checker import Checker, build_checker
from mathloop.check.executors import TLS, Executor, executor_for
from mathloop.contract.model import Contract
from mathloop.lean.worker import LeanWorker
from mathloop.propose.base import Proposer
from mathloop.search.config import SessionConfig, named_contract
from mathloop.search.loop import LineageRefused, Observer, SeedRefused, Session, SessionLimits, SessionSummary
from mathloop.search.proposers import build_proposer, with_start
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository

NOT_RUN = "closed before it ran"


class ExecutorUnavailable(RuntimeError):
    """The executor the config names cannot be reached or refused its settings (the session is sealed so)."""


@dataclass
class OpenSession:
    """An assembled session (see the module docstring): `run()` it once, then `wait_for_lean()` if Lean is on.

    Attributes:
        resumed: Lean-pending commits of earlier sessions handed to the Lean worker when the session opened.
        deadline: the `time.monotonic()` instant the config's time limit ends the run, Lean included (None: none).
        summary: what `run()` did (None: it has not run to its end).
        sealed: the outcome the session row was sealed with (None: still open).
        lean_left: commits left without a Lean result when the worker was stopped (None: not stopped).
    """

    config: SessionConfig
    contract: Contract
    target: Any
    proposer: Proposer
    repo: Repository
    session_id: int
    checker: Checker
    session: Session
    limits: SessionLimits
    worker: LeanWorker | None
    resumed: int = 0
    deadline: float | None = None
    summary: SessionSummary | None = None
    sealed: str | None = None
    lean_left: int | None = None
    _lean_open: bool = field(default=False, repr=False)

    def run(self, observer: Observer | None = None) -> SessionSummary:
        """Run the session to its end; its checker children stop then, and the row is sealed with its outcome.

        A session that raises is sealed, its Lean worker stopped and its checkers closed, in that order, when
        open_session's `with` is left (Ctrl-C stops Lean first: it records nothing more while the children stop).
        """
        summary = self.session.run(self.proposer, self.limits, observer)
        self.checker.close()  # every checker child and the executor stop before the Lean wait
        self.summary = summary
        self.seal(summary.outcome)
        return summary

    def seal(self, outcome: str) -> None:
        """Record how the session ended (once: a later call changes nothing)."""
        if self.sealed is None:
            self.sealed = outcome
            self.repo.end_session(self.session_id, outcome)

    def wait_for_lean(self, progress: Callable[[int, int], None] | None = None) -> bool:
        """Wait for the Lean checks until the deadline; return True when every commit has a result (the worker is
        then closed), False when the deadline stopped the rest (they stay pending: `lean_left`)."""
        if self.worker is None or not self._lean_open:
            return True
        left = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
        if self.worker.wait(progress, timeout_s=left):
            self._lean_open = False
            self.worker.close()
            return True
        self.stop_lean()
        return False

    def stop_lean(self) -> int:
        """Stop the Lean worker now, recording nothing more; return how many commits stay Lean-pending."""
        if self.worker is not None and self._lean_open:
            self._lean_open = False
            self.lean_left = self.worker.cancel()
        return self.lean_left or 0


@contextmanager
def open_session(config: SessionConfig, *, since: float | None = None) -> Iterator[OpenSession]:
    """Yield the session `config` asks for, assembled, with SIGTERM ending it like Ctrl-C; seal and close on exit.

    `since`: the `time.monotonic()` instant the time limit counts from (default: now).

    Raises:
        ContractError: the contract. ConfigError: a proposer, model option or start (SandboxUnavailable: programs
            where no sandbox can be made). StoreError: the store cannot be opened. ExecutorUnavailable: the executor.
        SeedRefused, LineageRefused: from `run()`, as Session.run raises them (the row is sealed first).
    """
    from mathloop.targets import build_target

    deadline = None if config.time_limit is None else (time.monotonic() if since is None else since) + config.time_limit
    contract = named_contract(config.target, config.contract_file)
    target = build_target(contract)
    budget = config.budget or contract.default_budget
    inner = build_proposer(config, contract, target)
    proposer = with_start(config.start, target, inner)
    repo = Repository(make_engine(config.db))
    try:
        repo.ensure_contract(contract)
        if config.form == "program":  # the evolve loop's parents come from this store
            from mathloop.propose.program_proposer import ProgramProposer
            from mathloop.search.program_archive import ProgramArchive

            if isinstance(inner, ProgramProposer):
                inner.archive = ProgramArchive(repo.engine, contract)
        session_id = repo.start_session(contract.sha256, proposer.name, config.seed, config.recorded(budget))
        with _sealed_on_failure(repo, session_id):
            opened = _assemble(config, contract, target, proposer, repo, session_id, budget, deadline)
        with _sigterm_ends_the_session(), opened.checker:  # leaving: seal, stop Lean, close checkers, SIGTERM back
            try:
                yield opened
            except BaseException as e:
                if not isinstance(e, (SystemExit, GeneratorExit)):
                    opened.seal(_ended_by(e))
                raise
            finally:
                opened.stop_lean()
            opened.seal(NOT_RUN)
    finally:
        repo.engine.dispose()


def _assemble(config: SessionConfig, contract: Contract, target: Any, proposer: Proposer, repo: Repository,
              session_id: int, budget: int, deadline: float | None) -> OpenSession:
    """Return the session with its executor, Checker and Lean worker (the lineage's pending commits resumed)."""
    tls = TLS(config.tls_ca, config.tls_cert, config.tls_key) if (config.tls_ca and config.tls_cert
                                                                  and config.tls_key) else None
    pool: Executor | None = None
    if config.workers > 1 or config.executor != "local":  # the Checker gives it the contract's timeout
        try:
            pool = executor_for(config.executor, config.workers, tls=tls, insecure=config.insecure_executor)
        except (ValueError, OSError) as e:
            repo.end_session(session_id, f"executor unavailable: {e}")
            raise ExecutorUnavailable(str(e)) from None
    checker = build_checker(contract, target, executor=pool, recheck=config.recheck)
    worker: LeanWorker | None = None
    try:
        samples = max(config.samples, checker.in_flight)  # enough in flight that no worker waits (Executor.in_flight)
        worker = LeanWorker(repo.engine, contract.sha256, target) if config.lean else None
        resumed = _resume_pending(worker, repo, contract) if worker is not None else 0
        session = Session(contract, repo, checker, session_id,
                          on_commit=(lambda c, ev: worker.submit(c.hash, ev)) if worker is not None else None)
    except BaseException:
        if worker is not None:
            worker.cancel()
        checker.close()
        raise
    limits = SessionLimits(budget, config.time_limit, samples, deadline=deadline)
    return OpenSession(config, contract, target, proposer, repo, session_id, checker, session, limits, worker,
                       resumed, deadline, _lean_open=worker is not None)


@contextmanager
def _sealed_on_failure(repo: Repository, session_id: int) -> Iterator[None]:
    """Seal the session row with the failure if assembling the session fails (an unavailable executor seals it
    itself, with its own words)."""
    try:
        yield
    except ExecutorUnavailable:
        raise
    except BaseException as e:
        repo.end_session(session_id, _ended_by(e))
        raise


def _ended_by(e: BaseException) -> str:
    """Return the outcome a session that `e` ended is sealed with."""
    if isinstance(e, KeyboardInterrupt):
        return "interrupted"
    if isinstance(e, SeedRefused):
        return f"seed refused: {e}"
    if isinstance(e, LineageRefused):
        return "refused: a commit of the lineage failed a quarantine re-check"
    return f"failed: {type(e).__name__}: {str(e)[:200]}"


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def _sigterm_ends_the_session() -> Iterator[None]:
    """End the session on SIGTERM as on Ctrl-C (the store is consistent after every candidate anyway); an
    in-process caller gets its own handler back. Only the main thread can set handlers: elsewhere, nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _resume_pending(worker: LeanWorker, repo: Repository, contract: Contract) -> int:
    """Hand the lineage's Lean-pending commits (no attestation yet: interrupted, or made with --no-lean) to the
    worker, oldest first; return how many."""
    from mathloop.lean import attest

    todo = attest.unattested(repo, contract.sha256)
    for c in todo:
        cand = repo.candidate(c.candidate_id)
        if cand is not None and cand.evidence is not None:  # a commit without evidence is the audit's finding
            worker.submit(c.hash, cand.evidence)
    return len(todo)
