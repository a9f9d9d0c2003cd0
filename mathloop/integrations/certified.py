"""mathloop as the exact evaluator of an evolve system: run the program in the sandbox, check, gate, commit.

`CertifiedEvaluator(target, db).evaluate_file(path)` is what every adapter (OpenEvolve, ShinkaEvolve, SimpleTES) calls:
the program runs in a `mathloop.sandbox.Sandbox` child, its standard output is read by the target's candidate-file rules,
checked exactly in a checker child, labelled by the gate against the store's head, recorded in the memory and committed
when it is strict progress (each evaluation is one short session of its own, sealed when it ends). The system's score is
derived from the exact certified value only: `1/value` for a minimised bound, `value` for a maximised one, so that every
certified program scores above 0 and each adapter maps a refusal to its system's own failure value, below all of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from mathloop.bounded import InputError, read_text
from mathloop.domain import Direction, Label
from mathloop.propose.programs import MAX_PROGRAM_CHARS, ProgramRunner

# What became of one program, in one word.
COMMITTED = "committed"      # certified and strict progress: the store's head is now its commit
CERTIFIED = "certified"      # its value is certified; no strict progress over the head (no commit)
REFUSED = "refused"          # the checker refuted it (e.g. not admissible) or the gate refused its evidence
MALFORMED = "malformed"      # the program failed, or printed no candidate of the target
ERROR = "error"              # the checker could not answer (timeout, crash): nothing is known about the program


@dataclass(frozen=True)
class Evaluation:
    """The exact verdict on one program.

    Attributes:
        verdict: COMMITTED, CERTIFIED, REFUSED, MALFORMED or ERROR.
        label: the gate's label (as stored in the memory), or None when nothing was recorded.
        bound: the contract's bound the score is derived from; value: its exact certified value (None: none).
        score: 1/value (minimised bound) or value (maximised), > 0; None whenever nothing is certified.
        commit: the commit the program's output became (COMMITTED only).
        head: the store's head after the evaluation, and its certified value.
        reasons: the checker's and the gate's words, or why the program gave no candidate.
        program_sha256, stderr_tail, seconds: the program and its run.
    """

    verdict: str
    label: str | None
    bound: str
    value: Fraction | None
    score: float | None
    commit: str | None
    head: str | None
    head_value: Fraction | None
    reasons: tuple[str, ...]
    program_sha256: str
    stderr_tail: str = ""
    seconds: float = 0.0

    @property
    def valid(self) -> bool:
        """Return whether the program's value is certified (COMMITTED or CERTIFIED)."""
        return self.score is not None

    def feedback(self) -> str:
        """Return one paragraph for the system's prompt: the verdict, the exact value, the reasons."""
        what = {COMMITTED: f"certified and committed as {str(self.commit)[:12]}", CERTIFIED: "certified, not committed",
                REFUSED: "refused by the exact checker", MALFORMED: "no usable candidate", ERROR: "checker error"}
        parts = [f"mathloop: {what[self.verdict]}"]
        if self.value is not None:
            parts.append(f"{self.bound} = {_decimal(self.value)} exactly (head: {_decimal(self.head_value)})")
        parts += list(self.reasons[:4])
        if self.stderr_tail and self.verdict == MALFORMED:
            parts.append("stderr: " + self.stderr_tail[-600:])
        return "; ".join(parts)


def _decimal(v: Fraction | None) -> str:
    return "none" if v is None else f"{float(v):.12g} ({v.numerator}/{v.denominator})" if v.denominator < 10**12 \
        else f"{float(v):.12g}"


def score_of(value: Fraction, direction: Direction) -> float:
    """Return the system's score of a certified value: higher is better, and always > 0.

    >>> score_of(Fraction(1, 2), Direction.MINIMIZE), score_of(Fraction(3, 2), Direction.MAXIMIZE)
    (2.0, 1.5)
    """
    if direction is Direction.MINIMIZE:
        return 1.0 / float(value) if value > 0 else math.inf
    return float(value) if value > 0 else math.ulp(0.0)  # the worst certified score: still above every failure


