"""What evidence must contain before the gate may look at it, whoever produced it (a checker, a worker, a store).

`evidence_problems` is the one rule set: the gate applies it to every evidence it judges and the audit
applies it to every evidence it reads, so the write path can never accept what the read path refuses.
It never raises: evidence built past `__post_init__`, a dict instead of Evidence, string or float bounds
all come back as reasons.

A certified bound and a reached goal are two things. A bound counts only when its bound obligation and
everything it depends on are PROVED, except where the contract's target declares an obligation open by
design (targets/base.OpenByDesign): a bound obligation whose verdict only says whether the contract's goal
is reached, or a progress measure whose rank counts the work left. That declaration is read from the
target's class, never inferred from a verdict's reasons, and is not part of the evidence or the contract's
bytes, so the lineages made before it audit unchanged.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import BoundSpec, Contract
from mathloop.domain import Direction, Evidence, Kind, ObligationResult, Trust, Verdict
from mathloop.targets.base import OpenByDesign

MAX_REASONS = 8


def evidence_problems(contract: Contract, evidence: Any, *, checker: tuple[str, str] | None = None,
                      open_by_design: OpenByDesign | None = None) -> tuple[str, ...]:
    """Return why `evidence` cannot be judged against `contract` (empty when it may be).

    The rules: it is an Evidence; every checked obligation of the contract has exactly one result and no
    other id has one; a rank is an int >= 0 and rank 0 comes only with PROVED; a certified bound is an exact
    Fraction under a bound name of the contract, and counts only if its bound obligation and every checked
    obligation it depends on (the contract DAG, hypotheses aside) are PROVED in the same evidence, or UNKNOWN
    where `open_by_design` allows it (a goal not yet reached, a progress measure; see the module docstring).
    `checker`: the (name, version) the contract's target reports; evidence naming another is refused.
    `open_by_design`: default, what the contract's target class declares (declared_open).
    """
    if not isinstance(evidence, Evidence):
        return (f"checker returned {type(evidence).__name__}, not Evidence",)
    out: list[str] = []
    if checker is not None and (evidence.checker, evidence.checker_version) != checker:
        out.append(f"evidence names checker {_short(evidence.checker)} version {_short(evidence.checker_version)}, "
                   f"not the target's {checker[0]} version {checker[1]}")
    results = _results(evidence, out)
    if results is None:
        return tuple(out)
    for o in contract.checked:
        if o.id not in results:
            out.append(f"{o.id}: no result in the evidence (every checked obligation needs one)")
    _bounds(contract, evidence, results, declared_open(contract) if open_by_design is None else open_by_design, out)
    return tuple(out[:MAX_REASONS])


def declared_open(contract: Contract) -> OpenByDesign:
    """Return what the contract's target class declares open by design; nothing (the strict rule) when the class
    cannot be loaded or declares something that is not an OpenByDesign."""
    from mathloop.targets.registry import target_class

    try:
        declared = target_class(contract.target, contract.path).open_by_design(contract)
    except Exception:  # an unknown or refused implementation: no exception to the strict rule
        return OpenByDesign()
    return declared if isinstance(declared, OpenByDesign) else OpenByDesign()


def _short(value: Any) -> str:
    return repr(value)[:60]


def _results(evidence: Evidence, out: list[str]) -> dict[str, ObligationResult] | None:
    """Return the results by id, adding a reason for every malformed one (None when they cannot be read)."""
    results = evidence.results
    if not isinstance(results, tuple):
        out.append(f"results: {type(results).__name__}, not a tuple of obligation results")
        return None
    by_id: dict[str, ObligationResult] = {}
    for r in results:
        if not isinstance(r, ObligationResult) or not isinstance(r.id, str):
            out.append(f"results: {type(r).__name__} is not an obligation result")
            continue
        if r.id in by_id:
            out.append(f"{r.id}: more than one result")
        if not isinstance(r.verdict, Verdict) or not isinstance(r.trust, Trust):
            out.append(f"{r.id}: verdict {_short(r.verdict)} / trust {_short(r.trust)} not of the contract's vocabulary")
        if type(r.rank) is not int or r.rank < 0:
            out.append(f"{r.id}: rank {_short(r.rank)} is not an integer >= 0")
        elif r.rank == 0 and r.verdict is not Verdict.PROVED:
            out.append(f"{r.id}: rank 0 with verdict {_short(r.verdict)}: only PROVED discharges an obligation")
        by_id[r.id] = r
    return by_id


def _bounds(contract: Contract, evidence: Evidence, results: Mapping[str, ObligationResult], declared: OpenByDesign,
            out: list[str]) -> None:
    bounds = evidence.bounds
    if not isinstance(bounds, Mapping):
        out.append(f"bounds: {type(bounds).__name__}, not a mapping")
        return
    known = {o.bound.name: o for o in contract.obligations if o.bound is not None}
    checked = {o.id for o in contract.checked}
    for rid in results:
        if rid not in checked:
            out.append(f"{rid}: not a checked obligation of the contract")
    for o in contract.obligations:  # a goal obligation's verdict must agree with its certified value
        if o.id in declared.goals and o.bound is not None and o.bound.name in bounds:
            why = _goal_disagrees(o.bound, bounds[o.bound.name], results.get(o.id))
            if why:
                out.append(f"{o.id}: {why}")
    for name, value in bounds.items():
        bound_of = known.get(name) if isinstance(name, str) else None
        if bound_of is None:
            out.append(f"evidence certifies an unknown bound {_short(name)}")
            continue
        if type(value) is not Fraction:
            out.append(f"bound {name}: {type(value).__name__} {_short(value)} is not an exact rational")
            continue
        for dep in (bound_of.id, *_upstream(contract, bound_of.id)):
            why = _not_standing(dep, results.get(dep), declared, bounds, contract)
            if why:
                own = "its obligation" if dep == bound_of.id else "which it depends on,"
                out.append(f"bound {name}: certified while {dep}, {own} is {why}; a bound counts only when its "
                           "obligation and everything it depends on are PROVED (or declared open by the target)")
                break


def _not_standing(oid: str, r: ObligationResult | None, declared: OpenByDesign, bounds: Mapping[str, Any],
                  contract: Contract) -> str | None:
    """Return why obligation `oid`'s result does not let a certified bound resting on it count (None: it does)."""
    if r is None:
        return "missing"
    if r.verdict is Verdict.PROVED:
        return None
    if r.verdict is Verdict.UNKNOWN and oid in declared.progress:
        return None
    if r.verdict is Verdict.UNKNOWN and oid in declared.goals:
        spec = contract.obligation(oid).bound
        if spec is not None and type(bounds.get(spec.name)) is Fraction:  # certified, short of the goal (checked above)
            return None
        return "UNKNOWN with no certified value"
    return f"{r.verdict} (not declared open by the target)" if r.verdict is Verdict.UNKNOWN else str(r.verdict)


