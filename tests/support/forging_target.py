"""A stand-in checker that returns malformed or over-claiming evidence on request (for gate tests on every path).

The toy contract with `implementation = "forger"`. Candidate {"x": "p/q", "forge": KIND}: the real toy evidence,
then spoiled as KIND says: missing (no obligation results), unknown0 (every obligation UNKNOWN at rank 0, built
past __post_init__), unproved (the bound certified while its own obligation is UNKNOWN), refuted-dep (the bound
certified while in-range, which it depends on, is REFUTED), strbound / floatbound (the bound
as a string / float), dict (a plain dict instead of Evidence).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from mathloop.domain import ObligationResult, Trust, Verdict
from mathloop.targets.base import Malformed
from tests.support.toy_target import TOY_CONTRACT, ToyTarget

FORGER_CONTRACT = TOY_CONTRACT.replace('implementation = "toy"', 'implementation = "forger"')
KINDS = ("missing", "unknown0", "unproved", "refuted-dep", "strbound", "floatbound", "dict")


def _unknown_rank0(oid: str) -> ObligationResult:
    r = ObligationResult(oid, Verdict.UNKNOWN, 1, Trust.EXACT)
    object.__setattr__(r, "rank", 0)  # past __post_init__, as a careless plug-in could
    return r


class ForgingTarget(ToyTarget):
    name = "forger"

    def parse(self, payload: Any) -> dict:
        forge = payload.get("forge") if isinstance(payload, dict) else None
        if forge is not None and forge not in KINDS:
            raise Malformed(f"forge: one of {KINDS}")
        c = super().parse({k: v for k, v in payload.items() if k != "forge"} if isinstance(payload, dict) else payload)
        return {**c, "forge": forge}

    def check(self, parent_state: Mapping[str, Any] | None, c: dict):
        ev = super().check(parent_state, c)
        forge = c.get("forge")
        if forge == "missing":
            return replace(ev, results=())
        if forge == "unknown0":
            return replace(ev, results=tuple(_unknown_rank0(r.id) for r in ev.results))
        if forge in ("unproved", "refuted-dep"):
            oid, verdict = ("value-bound", Verdict.UNKNOWN) if forge == "unproved" else ("in-range", Verdict.REFUTED)
            results = tuple(ObligationResult(r.id, verdict, 1, Trust.EXACT) if r.id == oid else r for r in ev.results)
            return replace(ev, results=results)
        if forge == "strbound":
            return replace(ev, bounds={"value": str(ev.bounds["value"])})
        if forge == "floatbound":
            return replace(ev, bounds={"value": float(ev.bounds["value"])})
        if forge == "dict":
            return ev.to_json()
        return ev
