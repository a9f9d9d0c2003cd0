"""`--proposer program:PATH`: each Python file (PATH, or every `*.py` in the directory PATH) is one program candidate."""

from __future__ import annotations

from pathlib import Path

from mathloop.bounded import InputError, read_text
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.propose.programs import MAX_PROGRAM_CHARS, ProgramRunner


class ProgramFileError(ValueError):
    """PATH names no program file; str() is "program PATH: reason"."""


class ProgramFileProposer(Proposer):
    """Proposes the output of each program file once, in name order (a file that cannot be read is `malformed`)."""

    def __init__(self, path: Path, runner: ProgramRunner) -> None:
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix == ".py" and p.is_file())
            if not files:
                raise ProgramFileError(f"program {path}: the directory holds no *.py file")
        elif path.is_file():
            files = [path]
        else:
            raise ProgramFileError(f"program {path}: no such file or directory")
        self.name = f"program:{path.name}"
        self.runner = runner
        self._files = files

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return the next ctx.samples programs' proposals (empty when every file was proposed)."""
        out = []
        while self._files and len(out) < max(1, ctx.samples):
            path = self._files.pop(0)
            meta = {"source": path.name}
            try:
                text = read_text(path, 4 * MAX_PROGRAM_CHARS, "program")
            except InputError as e:
                out.append(Proposal({"program_file": path.name}, self.name, meta, malformed=str(e)))
                continue
            out.append(self.runner.proposal(text, self.name, meta, ctx.deadline))
        return out

    def stats(self) -> dict[str, int]:
        """Return how many programs ran in the sandbox."""
        return {"programs run": self.runner.runs}
