"""The gate: one decision per candidate — the product order plus the guards that make a commit safe.

`decide()` is the only place that turns evidence into a label and a commit/no-commit answer; the
loop, `check`, `audit` and the reward environment all reach it through the Checker (check/checker.py),
so they can never disagree. Its guards, in order: what evidence must contain (check/rules.py), class
maxima, and the partner lineage's bracket limits (check/bracket.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

from mathloop.contract.model import BoundSpec, Contract
from mathloop.domain import Direction, Evidence, Label, Scores, decimal_str
from mathloop.order import Comparison, compare, oriented

from mathloop.check.bracket import Limit
from mathloop.check.rules import evidence_problems


@dataclass(frozen=True)
class Decision:
    """The gate's answer for one candidate's evidence against a head.

    Attributes:
        label: the candidate's one label (`error` when a guard refused the evidence itself).
        commits: True iff the candidate may be committed on that head (strict progress, no guard hit).
        reasons: why it does not commit, in words a proposer can learn from (empty when it commits).
    """

    label: Label
    commits: bool
    reasons: tuple[str, ...]


def bound_specs(contract: Contract) -> dict[str, BoundSpec]:
    """Return the contract's bound specs by bound name."""
    return {b.name: b for b in contract.bounds}


def decimal(value: Fraction, spec: BoundSpec | None, digits: int | None = None) -> str:
    """Return a decimal string of a certified bound, rounded in the safe direction.

    A maximised bound is rounded down and a minimised one up, so the printed value is still
    implied by the certificate.

    >>> from mathloop.domain import Direction
    >>> decimal(Fraction(2, 3), BoundSpec("x", Direction.MAXIMIZE, Fraction(1)), 5)
    '0.66666'
    >>> decimal(Fraction(2, 3), BoundSpec("x", Direction.MINIMIZE, Fraction(1)), 5)
    '0.66667'
    """
    d = digits if digits is not None else (spec.digits if spec else 12)
    return decimal_str(value, d, round_down=spec is None or spec.direction is Direction.MAXIMIZE)


def decide(contract: Contract, head: Scores | None, evidence: Evidence, limits: Sequence[Limit] = ()) -> Decision:
    """Return the one decision for `evidence` against the head's scores (None: no head, the root).

    Evidence that breaks what evidence must contain (check/rules.py), a certified bound beyond its class
    maximum, or one that crosses a partner lineage's bracket `limits` is a checker bug or a forgery:
    label `error`, never a commit.
    """
    problems = evidence_problems(contract, evidence)
    if problems:
        return Decision(Label.ERROR, False, ("evidence refused: " + "; ".join(problems),))
    why = _beyond_class_maximum(contract, evidence) or next(filter(None, (lim.crossed_by(evidence) for lim in limits)), None)
    if why is not None:
        return Decision(Label.ERROR, False, (why,))
    cmp = compare(head, Scores.of(evidence), bound_specs(contract))
    if cmp.passes_gate:
        return Decision(cmp.label, True, ())
    return Decision(cmp.label, False, tuple(_reasons(contract, head, evidence, cmp)))


def _beyond_class_maximum(contract: Contract, evidence: Evidence) -> str | None:
    """Return a reason when a certified bound exceeds its class maximum (a checker bug), else None."""
    for name, value in evidence.bounds.items():
        try:
            spec = contract.bound_spec(name)
        except KeyError:
            return f"evidence certifies an unknown bound {name!r}"
        if spec.class_maximum is not None and oriented(value, spec) > oriented(spec.class_maximum, spec):
            return (f"bound {name} = {decimal(value, spec)} is beyond the class maximum "
                    f"{decimal(spec.class_maximum, spec)}: a checker bug, refused")
    return None


def _reasons(contract: Contract, head: Scores | None, evidence: Evidence, cmp: Comparison) -> list[str]:
    """Return why a candidate did not pass the gate, in words a proposer can learn from."""
    specs = bound_specs(contract)
    reasons = evidence.reasons()
    for item in cmp.worse:
        if item.startswith("bound:"):
            name = item.removeprefix("bound:")
            spec, new = specs[name], evidence.bounds.get(name)
            old = head.bounds.get(name) if head else None
            if new is None:
                reasons.append(f"{name}: not certified (the head certifies {decimal(old, spec)})")
            else:
                reasons.append(f"{name}: certified {decimal(new, spec)} is worse than the head's {decimal(old, spec)}")
        else:
            reasons.append(f"{item}: rank rose from {head.ranks.get(item) if head else '-'} to {evidence.ranks.get(item, '-')}")
    if cmp.label is Label.NO_PROGRESS:
        for name, spec in specs.items():
            new, old = evidence.bounds.get(name), head.bounds.get(name) if head else None
            if new is not None and old is not None and oriented(new, spec) >= oriented(old, spec):
                reasons.append(f"{name}: gain {decimal(oriented(new, spec) - oriented(old, spec), None, spec.digits)} "
                               f"is below the minimum improvement {decimal(spec.min_improvement, None, spec.digits)}")
        if not reasons:
            reasons.append("nothing better than the head")
    return reasons


def open_obligations(ranks: Mapping[str, int]) -> tuple[str, ...]:
    """Return the ids of the obligations still open (rank > 0), sorted."""
    return tuple(sorted(o for o, r in ranks.items() if r > 0))
