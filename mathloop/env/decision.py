"""The gate's one decision per candidate, as the loop applies it (label, whether it would commit, reasons).

Until `search/gate.py` offers `decide()` itself, this composes the gate's own pieces exactly as
`search/loop.py` does: a bound beyond its class maximum is an `error` (a checker bug), otherwise the
product-order label, with the gate's reasons for every refusal.
"""

from __future__ import annotations

from dataclasses import dataclass

from mathloop.contract import Contract
from mathloop.domain import Evidence, Label, Scores
from mathloop.search.gate import beyond_class_maximum, gate, gate_reasons


@dataclass(frozen=True)
class Decision:
    """The gate's verdict on evidence against a head: label, whether it commits, and why not."""

    label: Label
    commits: bool
    reasons: tuple[str, ...]


def decide(contract: Contract, head_scores: Scores | None, evidence: Evidence) -> Decision:
    """Return the gate's decision on `evidence` against `head_scores` (None: no head yet)."""
    why = beyond_class_maximum(contract, evidence)
    if why:
        return Decision(Label.ERROR, False, (why,))
    cmp = gate(contract, head_scores, evidence)
    if cmp.passes_gate:
        return Decision(cmp.label, True, ())
    return Decision(cmp.label, False, tuple(gate_reasons(contract, head_scores, evidence, cmp)))
