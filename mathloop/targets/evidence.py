"""Turn per-checker outcomes into Evidence for a contract: one result per obligation, bounds gated."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import Contract
from mathloop.domain import Evidence, Kind, ObligationResult, Trust, Verdict


@dataclass(frozen=True)
class Outcome:
    """One checker's answer, before it is attached to the obligations that cite it."""

    verdict: Verdict
    trust: Trust
    reasons: tuple[str, ...] = ()


def assemble(
    contract: Contract,
    *,
    checker: str,
    version: str,
    outcomes: Mapping[str, Outcome],
    value: Fraction | None,
    state: Mapping[str, Any],
    artifacts: Mapping[str, Any],
    precision: Mapping[str, Any],
    timings: Mapping[str, float],
) -> Evidence:
    """Return the evidence; `value` is certified under every bound only if all checks are PROVED.

    A value beyond the class maximum is refused by the gate (search/gate.decide), not here.
    """
    results: list[ObligationResult] = []
    checks_ok = all(
        outcomes[o.checker].verdict is Verdict.PROVED for o in contract.checked if o.kind is not Kind.BOUND
    )
    bounds: dict[str, Fraction] = {}
    for o in contract.checked:
        if o.kind is Kind.BOUND:
            if checks_ok and value is not None:
                bounds[o.bound.name] = value
                results.append(ObligationResult(o.id, Verdict.PROVED, 0, Trust.EXACT))
            else:
                why = ("an upstream check is not proved",) if not checks_ok else ("no value computed",)
                results.append(ObligationResult(o.id, Verdict.UNKNOWN, 1, Trust.EXACT, why))
            continue
        out = outcomes[o.checker]
        rank = 0 if out.verdict is Verdict.PROVED else 1
        results.append(ObligationResult(o.id, out.verdict, rank, out.trust, out.reasons))
    return Evidence(
        checker=checker,
        checker_version=version,
        results=tuple(results),
        bounds=bounds,
        state=state,
        artifacts=artifacts,
        precision=precision,
        timings=timings,
    )


def int_limit(contract: Contract, key: str, lo: int, hi: int) -> int:
    """Return limits[key] as an int in [lo, hi]. Raises ContractError."""
    from mathloop.contract.model import ContractError

    v = contract.limits.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ContractError(contract.path, f"limits.{key}", f"must be an integer in [{lo}, {hi}]")
    return v
