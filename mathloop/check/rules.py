"""What evidence must contain before the gate may look at it, whoever produced it (a checker, a worker, a store).

`evidence_problems` is the one rule set: the gate applies it to every evidence it judges and the audit
applies it to every evidence it reads, so the write path can never accept what the read path refuses.
It never raises: evidence built past `__post_init__`, a dict instead of Evidence, string or float bounds
all come back as reasons.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import BoundSpec, Contract
from mathloop.domain import Direction, Evidence, Kind, ObligationResult, Trust, Verdict

MAX_REASONS = 8


def evidence_problems(contract: Contract, evidence: Any, *, checker: tuple[str, str] | None = None) -> tuple[str, ...]:
    """Return why `evidence` cannot be judged against `contract` (empty when it may be).

    The rules: it is an Evidence; every checked obligation of the contract has exactly one result and no
    other id has one; a rank is an int >= 0 and rank 0 comes only with PROVED; a certified bound is an exact
    Fraction under a bound name of the contract, and counts only if its bound obligation is PROVED (or left
    UNKNOWN only because the certified value is short of the contract's goal) and nothing it depends on (the
    contract DAG, hypotheses aside) is missing, REFUTED or ERROR in the same evidence. An UNKNOWN upstream
    check is allowed: shipped targets use open checks as progress measures (critical-line-zeros certifies a
    height from its verified prefix while `blocks` up to the cap stays open).
    `checker`: the (name, version) the contract's target reports; evidence naming another is refused.
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
    _bounds(contract, evidence, results, out)
    return tuple(out[:MAX_REASONS])


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


def _bounds(contract: Contract, evidence: Evidence, results: Mapping[str, ObligationResult], out: list[str]) -> None:
    bounds = evidence.bounds
    if not isinstance(bounds, Mapping):
        out.append(f"bounds: {type(bounds).__name__}, not a mapping")
        return
    known = {o.bound.name: o for o in contract.obligations if o.bound is not None}
    checked = {o.id for o in contract.checked}
    for rid in results:
        if rid not in checked:
            out.append(f"{rid}: not a checked obligation of the contract")
    for name, value in bounds.items():
        o = known.get(name) if isinstance(name, str) else None
        if o is None:
            out.append(f"evidence certifies an unknown bound {_short(name)}")
            continue
        if type(value) is not Fraction:
            out.append(f"bound {name}: {type(value).__name__} {_short(value)} is not an exact rational")
            continue
        r = results.get(o.id)
        if r is None or (r.verdict is not Verdict.PROVED and not _below_goal(o.bound, value, r)):
            out.append(f"bound {name}: certified while its obligation {o.id} is "
                       f"{r.verdict if r is not None else 'missing'}; a bound counts only when its obligation is PROVED")
            continue
        for dep in _upstream(contract, o.id):
            d = results.get(dep)
            if d is None or d.verdict in (Verdict.REFUTED, Verdict.ERROR):
                out.append(f"bound {name}: certified while {dep}, which it depends on, is "
                           f"{d.verdict if d is not None else 'missing'}")
                break


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


def _below_goal(spec: BoundSpec, value: Fraction, r: ObligationResult) -> bool:
    """Return True when an UNKNOWN bound obligation says exactly "certified, the goal not reached yet": the
    contract sets a goal and the certified value is short of it (rank > 0 then keeps it open)."""
    if r.verdict is not Verdict.UNKNOWN or spec.goal is None or r.rank < 1:
        return False
    short = value < spec.goal if spec.direction is Direction.MAXIMIZE else value > spec.goal
    return short
