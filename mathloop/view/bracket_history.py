"""The history of a bracket in one store: [best primal, best ceiling] and its width after every commit that moved it.

Every lineage in the store whose implementation is one side of the pair counts (a newer contract of the primal
target certifies lower bounds for the same class best value; so does an older one), so a row names the
lineage that moved. Values are the certified exact rationals; the width is ceiling - primal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sqlmodel import Session, select

from mathloop.contract.model import Contract
from mathloop.domain import decimal_str
from mathloop.store.models import CommitRow, ContractRow

DIGITS = 10


@dataclass(frozen=True)
class BracketStep:
    """One commit that moved a side of the bracket, and the bracket after it."""

    at: str
    side: str  # "primal" | "ceiling"
    lineage: str
    commit: str
    primal: Fraction | None
    ceiling: Fraction | None

    @property
    def width(self) -> Fraction | None:
        return None if self.primal is None or self.ceiling is None else self.ceiling - self.primal

    def text(self) -> str:
        """Return "<at> ceiling (lineage) -> [lo, hi] width w", rounded outward."""
        lo = "?" if self.primal is None else decimal_str(self.primal, DIGITS)
        hi = "?" if self.ceiling is None else decimal_str(self.ceiling, DIGITS, round_down=False)
        w = self.width
        tail = "" if w is None else f" width {decimal_str(w, DIGITS, round_down=False)}"
        return f"{self.at[:19]} {self.side} ({self.lineage}) -> [{lo}, {hi}]{tail}"

    def to_json(self) -> dict[str, Any]:
        w = self.width
        return {"at": self.at, "side": self.side, "lineage": self.lineage, "commit": self.commit,
                "primal": None if self.primal is None else str(self.primal),
                "ceiling": None if self.ceiling is None else str(self.ceiling), "width": None if w is None else str(w)}


def bracket_history(repo: Any, contract: Contract) -> tuple[BracketStep, ...]:
    """Return the steps of the contract's bracket in this store, oldest first (empty outside a pair)."""
    from mathloop.check.bracket import pair_of

    pair = pair_of(contract)
    if pair is None:
        return ()
    primal_impl, primal_bound, ceiling_impl, ceiling_bound, _ = pair
    with Session(repo.engine) as s:
        lineages = {r.sha256: (r.target, r.name) for r in s.exec(
            select(ContractRow).where(ContractRow.target.in_([primal_impl, ceiling_impl])))}
        rows = list(s.exec(select(CommitRow.created_at, CommitRow.seq, CommitRow.contract_sha, CommitRow.hash,
                                  CommitRow.bounds).where(CommitRow.contract_sha.in_(list(lineages)))
                           .order_by(CommitRow.created_at, CommitRow.seq)))
    primal: Fraction | None = None
    ceiling: Fraction | None = None
    steps = []
    for created, _, sha, commit, bounds in rows:
        impl, name = lineages[sha]
        values = json.loads(bounds)
        if impl == primal_impl and primal_bound in values:
            v = Fraction(values[primal_bound])
            if primal is None or v > primal:
                primal = v
                steps.append(BracketStep(created, "primal", name, commit, primal, ceiling))
        elif impl == ceiling_impl and ceiling_bound in values:
            v = Fraction(values[ceiling_bound])
            if ceiling is None or v < ceiling:
                ceiling = v
                steps.append(BracketStep(created, "ceiling", name, commit, primal, ceiling))
    return tuple(steps)
