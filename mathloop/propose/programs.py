"""A program as a candidate: run it in the sandbox, read its output by the target's candidate-file rules.

The program is hostile code: it runs only in a `mathloop.sandbox.Sandbox` child and only its standard output comes back,
read exactly as `mathloop check --candidate` reads a file (the target's `read_candidate_file`: JSON, a JSON list, text,
`.npy`; else strict JSON). The payload is then checked, gated and committed like any other; the program text, its sha256
and what the run did are kept in `meta.program` (covered by `mathloop audit` with the rest of the row).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from mathloop.propose.base import Proposal
from mathloop.sandbox.runner import CUT_AT_DEADLINE

MAX_PROGRAM_CHARS = 65_536  # a program longer than this is refused unrun (stored, like every refusal, in excerpt)
PROGRAM_KEY = "program"     # meta[PROGRAM_KEY]: text, sha256, run, sandbox
_EXCERPT = 2000
_CACHE = 256                # identical program texts remembered per runner: a byte-identical program is not run twice


def program_sha(text: str) -> str:
    """Return the sha256 (hex) of a program's UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class OutputError(ValueError):
    """A program's output is not a candidate of the target; str() says why ("program output: ...")."""


def read_output(target: Any, data: bytes) -> Any:
    """Return the candidate payload that a program's output spells, by the target's candidate-file rules.

    Raises:
        OutputError: the output is empty or not a candidate file the target reads (the reason names the rule).
    """
    if not data.strip():
        raise OutputError("program output: empty (print the candidate to standard output)")
    fd, name = tempfile.mkstemp(prefix="mathloop-output-", suffix=".out")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            return target.read_candidate_file(Path(name), "output")
        except ValueError as e:  # the target's Malformed, or the bounded reader's InputError
            raise OutputError("program output: " + str(e).replace(name, "stdout")) from None
    finally:
        os.unlink(name)


@dataclass(frozen=True)
class ProgramOutcome:
    """One program's result: the payload it printed (None when unusable), why not, and the provenance record."""

    payload: Any
    malformed: str | None
    record: Mapping[str, Any]


class ProgramRunner:
    """Turns program texts into proposals for one target (see the module docstring).

    Args:
        target: the target whose candidate-file rules read the output.
        sandbox: a `mathloop.sandbox.Sandbox` (the only place a program runs).
        limits: the `SandboxLimits` of each run (None: the sandbox's defaults).
        redact: applied to a program's text before it runs and is stored (default: the `$OPENAI_API_KEY` redactor),
            so that the text kept is the text that ran and holds no key.
    """

    def __init__(self, target: Any, sandbox: Any, limits: Any = None, redact: Any = None) -> None:
        from mathloop.propose.redact import Redactor

        self.target, self.sandbox, self.limits = target, sandbox, limits
        self.redact = redact if redact is not None else Redactor(os.environ.get("OPENAI_API_KEY") or None)
        self._done: OrderedDict[str, ProgramOutcome] = OrderedDict()
        self.runs = 0

    def outcome(self, text: str, deadline: float | None = None) -> ProgramOutcome:
        """Return what running `text` gives (a byte-identical text seen before is not run again)."""
        text = self.redact(text)
        sha = program_sha(text)
        if sha in self._done:
            self._done.move_to_end(sha)
            return self._done[sha]
        record: dict[str, Any] = {"sha256": sha, "chars": len(text), "text": text[:MAX_PROGRAM_CHARS],
                                  "sandbox": self.sandbox.describe()}
        if len(text) > MAX_PROGRAM_CHARS:
            return ProgramOutcome(None, f"program longer than {MAX_PROGRAM_CHARS} characters: not run", record)
        run = self.sandbox.run(text, self.limits, deadline=deadline)
        self.runs += 1
        record["run"] = run.to_json()
        why = run.failure()
        payload = None
        if why is None:
            try:
                payload = read_output(self.target, run.stdout)
            except OutputError as e:
                why = str(e)
        outcome = ProgramOutcome(payload, why, record)
        if run.stopped != CUT_AT_DEADLINE:  # a run cut by the session's end says nothing of the program: run it again
            self._done[sha] = outcome
            while len(self._done) > _CACHE:
                self._done.popitem(last=False)
        return outcome

    def proposal(self, text: str, proposer: str, meta: Mapping[str, Any] | None = None,
                 deadline: float | None = None) -> Proposal:
        """Return the proposal a program makes: its output as the payload, or `malformed` with the run's reason."""
        out = self.outcome(text, deadline)
        full = {**(meta or {}), PROGRAM_KEY: dict(out.record)}
        if out.malformed is not None:
            excerpt = {"program_sha256": out.record["sha256"]}
            return Proposal(excerpt, proposer, full, malformed=out.malformed[:_EXCERPT])
        return Proposal(out.payload, proposer, full)


def sandboxed_runner(target: Any, what: str, seconds: float) -> ProgramRunner:
    """Return a ProgramRunner for `target` whose programs run `seconds` (wall clock and CPU) each in the sandbox.

    There is no unsandboxed fallback: a program is hostile code and runs in a sandbox or not at all.

    Raises:
        SandboxUnavailable: no sandbox can be made here; the message starts with `what` (the option that asked).
    """
    import math

    from mathloop.sandbox import Sandbox, SandboxLimits, SandboxUnavailable, probe

    why = probe()
    if why is not None:
        raise SandboxUnavailable(f"{what}: programs run only in a sandbox, and none can be made here: {why}")
    return ProgramRunner(target, Sandbox(), SandboxLimits(wall_s=seconds, cpu_s=max(1, math.ceil(seconds))))
