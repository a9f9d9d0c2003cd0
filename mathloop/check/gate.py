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
from mathloop.domain import Direction, Evidence, Label, Scores, decimal_str, exact_decimal
from mathloop.order import Comparison, compare, label_of, oriented

from mathloop.check.bracket import Limit
from mathloop.check.rules import evidence_problems


@dataclass(frozen=True)
class Decision:
    """The gate's answer for one candidate's evidence against a head.

    Attributes:
        label: the candidate's one label (`error` when a guard refused the evidence itself).
        commits: True iff the candidate may be committed on that head (strict progress, no guard hit).
        reasons: why it does not commit, in words a proposer can learn from (empty when it commits).
        capped: True when a certified bound lies above a designed cap (a class maximum that is a numerical
            optimum, not a theorem): refused by the contract as a value (`regression`/`incomparable`), not an
            `error`; such an answer from a worker is re-checked like an `error` one.
    """

    label: Label
    commits: bool
    reasons: tuple[str, ...]
    capped: bool = False


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

    Evidence that breaks what evidence must contain (check/rules.py), a certified bound beyond a class
    maximum that is a theorem (or is not stated as anything else), or one that crosses a partner lineage's
    bracket `limits` is a checker bug or a forgery: label `error`, never a commit. A certified bound above a
    class maximum that is a numerical optimum is above a designed cap: that bound is not counted, which is
    worse than any head (`regression`, or `incomparable` when something else got better), never a commit.
    """
    problems = evidence_problems(contract, evidence)
    if problems:
        return Decision(Label.ERROR, False, ("evidence refused: " + "; ".join(problems),))
    why = _beyond_class_maximum(contract, evidence) or next(filter(None, (lim.crossed_by(evidence) for lim in limits)), None)
    if why is not None:
        return Decision(Label.ERROR, False, (why,))
    capped = _above_cap(contract, evidence)
    if capped:
        return _capped(contract, head, evidence, capped)
    cmp = compare(head, Scores.of(evidence), bound_specs(contract))
    if cmp.passes_gate:
        return Decision(cmp.label, True, ())
    return Decision(cmp.label, False, tuple(_reasons(contract, head, evidence, cmp)))


def _beyond_class_maximum(contract: Contract, evidence: Evidence) -> str | None:
    """Return a reason when a certified bound exceeds a class maximum no valid certificate can exceed (a checker
    bug), else None. A numerical-optimum maximum is a cap instead (_above_cap)."""
    for name, value in evidence.bounds.items():
        try:
            spec = contract.bound_spec(name)
        except KeyError:
            return f"evidence certifies an unknown bound {name!r}"
        limit = _beyond(value, spec)
        if limit is not None and not _is_cap(spec):
            kind = "a theorem" if spec.class_maximum_is_theorem else "the contract's stated limit"
            return (f"bound {name} = {decimal(value, spec)} is beyond the {spec.class_limit_name} "
                    f"{decimal(limit, spec)}, {kind}: no valid certificate can pass it, so the "
                    "checker is wrong (a checker bug), refused")
    return None


def _beyond(value: Fraction, spec: BoundSpec) -> Fraction | None:
    """Return the class maximum `value` lies beyond, else None."""
    limit = spec.class_maximum
    return limit if limit is not None and oriented(value, spec) > oriented(limit, spec) else None


def _is_cap(spec: BoundSpec) -> bool:
    """Return whether the class maximum is a designed cap: stated as a numerical optimum, not a theorem."""
    return bool(spec.class_maximum_basis and spec.class_maximum_basis.startswith("numerical optimum"))


def _above_cap(contract: Contract, evidence: Evidence) -> dict[str, str]:
    """Return {bound name: reason} for every certified bound above a designed cap."""
    out = {}
    for name, value in sorted(evidence.bounds.items()):
        spec = contract.bound_spec(name)
        limit = _beyond(value, spec)
        if limit is not None and _is_cap(spec):
            why = _first_clause((spec.class_maximum_basis or "").removeprefix("numerical optimum").lstrip(": "))
            out[name] = (f"{name}: certified {decimal(value, spec)} is above the contract's cap "
                         f"{exact_decimal(limit)} ({spec.class_limit_name}, a numerical optimum, not a theorem"
                         + (f": {why}" if why else "") + "): not counted — refused by the contract, not a checker "
                         "fault; raising the cap is a contract change (a new lineage)")
    return out


def _first_clause(text: str) -> str:
    """Return the text up to its first ". " or "; " outside parentheses (a basis's reason, without its notes).

    >>> _first_clause("held at 0.4 (printed; 9 digits): new. Re-optimising R reaches more")
    'held at 0.4 (printed; 9 digits): new'
    """
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and ch in ".;" and text[i + 1:i + 2] in (" ", ""):
            return text[:i]
    return text


def _capped(contract: Contract, head: Scores | None, evidence: Evidence, capped: dict[str, str]) -> Decision:
    """Return the decision when bounds lie above their caps: those bounds count as not certified (worse)."""
    kept = {k: v for k, v in evidence.bounds.items() if k not in capped}
    cmp = compare(head, Scores(evidence.ranks, kept), bound_specs(contract))
    other = Comparison(cmp.better, tuple(w for w in cmp.worse if w.removeprefix("bound:") not in capped), cmp.label)
    label = label_of(bool(cmp.better), True, all(r == 0 for r in evidence.ranks.values()))
    rest = [r for r in _reasons(contract, head, evidence, other) if r != "nothing better than the head"]
    return Decision(label, False, (*capped.values(), *rest), capped=True)


def _reasons(contract: Contract, head: Scores | None, evidence: Evidence, cmp: Comparison) -> list[str]:
    """Return why a candidate did not pass the gate, in words a proposer can learn from."""
    specs = bound_specs(contract)
    reasons = evidence.reasons()
    for item in cmp.worse:
        if item.startswith("bound:"):
            name = item.removeprefix("bound:")
            spec, new = specs[name], evidence.bounds.get(name)
            old = head.bounds.get(name) if head else None
            was = decimal(old, spec) if old is not None else "none"  # worse: the head certifies one
            if new is None:
                reasons.append(f"{name}: not certified (the head certifies {was})")
            else:
                reasons.append(f"{name}: certified {decimal(new, spec)} is worse than the head's {was}")
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
