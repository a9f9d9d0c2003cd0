"""Target `spencer-discrepancy`: C10c ≥ disc(A)/√n for a square matrix A with entries in [−1, 1], certified exactly."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, ClassVar, Mapping

from mathloop.contract.fields import Table, int_in, validated
from mathloop.contract.model import Contract
from mathloop.contract.rules import Floor, Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, decimal_str, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash, Target
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.spencer_discrepancy.schema import Candidate, Limits, parse_payload, schema

BOUND = "C10c"
INPUT, DISC, RATIO = "matrix", "discrepancy", "ratio-bound"
MAX_N = 24  # 2^23 sign vectors × 24 rows: about 3 s in numpy on this machine
# Spencer (1985): disc(A) ≤ K√n for every A in [−1, 1]^{n×n} with K = 6 ("six standard deviations suffice").
SPENCER = Fraction(6)


class _Parameters(Table):
    grid_digits: Annotated[int, int_in(1, 30)] = None


class _Limits(Table):
    max_n: Annotated[int, int_in(1, MAX_N)] = None
    max_denominator: Annotated[int, int_in(1, 10**9)] = None
    max_payload_bytes: Annotated[int, int_in(64, 10_000_000)] = None


class SpencerDiscrepancy(Target):
    """Lower bounds on Spencer's discrepancy constant from one matrix: the exact minimum over all 2^(n−1) sign
    vectors (x and −x give the same value), then r ≤ disc(A)/√n on a decimal grid."""

    name: ClassVar[str] = "spencer-discrepancy"
    contract_files: ClassVar[tuple[str, ...]] = ("spencer-discrepancy.toml",)  # in obligations/
    records_package: ClassVar[str | None] = "mathloop.targets.spencer_discrepancy"
    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.Discrepancy",)  # in lean/Mathloop/
    definition_only: ClassVar[bool] = True  # C10c ≥ disc(A)/√n for each admissible A, by C10c's definition
    decides_by_goal: ClassVar[bool] = True
    version: ClassVar[str] = "1"
    checks: ClassVar[Mapping[str, Trust]] = {INPUT: Trust.EXACT, DISC: Trust.EXACT, RATIO: Trust.EXACT}
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required(INPUT, Kind.INPUT, INPUT),
        Required(DISC, Kind.CHECK, DISC),
        Required(RATIO, Kind.BOUND, RATIO, BOUND, Direction.MAXIMIZE),
    )
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor(f"bounds.{BOUND}.class_maximum", SPENCER, at_most=True,
              why="Spencer (1985): disc(A) ≤ 6√n for every A in [−1, 1]^{n×n}"),
        Floor("limits.max_n", Fraction(MAX_N), at_most=True, why="the enumeration of 2^(n−1) sign vectors"),
    )

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.digits, self.limits = _settings(contract)

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless obligations, parameters, limits and the seed are valid."""
        super().validate_contract(contract)
        _settings(contract)
        cls.parsed_seed(contract)

    def parse(self, payload: Any) -> Candidate:
        """Return the typed candidate. Raises Malformed("<field>: reason")."""
        return parse_payload(payload, self.limits)

    def candidate_schema(self) -> dict[str, Any]:
        """Return the schema of {"matrix": [[entry, ...], ...]}."""
        return schema(self.limits)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Candidate) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        from mathloop.targets.spencer_discrepancy import disc  # numpy: imported where used, never at start-up

        t0 = time.perf_counter()
        B, D, n = candidate.integers(), candidate.denominator, candidate.n
        d, x = disc.discrepancy(B)
        timings = {"discrepancy": time.perf_counter() - t0}
        if max(abs(v) for v in disc.row_values(B, x)) != d:
            raise CheckerCrash("the minimising sign vector does not attain the discrepancy (a checker bug)")
        r = disc.certified_ratio(d, n, D, self.digits)
        outcomes = {INPUT: Outcome(Verdict.PROVED, Trust.EXACT), DISC: Outcome(Verdict.PROVED, Trust.EXACT),
                    RATIO: self._bound_outcome(r)}
        if self._beyond_record(r):  # a new record: the Gray-code walk must find the same minimum
            t1 = time.perf_counter()
            if disc.discrepancy_gray(B) != d:
                raise CheckerCrash("the two discrepancy computations disagree (a checker bug)")
            timings["second_path"] = time.perf_counter() - t1
        artifacts = {"certificate": {"n": n, "denominator": str(D), "disc_times_denominator": str(d),
                                     "disc": fraction_str(Fraction(d, D)), "minimiser": list(x),
                                     "r": fraction_str(r), "grid_digits": self.digits,
                                     **disc.ratio_certificate(d, n, D, r)}}
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes,
                        bounds={BOUND: r}, state=candidate.payload(), artifacts=artifacts,
                        precision={"arithmetic": "exact integers", "grid": f"10^-{self.digits}"}, timings=timings)

    def _bound_outcome(self, r: Fraction) -> Outcome:
        goal = self.contract.bound_spec(BOUND).goal
        if goal is None or r >= goal:
            return Outcome(Verdict.PROVED, Trust.EXACT)
        return Outcome(Verdict.UNKNOWN, Trust.EXACT, (f"certified C10c ≥ {decimal_str(r, self.digits)} is below the "
                                                      f"goal {decimal_str(goal, self.digits)}",))

    def _beyond_record(self, r: Fraction) -> bool:
        records = self.constant_records()
        return r > max(Fraction(p.certified) for p in records.published if p.certified)

    def read_candidate_file(self, path: Path) -> Any:
        """Return the payload of a candidate file (own JSON, a JSON list of rows, or a text matrix; see formats.py).

        Raises:
            InputError: unreadable file, a JSON float, or a line that is not a row.
        """
        from mathloop.targets.spencer_discrepancy.formats import MAX_FILE_BYTES, read_candidate

        return read_candidate(path, max(MAX_FILE_BYTES, self.limits.max_payload_bytes))

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded optimiser (covering codes and local search over sign matrices; see proposer.py)."""
        from mathloop.targets.spencer_discrepancy.proposer import DiscrepancyProposer

        return DiscrepancyProposer(self, seed)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering of the finite check (see lean_claims), or None."""
        from mathloop.targets.spencer_discrepancy.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "17×17 matrix"."""
        try:
            return f"{len(state['matrix'])}×{len(state['matrix'])} matrix"
        except (KeyError, TypeError):
            return super().state_summary(state)


def _settings(contract: Contract) -> tuple[int, Limits]:
    """Return (grid digits, limits). Raises ContractError naming the key."""
    p = validated(_Parameters, dict(contract.parameters), contract.path, "parameters")
    lim = validated(_Limits, dict(contract.target_limits), contract.path, "limits")
    return p.grid_digits, Limits(max_n=lim.max_n, max_denominator=lim.max_denominator,
                                 max_payload_bytes=lim.max_payload_bytes)