def _upstream(contract: Contract, obligation_id: str) -> list[str]:
    """Return the checked obligations `obligation_id` depends on, transitively (hypotheses are taken as given)."""
    seen: list[str] = []
    stack = list(contract.obligation(obligation_id).depends_on)
    while stack:
        dep = stack.pop()
        if dep in seen:
            continue
        seen.append(dep)
        try:
            o = contract.obligation(dep)
        except KeyError:
            continue
        stack.extend(o.depends_on)
    kinds = {o.id: o.kind for o in contract.obligations}
    return [d for d in seen if kinds.get(d) not in (None, Kind.HYPOTHESIS)]


def _goal_disagrees(spec: BoundSpec, value: Any, r: ObligationResult | None) -> str | None:
    """Return why a goal obligation's verdict contradicts its certified value (None when it agrees): PROVED means
    "the goal is reached", UNKNOWN "certified, short of the goal"; REFUTED and ERROR are judged as any verdict."""
    if r is None or type(value) is not Fraction or spec.goal is None:
        return None
    reached = value >= spec.goal if spec.direction is Direction.MAXIMIZE else value <= spec.goal
    if r.verdict is Verdict.PROVED and not reached:
        return f"PROVED (goal reached) while the certified {spec.name} is short of the goal"
    if r.verdict is Verdict.UNKNOWN and reached:
        return f"UNKNOWN (goal not reached) while the certified {spec.name} reaches the goal"
    return None
