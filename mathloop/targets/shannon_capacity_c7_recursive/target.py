"""The shannon-capacity-c7-recursive target: Θ(C7) ≥ |I|^{1/n} for an independent set I of C7^⊠n built by a recursion.

The finite parts (gadgets in small powers of C7, the seven-family rules and codes) are checked exactly; the product
theorems that turn them into an independent set in C7^⊠n are hypotheses of the contract, and the evidence names
the ones a construction used (`artifacts.conditional_on`). Sizes and the root are exact integers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, ClassVar

from mathloop.contract.fields import Table, int_in, validated
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
from mathloop.targets.base import CheckerCrash, Target
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.shannon_capacity_c7 import graph
from mathloop.targets.shannon_capacity_c7.published import PACKAGE
from mathloop.targets.shannon_capacity_c7_recursive import recursion
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


class ShannonCapacityC7Recursive(Target):
    """Checks recursive constructions of independent sets in strong powers of C7 (see recursion.py)."""

    name: ClassVar[str] = "shannon-capacity-c7-recursive"
    contract_files: ClassVar[tuple[str, ...]] = ("shannon-capacity-c7-recursive.toml",)  # in obligations/
    records_package: ClassVar[str | None] = PACKAGE  # constant 9a's records, shared with shannon-capacity-c7
    decides_by_goal: ClassVar[bool] = True
    version: ClassVar[str] = "1"
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

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.digits, self.limits = _settings(contract)

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless obligations, parameters, limits and the seed are valid."""
        super().validate_contract(contract)
        _settings(contract)
        cls.parsed_seed(contract)

    def parse(self, payload: Any) -> Construction:
        """Return the typed construction. Raises Malformed("<field>: reason")."""
        c = parse_payload(payload, self.limits)
        recursion.shapes(c, self.limits.max_dimension)
        return c

    def candidate_schema(self) -> dict[str, Any]:
        """Return the JSON schema of a construction."""
        return schema(self.limits)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Construction) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        t0 = time.perf_counter()
        res = recursion.evaluate(candidate)
        timings = {"checks": time.perf_counter() - t0}
        outcomes = {INPUT: Outcome(Verdict.PROVED, Trust.EXACT),
                    GADGETS: _failures(res.gadget_failures),
                    COMBINATORS: _failures(res.combinator_failures) if not res.gadget_failures else Outcome(
                        Verdict.UNKNOWN, Trust.EXACT, ("not evaluated: a gadget failed its definition",))}
        outcomes[COUNTS] = Outcome(Verdict.PROVED, Trust.EXACT) if not res.counts else Outcome(
            Verdict.UNKNOWN, Trust.EXACT, tuple(f"count {k} is stated by its paper and not checked here"
                                                for k in res.counts),
            rank=len(res.counts))
        artifacts: dict[str, Any] = {"conditional_on": sorted(res.hypotheses), "trace": res.trace,
                                     "stated_counts": res.counts}
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
            outcomes[CAPACITY] = self._bound_outcome(r, res.hypotheses)
        else:
            if res.size > 0:  # what the construction would give: shown, never a bound
                artifacts["implied_if_all_checks_held"] = {
                    "n": res.dimension, "size": str(res.size),
                    "r": decimal_str(graph.certified_root(res.size, res.dimension, self.digits), self.digits)}
            outcomes[CAPACITY] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("a check of the construction is open",))
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.model_dump(exclude_defaults=True), artifacts=artifacts,
                        precision={"arithmetic": "exact integers", "grid": f"10^-{self.digits}"}, timings=timings)

    def _bound_outcome(self, r: Fraction, used: list[str]) -> Outcome:
        given = f" (conditional on {', '.join(sorted(used))})" if used else ""
        goal = self.contract.bound_spec(BOUND).goal
        if goal is None or r >= goal:
            return Outcome(Verdict.PROVED, Trust.EXACT, (f"Θ(C7) ≥ {decimal_str(r, self.digits)}{given}",))
        why = f"certified Θ(C7) ≥ {decimal_str(r, self.digits)}{given} is below the goal {decimal_str(goal, self.digits)}"
        return Outcome(Verdict.UNKNOWN, Trust.EXACT, (why,))

    def read_candidate_file(self, path: Path) -> Any:
        """Return the strict JSON of a construction file of at most the contract's payload limit.

        Raises:
            InputError: unreadable, too large, not UTF-8 or not strict JSON (naming the file).
        """
        from mathloop.bounded import read_json

        return read_json(path, self.limits.max_payload_bytes, "--candidate")

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded search over product trees of the head's gadgets (see proposer.py)."""
        from mathloop.targets.shannon_capacity_c7_recursive.proposer import TreeProposer

        return TreeProposer(self, seed)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "1 gadget, 6 steps"."""
        try:
            return f"{len(state['gadgets'])} gadget(s), {len(state.get('steps', []))} steps, result {state['result']}"
        except (KeyError, TypeError):
            return super().state_summary(state)


def _failures(lines: list[str]) -> Outcome:
    if not lines:
        return Outcome(Verdict.PROVED, Trust.EXACT)
    return Outcome(Verdict.REFUTED, Trust.EXACT, tuple(lines[:5]), rank=len(lines))


def _settings(contract: Contract) -> tuple[int, Limits]:
    """Return (grid digits, limits). Raises ContractError naming the key."""
    p = validated(_Parameters, dict(contract.parameters), contract.path, "parameters")
    lim = validated(_Limits, dict(contract.target_limits), contract.path, "limits")
    return p.grid_digits, Limits(max_payload_bytes=lim.max_payload_bytes, max_dimension=lim.max_dimension)
