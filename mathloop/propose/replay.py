"""A proposer that replays payloads from a JSONL file (one candidate per line), in order."""

from __future__ import annotations

from pathlib import Path

from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.propose.extract import loads_strict

MAX_LINE_BYTES = 1_000_000


class ReplayProposer(Proposer):
    """Replays `FILE.jsonl`: each line is a payload, or {"payload": ..., "meta": {...}}.

    A line that is not JSON becomes a malformed proposal (recorded, not fatal).
    """

    def __init__(self, path: Path) -> None:
        self.name = f"replay:{path.name}"
        self._lines = path.read_text(encoding="utf-8").splitlines()
        self._next = 0

    def propose(self, ctx: Context) -> list[Proposal]:
        out: list[Proposal] = []
        while self._next < len(self._lines) and len(out) < ctx.samples:
            n, line = self._next + 1, self._lines[self._next].strip()
            self._next += 1
            if not line:
                continue
            if len(line.encode("utf-8")) > MAX_LINE_BYTES:
                out.append(Proposal(None, self.name, {"line": n}, malformed=f"line {n}: longer than {MAX_LINE_BYTES} bytes"))
                continue
            try:
                value = loads_strict(line)  # no NaN/Infinity, no duplicate keys
            except (ValueError, RecursionError) as e:
                out.append(Proposal(line[:200], self.name, {"line": n}, malformed=f"line {n}: not JSON: {e}"))
                continue
            if isinstance(value, dict) and set(value) <= {"payload", "meta"} and "payload" in value:
                meta = value.get("meta") if isinstance(value.get("meta"), dict) else {}
                out.append(Proposal(value["payload"], self.name, {**meta, "line": n}))
            else:
                out.append(Proposal(value, self.name, {"line": n}))
        return out
