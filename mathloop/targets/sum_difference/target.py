"""Targets `sum-difference-3b` and `sum-difference-3c`: C ≥ H(X−Y)/max_L H(L(X, Y)) for one finite law on Z².

The table's entropy formulation (constants/3b.md, 3c.md; Green–Ruzsa 2019): C3b is the least constant with
H(X−Y) ≤ C3b·max(H(X), H(Y), H(X+Y)) for every pair of discrete random variables, and C3c the same with H(X+2Y) in
the maximum too. So one law certifies C ≥ its ratio. The entropies are enclosed in Arb balls (entropy.py) from exact
pushforward masses; the certified value is the ratio ball's lower end, rounded down to the contract's grid.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Annotated, Any, ClassVar, Mapping

from mathloop.contract.fields import Table, int_in
from mathloop.contract.model import Contract
from mathloop.contract.rules import Floor, Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.sum_difference import entropy
from mathloop.targets.sum_difference.formats import MAX_FILE_BYTES, read_candidate
from mathloop.targets.sum_difference.schema import Law, Limits, parse_payload, schema
from mathloop.targets.table_constant import PayloadRules, TableConstant, contract_tables

INPUT, LAW, RATIO = "law", "entropies", "ratio-bound"
FORMULATION = "entropy-formulation"


class _Parameters(Table):
    grid_digits: Annotated[int, int_in(6, 80)] = None
    precision_bits: Annotated[int, int_in(64, entropy.MAX_PREC)] = None


class _Limits(Table):
    max_points: Annotated[int, int_in(1, 5000)] = None
    max_coordinate: Annotated[int, int_in(1, 10**9)] = None
    max_weight_digits: Annotated[int, int_in(1, 5000)] = None
    max_payload_bytes: Annotated[int, int_in(64, 20_000_000)] = None


class SumDifference(TableConstant):
    """Lower bounds on a sum-difference constant from the entropies of one finite law on Z² (base of 3b and 3c)."""

    forms: ClassVar[tuple[entropy.Form, ...]]
    upper_bound: ClassVar[Fraction]  # the proven upper bound: no valid law certifies more
    upper_bound_why: ClassVar[str]
    version: ClassVar[str] = "1"
    records_package: ClassVar[str | None] = "mathloop.targets.sum_difference"
    bound_trust: ClassVar[Trust] = Trust.RIGOROUS
    rules: ClassVar[PayloadRules] = PayloadRules(parse_payload, schema, read_candidate, MAX_FILE_BYTES)
    candidate_file_note: ClassVar[str] = ("The checker also reads the published certificates' JSON forms, or a text "
                                          "file with one point \"x y weight\" per line.")
    checks: ClassVar[Mapping[str, Trust]] = {INPUT: Trust.EXACT, LAW: Trust.RIGOROUS, RATIO: Trust.RIGOROUS}

    def configure(self, contract: Contract) -> None:
        """Read the grid digits, the Arb bits and the limits of a {"points": [[x, y, "weight"], ...]} payload (the
        weights normalised exactly by `parse`). Raises ContractError."""
        p, lim = contract_tables(contract, _Parameters, _Limits)
        self.digits, self.prec = p.grid_digits, p.precision_bits
        self.limits = Limits(max_points=lim.max_points, max_coordinate=lim.max_coordinate,
                             max_weight_digits=lim.max_weight_digits, max_payload_bytes=lim.max_payload_bytes)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Law) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        t0 = time.perf_counter()
        outcomes = {INPUT: Outcome(Verdict.PROVED, Trust.EXACT)}
        bounds: dict[str, Fraction] = {}
        artifacts: dict[str, Any] = {}
        try:
            enc = entropy.enclose(candidate.points, candidate.probabilities, self.forms, self.digits, self.prec)
        except ValueError as e:
            outcomes[LAW] = Outcome(Verdict.REFUTED, Trust.RIGOROUS, (str(e),))
            outcomes[RATIO] = Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, ("no ratio: " + str(e),))
            return self._evidence(candidate, outcomes, bounds, artifacts, {"entropies": time.perf_counter() - t0})
        timings = {"entropies": time.perf_counter() - t0}
        t1 = time.perf_counter()
        disagree = entropy.cross_check(candidate.points, candidate.probabilities, self.forms, enc)
        timings["cross_check"] = time.perf_counter() - t1
        if disagree is not None:
            raise CheckerCrash(f"the Arb enclosure and the mpmath cross-check disagree (a checker bug): {disagree}")
        outcomes[LAW] = Outcome(Verdict.PROVED, Trust.RIGOROUS)
        outcomes[RATIO] = self.goal_outcome(enc.value, 20)
        bounds[self.bound_name] = enc.value
        artifacts["certificate"] = {"support": len(candidate.points), "entropies": enc.entropies,
                                    "ratio_ball": list(enc.ratio), "precision_bits": enc.prec,
                                    "r": fraction_str(enc.value), "grid_digits": self.digits,
                                    "forms": [list(f) for f in self.forms]}
        return self._evidence(candidate, outcomes, bounds, artifacts, timings, enc.prec)

    def _evidence(self, candidate: Law, outcomes: dict, bounds: dict, artifacts: dict, timings: dict,
                  prec: int | None = None) -> Evidence:
        precision = {"arithmetic": "exact pushforwards, Arb balls for log", "grid": f"10^-{self.digits}",
                     "arb_bits": prec or self.prec, "cross_check": "mpmath at two precisions"}
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.payload(), artifacts=artifacts, precision=precision, timings=timings)

    @classmethod
    def _required(cls, bound: str) -> tuple[Required, ...]:
        return (Required(FORMULATION, Kind.HYPOTHESIS), Required(INPUT, Kind.INPUT, INPUT),
                Required(LAW, Kind.CHECK, LAW), Required(RATIO, Kind.BOUND, RATIO, bound, Direction.MAXIMIZE))

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded optimiser of the law's weights and support (see proposer.py)."""
        from mathloop.targets.sum_difference.proposer import EntropyProposer

        return EntropyProposer(self, seed)

    def describe(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "law on 13 points"."""
        return f"law on {len(state['points'])} points"


class SumDifference3b(SumDifference):
    """C3b = SD({0, 1, ∞}; −1): H(X−Y) ≤ C3b·max(H(X), H(Y), H(X+Y))."""

    name: ClassVar[str] = "sum-difference-3b"
    contract_files: ClassVar[tuple[str, ...]] = ("sum-difference-3b.toml",)
    forms: ClassVar[tuple[entropy.Form, ...]] = ((1, 0), (0, 1), (1, 1))
    bound_name: ClassVar[str] = "C3b"
    symbol: ClassVar[str] = "C3b"
    records_file: ClassVar[str] = "records-3b.toml"
    upper_bound: ClassVar[Fraction] = Fraction(11, 6)
    required_obligations: ClassVar[tuple[Required, ...]] = SumDifference._required("C3b")
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor("bounds.C3b.class_maximum", Fraction(11, 6), at_most=True,
              why="Katz–Tao (1999): C3b ≤ 2 − 1/6 = 11/6"),)


class SumDifference3c(SumDifference):
    """C3c = SD({0, 1, 2, ∞}; −1): H(X−Y) ≤ C3c·max(H(X), H(Y), H(X+Y), H(X+2Y))."""

    name: ClassVar[str] = "sum-difference-3c"
    contract_files: ClassVar[tuple[str, ...]] = ("sum-difference-3c.toml",)
    forms: ClassVar[tuple[entropy.Form, ...]] = ((1, 0), (0, 1), (1, 1), (1, 2))
    bound_name: ClassVar[str] = "C3c"
    symbol: ClassVar[str] = "C3c"
    records_file: ClassVar[str] = "records-3c.toml"
    upper_bound: ClassVar[Fraction] = Fraction(7, 4)
    required_obligations: ClassVar[tuple[Required, ...]] = SumDifference._required("C3c")
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor("bounds.C3c.class_maximum", Fraction(7, 4), at_most=True,
              why="Katz–Tao (1999): C3c ≤ 2 − 1/4 = 7/4"),)

