"""The product order on (ranks, bounds) and the five labels of the commit rule. Pure.

Bounds are oriented so that larger is better (a minimised bound is negated). A bound that the
candidate does not certify counts as minus infinity: losing a certified bound is always worse.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, overload

from mathloop.contract.model import BoundSpec
from mathloop.domain import Direction, Label, Scores


@dataclass(frozen=True)
class Comparison:
    """Which obligations/bounds got better and which got worse, with the resulting label."""

    better: tuple[str, ...]
    worse: tuple[str, ...]
    label: Label

    @property
    def passes_gate(self) -> bool:
        return self.label in (Label.CORRECT, Label.PROGRESS)


@overload
def oriented(value: Fraction, spec: BoundSpec) -> Fraction: ...
@overload
def oriented(value: None, spec: BoundSpec) -> None: ...
def oriented(value: Fraction | None, spec: BoundSpec) -> Fraction | None:
    """Return the bound with larger = better.

    >>> from mathloop.domain import Direction
    >>> oriented(Fraction(3), BoundSpec("x", Direction.MINIMIZE, Fraction(1)))
    Fraction(-3, 1)
    """
    if value is None:
        return None
    return value if spec.direction is Direction.MAXIMIZE else -value


def compare(head: Scores | None, new: Scores, bounds: Mapping[str, BoundSpec]) -> Comparison:
    """Return the comparison of `new` against `head` in the product order.

    `head` None means there is no state yet: everything the new state has is better.

    >>> from mathloop.domain import Direction
    >>> spec = {"k": BoundSpec("k", Direction.MAXIMIZE, Fraction(1, 10))}
    >>> h = Scores({"a": 1, "b": 0}, {"k": Fraction(1, 2)})
    >>> compare(h, Scores({"a": 0, "b": 0}, {"k": Fraction(1, 2)}), spec).label.value
    'correct'
    >>> compare(h, Scores({"a": 1, "b": 0}, {"k": Fraction(55, 100)}), spec).label.value
    'no_progress'
    >>> compare(h, Scores({"a": 1, "b": 0}, {"k": Fraction(6, 10)}), spec).label.value
    'progress'
    >>> compare(h, Scores({"a": 0, "b": 1}, {"k": Fraction(1, 2)}), spec).label.value
    'incomparable'
    >>> compare(h, Scores({"a": 1, "b": 0}, {}), spec).label.value
    'regression'
    """
    better: list[str] = []
    worse: list[str] = []
    head_ranks = head.ranks if head else {}
    for oid, r_new in sorted(new.ranks.items()):
        r_old = head_ranks.get(oid)
        if r_old is None:
            if head is None:
                better.append(oid)
            continue
        if r_new < r_old:
            better.append(oid)
        elif r_new > r_old:
            worse.append(oid)
    for oid in sorted(set(head_ranks) - set(new.ranks)):
        worse.append(oid)  # an obligation the new evidence does not answer is not discharged
    for name, spec in sorted(bounds.items()):
        b_new = oriented(new.bounds.get(name), spec)
        b_old = oriented(head.bounds.get(name), spec) if head else None
        if b_new is None:
            if b_old is not None:
                worse.append(f"bound:{name}")
            continue
        if b_old is None:
            better.append(f"bound:{name}")
        elif b_new < b_old:
            worse.append(f"bound:{name}")
        elif b_new >= b_old + spec.min_improvement:
            better.append(f"bound:{name}")
    all_discharged = all(r == 0 for r in new.ranks.values())
    return Comparison(tuple(better), tuple(worse), label_of(bool(better), bool(worse), all_discharged))


def label_of(better: bool, worse: bool, all_discharged: bool) -> Label:
    """Return the label for the four cases of (better, worse).

    >>> [label_of(b, w, True).value for b in (False, True) for w in (False, True)]
    ['no_progress', 'regression', 'correct', 'incomparable']
    >>> label_of(True, False, False).value
    'progress'
    """
    if better and worse:
        return Label.INCOMPARABLE
    if worse:
        return Label.REGRESSION
    if better:
        return Label.CORRECT if all_discharged else Label.PROGRESS
    return Label.NO_PROGRESS
