"""Turn per-checker outcomes into Evidence for a contract: one result per obligation, bounds gated."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import Contract
from mathloop.domain import Evidence, Kind, ObligationResult, Trust, Verdict


@dataclass(frozen=True)
class Outcome:
    """One checker's answer, before it is attached to the obligations that cite it.

    Attributes:
        rank: how violated (None: 0 when PROVED, else 1).
    """

    verdict: Verdict
    trust: Trust
    reasons: tuple[str, ...] = ()
    rank: int | None = None

    def result(self, obligation_id: str) -> ObligationResult:
        """Return this outcome as the result of one obligation."""
        rank = self.rank if self.rank is not None else (0 if self.verdict is Verdict.PROVED else 1)
        return ObligationResult(obligation_id, self.verdict, rank, self.trust, self.reasons)


def assemble(
    contract: Contract,
    *,
    checker: str,
    version: str,
    outcomes: Mapping[str, Outcome],
    value: Fraction | None = None,
    state: Mapping[str, Any],
    artifacts: Mapping[str, Any],
    precision: Mapping[str, Any],
    timings: Mapping[str, float],
    bounds: Mapping[str, Fraction] | None = None,
) -> Evidence:
    """Return the evidence: one result per checked obligation of the contract, in contract order.

    Two ways to certify bounds: with `value`, it is certified under every bound obligation only
    if all other checks are PROVED (the bound results are derived); with `bounds`, the checker
    certified those values itself and `outcomes` holds the bound checkers' outcomes too. A value
    beyond the class maximum is refused by the gate (check/gate.decide), not here.
    """
    if bounds is not None:
        results = tuple(outcomes[o.checker].result(o.id) for o in contract.checked)
        return Evidence(checker=checker, checker_version=version, results=results, bounds=dict(bounds), state=state,
                        artifacts=artifacts, precision=precision, timings=timings)
    results: list[ObligationResult] = []
    checks_ok = all(
        outcomes[o.checker].verdict is Verdict.PROVED for o in contract.checked if o.kind is not Kind.BOUND
    )
    certified: dict[str, Fraction] = {}
    for o in contract.checked:
        if o.kind is Kind.BOUND:
            if checks_ok and value is not None:
                certified[o.bound.name] = value
                results.append(ObligationResult(o.id, Verdict.PROVED, 0, Trust.EXACT))
            else:
                why = ("an upstream check is not proved",) if not checks_ok else ("no value computed",)
                results.append(ObligationResult(o.id, Verdict.UNKNOWN, 1, Trust.EXACT, why))
            continue
        results.append(outcomes[o.checker].result(o.id))
    return Evidence(
        checker=checker,
        checker_version=version,
        results=tuple(results),
        bounds=certified,
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
