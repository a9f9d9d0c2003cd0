"""The shannon-capacity-c7-recursive target: Θ(C7) ≥ |I|^{1/n} for an independent set I of C7^⊠n built by a recursion.

The finite parts (gadgets in small powers of C7, the seven-family rules and codes) are checked exactly; the product
theorems that turn them into an independent set in C7^⊠n are hypotheses of the contract, and the evidence names
the ones a construction used (`artifacts.conditional_on`). Sizes and the root are exact integers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, ClassVar

from mathloop.contract.fields import Table, int_in
from mathloop.contract.model import Contract
from mathloop.contract.rules import Floor, Required
from mathloop.domain import (
    Direction,
    Evidence,
    Kind,
    Trust,
    Verdict,
    decimal_str,
    fraction_str,
)
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.shannon_capacity_c7 import graph
from mathloop.targets.shannon_capacity_c7.published import PACKAGE
from mathloop.targets.shannon_capacity_c7_recursive import recursion
from mathloop.targets.table_constant import PayloadRules, TableConstant, contract_tables
from mathloop.targets.shannon_capacity_c7_recursive.schema import (
    Construction,
    Limits,
    parse_payload,
    schema,
)

BOUND = "capacity"
INPUT, GADGETS, COMBINATORS, COUNTS, CAPACITY = "construction", "gadgets", "combinators", "counts", "capacity-bound"
HYPOTHESES = (recursion.GAO, recursion.CONVERSION, recursion.BPZ, recursion.HETEROGENEOUS)
THETA_CEILING = Fraction(33177, 10000)  # Lovász: Θ(C7) ≤ ϑ(C7) < 3.3177


class _Parameters(Table):
    grid_digits: Annotated[int, int_in(1, 30)] = None


class _Limits(Table):
    max_dimension: Annotated[int, int_in(1, 5000)] = None
    max_payload_bytes: Annotated[int, int_in(64, 10_000_000)] = None


class ShannonCapacityC7Recursive(TableConstant):
    """Checks recursive constructions of independent sets in strong powers of C7 (see recursion.py)."""

    name: ClassVar[str] = "shannon-capacity-c7-recursive"
    contract_files: ClassVar[tuple[str, ...]] = ("shannon-capacity-c7-recursive.toml",)  # in obligations/
    records_package: ClassVar[str | None] = PACKAGE  # constant 9a's records, shared with shannon-capacity-c7
    bound_name: ClassVar[str] = BOUND
    symbol: ClassVar[str] = "Θ(C7)"
    rules: ClassVar[PayloadRules] = PayloadRules(parse_payload, schema)
    version: ClassVar[str] = "2"  # 2: stated counts are checked (counts.py), no longer left open
    checks: ClassVar[Mapping[str, Trust]] = {INPUT: Trust.EXACT, GADGETS: Trust.EXACT, COMBINATORS: Trust.EXACT,
                                             COUNTS: Trust.EXACT, CAPACITY: Trust.EXACT}
    required_obligations: ClassVar[tuple[Required, ...]] = (
        *(Required(h, Kind.HYPOTHESIS) for h in HYPOTHESES),
        Required(INPUT, Kind.INPUT, INPUT),
        Required(GADGETS, Kind.CHECK, GADGETS),
        Required(COMBINATORS, Kind.CHECK, COMBINATORS),
        Required(COUNTS, Kind.CHECK, COUNTS),
        Required(CAPACITY, Kind.BOUND, CAPACITY, BOUND, Direction.MAXIMIZE),
    )
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor(f"bounds.{BOUND}.class_maximum", THETA_CEILING, at_most=True,
              why="Lovász (1979): Θ(C7) ≤ ϑ(C7) = 7cos(π/7)/(1 + cos(π/7)) < 3.3177"),)

    def configure(self, contract: Contract) -> None:
        """Read the grid digits and the limits of a construction. Raises ContractError."""
        p, lim = contract_tables(contract, _Parameters, _Limits)
        self.digits = p.grid_digits
        self.limits = Limits(max_payload_bytes=lim.max_payload_bytes, max_dimension=lim.max_dimension)

    def parse(self, payload: Any) -> Construction:
        """Return the typed construction, its shapes checked. Raises Malformed("<field>: reason")."""
        c: Construction = super().parse(payload)
        recursion.shapes(c, self.limits.max_dimension)
        return c

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Construction) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        t0 = time.perf_counter()
        res = recursion.evaluate(candidate)
        timings = {"checks": time.perf_counter() - t0}
        outcomes = {INPUT: Outcome(Verdict.PROVED, Trust.EXACT),
                    GADGETS: _failures(res.gadget_failures),
                    COMBINATORS: _failures(res.combinator_failures) if not res.gadget_failures else Outcome(
                        Verdict.UNKNOWN, Trust.EXACT, ("not evaluated: a gadget failed its definition",))}
        artifacts: dict[str, Any] = {"conditional_on": sorted(res.hypotheses), "trace": res.trace}
        outcomes[COUNTS] = self._counts(candidate, res, outcomes, artifacts, timings)
        bounds: dict[str, Fraction] = {}
        if all(outcomes[k].verdict is Verdict.PROVED for k in (GADGETS, COMBINATORS, COUNTS)) and res.size > 0:
            r = graph.certified_root(res.size, res.dimension, self.digits)
            bounds[BOUND] = r
            # p^n has thousands of digits at n = 500: the certificate names the inequality, anyone recomputes it
            if r.numerator ** res.dimension > res.size * r.denominator ** res.dimension:
                raise CheckerCrash("the grid root is above |I|^(1/n) (a checker bug)")
            artifacts["certificate"] = {"n": res.dimension, "size": str(res.size), "r": fraction_str(r),
                                        "grid_digits": self.digits, "p": str(r.numerator), "q": str(r.denominator),
                                        "inequality": "p^n <= size * q^n"}
            given = f" (conditional on {', '.join(sorted(res.hypotheses))})" if res.hypotheses else ""
            outcomes[CAPACITY] = self.goal_outcome(r, self.digits, given, say_proved=True)
        else:
            if res.size > 0:  # what the construction would give: shown, never a bound
                artifacts["implied_if_all_checks_held"] = {
                    "n": res.dimension, "size": str(res.size),
                    "r": decimal_str(graph.certified_root(res.size, res.dimension, self.digits), self.digits)}
            outcomes[CAPACITY] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("a check of the construction is open",))
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.model_dump(exclude_defaults=True), artifacts=artifacts,
                        precision={"arithmetic": "exact integers", "grid": f"10^-{self.digits}"}, timings=timings)

    def _counts(self, c: Construction, res: recursion.Result, outcomes: dict[str, Outcome],
                artifacts: dict[str, Any], timings: dict[str, float]) -> Outcome:
        """Return the counts obligation: each stated count recomputed by two code paths (counts.py)."""
        if not res.count_uses:
            return Outcome(Verdict.PROVED, Trust.EXACT)
        if any(outcomes[k].verdict is not Verdict.PROVED for k in (GADGETS, COMBINATORS)):
            return Outcome(Verdict.UNKNOWN, Trust.EXACT, ("not evaluated: the gadgets or combinators failed",),
                           rank=len(res.counts))
        from mathloop.targets.shannon_capacity_c7_recursive import counts

        t0 = time.perf_counter()
        rep = counts.check(c, res.count_uses)
        timings["counts"] = time.perf_counter() - t0
        artifacts["counts"] = rep.rows
        if rep.failures:
            return Outcome(Verdict.REFUTED, Trust.EXACT, tuple(rep.failures[:5]), rank=rep.failed_counts())
        if rep.open:
            return Outcome(Verdict.UNKNOWN, Trust.EXACT, tuple(rep.open[:5]), rank=rep.failed_counts())
        return Outcome(Verdict.PROVED, Trust.EXACT)

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded search over product trees of the head's gadgets (see proposer.py)."""
        from mathloop.targets.shannon_capacity_c7_recursive.proposer import TreeProposer

        return TreeProposer(self, seed)

    def describe(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "1 gadget, 6 steps"."""
        return f"{len(state['gadgets'])} gadget(s), {len(state.get('steps', []))} steps, result {state['result']}"


def _failures(lines: list[str]) -> Outcome:
    if not lines:
        return Outcome(Verdict.PROVED, Trust.EXACT)
    return Outcome(Verdict.REFUTED, Trust.EXACT, tuple(lines[:5]), rank=len(lines))

