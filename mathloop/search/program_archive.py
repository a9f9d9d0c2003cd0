"""The lineage's programs as the evolve loop's parents: the best certified ones, near misses, recent failures.

Read from the store's memory (every candidate whose meta carries a program), incrementally: each refresh reads only
rows newer than the last one seen. A program's value is the certified bound of its evidence (never a claim); a program
that printed no candidate keeps the reason its run or its output failed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mathloop.contract.model import Contract
from mathloop.domain import Direction
from mathloop.store.models import CandidateRow, stored

_KEEP = 2000  # program records held (the best are never dropped)


@dataclass(frozen=True)
class ProgramRecord:
    """One program of the lineage and what came of its output.

    Attributes:
        row: its memory row id; sha256/text: the program; label: the gate's label of its output.
        value: the certified bound of its output (None: nothing certified); committed: its output is a commit.
        reasons: the checker's and the gate's words (or why it printed no candidate).
    """

    row: int
    sha256: str
    text: str
    label: str
    value: Fraction | None
    committed: bool
    reasons: tuple[str, ...]


def _certified(evidence_text: str | None, label: str, bound: str) -> Fraction | None:
    if not evidence_text or label in ("malformed", "error"):
        return None
    try:
        ev = json.loads(evidence_text)
        if any(r.get("verdict") in ("REFUTED", "ERROR") for r in ev.get("results", [])):
            return None
        value = ev.get("bounds", {}).get(bound)
        return Fraction(value) if isinstance(value, str) else None
    except (ValueError, TypeError, ZeroDivisionError, AttributeError):
        return None


class ProgramArchive:
    """The programs of one lineage (see the module docstring); `select` returns the prompt's parents."""

    def __init__(self, engine: Engine, contract: Contract, bound: str | None = None) -> None:
        self.engine, self.contract = engine, contract
        spec = next((b for b in contract.bounds if bound in (None, b.name)), None)
        self.bound = spec.name if spec is not None else None
        self.minimise = spec is not None and spec.direction is Direction.MINIMIZE
        self._last = 0
        self._records: dict[str, ProgramRecord] = {}  # by program sha256: the newest outcome of each program
        self._values: dict[str, Fraction] = {}  # payload sha256 -> its certified value (a repeat is not checked again)

    def refresh(self) -> None:
        """Read the memory rows written since the last refresh."""
        with Session(self.engine) as s:
            rows = s.exec(select(CandidateRow).where(CandidateRow.contract_sha == self.contract.sha256,
                                                     col(CandidateRow.id) > self._last).order_by(col(CandidateRow.id))).all()
        for row in rows:
            self._last = max(self._last, stored(row.id))
            try:
                meta = json.loads(row.proposer_meta)
                reasons = tuple(str(r) for r in json.loads(row.reasons))
            except ValueError:
                continue
            value = _certified(row.evidence, row.label, self.bound) if self.bound else None
            if value is not None:
                self._values[row.payload_sha] = value
            elif isinstance(meta, dict) and isinstance(meta.get("repeat_of"), str):
                value = self._values.get(meta["repeat_of"])  # the value its earlier check certified
            p = meta.get("program") if isinstance(meta, dict) else None
            if not isinstance(p, dict) or not isinstance(p.get("text"), str) or not isinstance(p.get("sha256"), str):
                continue
            old = self._records.get(p["sha256"])
            committed = bool(row.commit_hash) or (old is not None and old.committed)
            if value is None and old is not None and old.value is not None:
                value = old.value  # a repeat records no evidence: the program's certified value stays
            self._records[p["sha256"]] = ProgramRecord(stored(row.id), p["sha256"], p["text"], row.label, value,
                                                       committed, reasons)
        if len(self._records) > _KEEP:
            keep = {r.sha256 for r in self.best(50)}
            for r in sorted(self._records.values(), key=lambda r: r.row)[: len(self._records) - _KEEP]:
                if r.sha256 not in keep:
                    del self._records[r.sha256]

    def _key(self, r: ProgramRecord) -> tuple[Fraction, int]:
        if r.value is None:
            raise ValueError("only programs with a certified value are ranked")
        return (r.value if self.minimise else -r.value, r.row)

    def best(self, k: int) -> list[ProgramRecord]:
        """Return the k programs with the best certified values, best first."""
        return sorted((r for r in self._records.values() if r.value is not None), key=self._key)[:k]

    def near_misses(self, k: int, exclude: set[str]) -> list[ProgramRecord]:
        """Return the k newest programs that printed a candidate the checker judged without a commit (not in exclude)."""
        return sorted((r for r in self._records.values() if r.sha256 not in exclude and r.label != "malformed"
                       and not r.committed), key=lambda r: -r.row)[:k]

    def failures(self, k: int) -> list[ProgramRecord]:
        """Return the k newest programs that printed no usable candidate, with the reason."""
        return sorted((r for r in self._records.values() if r.label == "malformed"), key=lambda r: -r.row)[:k]