class CertifiedEvaluator:
    """Evaluates program files against one lineage of a store (see the module docstring).

    Args:
        target: a shipped contract name (or a Contract).
        db: the store (path or URL); created when missing.
        system: the evolve system's name, recorded as the proposer (`openevolve`, `shinka`, `simpletes`).
        program_time: wall-clock and CPU seconds of each program run.
        bound: which bound the score follows (default: the contract's only/first bound).

    Raises:
        SandboxUnavailable: no sandbox can be made here (nothing is ever run outside one).
    """

    def __init__(self, target: Any, db: str, *, system: str, program_time: float = 60.0, bound: str | None = None,
                 packages: tuple[str, ...] | None = None) -> None:
        from mathloop.check.checker import build_checker
        from mathloop.sandbox import Sandbox, SandboxLimits, SandboxUnavailable, probe
        from mathloop.store.engine import make_engine
        from mathloop.store.repository import Repository
        from mathloop.targets import build_target, load_contract
        from mathloop.sandbox.view import DEFAULT_PACKAGES

        pkgs = tuple(packages) if packages is not None else DEFAULT_PACKAGES
        why = probe(pkgs)
        if why is not None:
            raise SandboxUnavailable(f"{system} evaluator: programs run only in a sandbox, none can be made here: {why}")
        self.contract = load_contract(target) if isinstance(target, str) else target
        spec = next((b for b in self.contract.bounds if bound in (None, b.name)), None)
        if spec is None:
            raise ValueError(f"bound: {bound!r} is not a bound of {self.contract.name}")
        self.spec, self.system, self.program_time = spec, system, program_time
        self.target = build_target(self.contract)
        self.repo = Repository(make_engine(db))
        self.repo.ensure_contract(self.contract)
        seconds = max(1, math.ceil(program_time))
        self.runner = ProgramRunner(self.target, Sandbox(pkgs), SandboxLimits(wall_s=program_time, cpu_s=seconds))
        self.checker = build_checker(self.contract, self.target)

    def close(self) -> None:
        """Stop the checker child."""
        self.checker.close()

    def evaluate_file(self, path: str | Path) -> Evaluation:
        """Return the exact verdict on the program in `path` (its text is read here; the program runs sandboxed)."""
        try:
            text = read_text(path, 4 * MAX_PROGRAM_CHARS, "program")
        except InputError as e:
            return Evaluation(MALFORMED, None, self.spec.name, None, None, None, None, None, (str(e),), "")
        return self.evaluate_text(text)

    def evaluate_text(self, text: str) -> Evaluation:
        """Return the exact verdict on one program text, recorded (and committed if strict progress) in one session."""
        from mathloop.search.loop import Session

        session_id = self.repo.start_session(self.contract.sha256, self.system, 0,
                                             {"proposer": self.system, "program_time": self.program_time})
        outcome = "evaluated"
        try:
            session = Session(self.contract, self.repo, self.checker, session_id)
            head = session.ensure_root()
            proposal = self.runner.proposal(text, self.system, {"source": self.system})
            record = proposal.meta["program"]
            run = record.get("run") or {}
            new_head, label = session.step(head, proposal)
            return self._evaluation(session_id, label, head, new_head, record["sha256"],
                                    str(run.get("stderr_tail", "")), float(run.get("seconds") or 0.0))
        except BaseException as e:
            outcome = f"failed: {type(e).__name__}"
            raise
        finally:
            self.repo.end_session(session_id, outcome)

    def _evaluation(self, session_id: int, label: Label | None, head, new_head, sha: str, stderr: str,
                    seconds: float) -> Evaluation:
        name = self.spec.name
        row = self._row(session_id)
        reasons = tuple(row.reasons) if row is not None else ()
        after = new_head.bounds.get(name)
        if label is Label.MALFORMED or label is None:
            return Evaluation(MALFORMED, label.value if label else None, name, None, None, None, new_head.hash, after,
                              reasons, sha, stderr, seconds)
        if label is Label.ERROR:
            return Evaluation(ERROR, label.value, name, None, None, None, new_head.hash, after, reasons, sha, stderr,
                              seconds)
        ev = row.evidence if row is not None else None
        value = ev.bounds.get(name) if ev is not None and not _refuted(ev) else None
        committed = new_head.hash != head.hash and row is not None and row.commit_hash == new_head.hash
        if value is None:
            return Evaluation(REFUSED, label.value, name, None, None, None, new_head.hash, after, reasons, sha, stderr,
                              seconds)
        return Evaluation(COMMITTED if committed else CERTIFIED, label.value, name, value,
                          score_of(value, self.spec.direction), new_head.hash if committed else None, new_head.hash,
                          after, reasons, sha, stderr, seconds)

    def _row(self, session_id: int):
        """Return this evaluation's memory row (its session's row by this system: the seed may share the session)."""
        from sqlmodel import Session as DB, col, select

        from mathloop.store.models import CandidateRow

        with DB(self.repo.engine) as s:
            row = s.exec(select(CandidateRow).where(CandidateRow.session_id == session_id,
                                                    CandidateRow.proposer == self.system)
                         .order_by(col(CandidateRow.id).desc()).limit(1)).first()
        return self.repo.candidate(row.id) if row is not None else None


def _refuted(evidence) -> bool:
    from mathloop.domain import Verdict

    return any(r.verdict in (Verdict.REFUTED, Verdict.ERROR) for r in evidence.results)
