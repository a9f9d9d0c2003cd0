"""Target `spencer-discrepancy`: C10c ≥ disc(A)/√n for a square matrix A with entries in [−1, 1], certified exactly."""

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
from mathloop.targets.spencer_discrepancy.formats import MAX_FILE_BYTES, read_candidate
from mathloop.targets.spencer_discrepancy.schema import Candidate, Limits, parse_payload, schema
from mathloop.targets.table_constant import PayloadRules, TableConstant, contract_tables

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


class SpencerDiscrepancy(TableConstant):
    """Lower bounds on Spencer's discrepancy constant from one matrix: the exact minimum over all 2^(n−1) sign
    vectors (x and −x give the same value), then r ≤ disc(A)/√n on a decimal grid."""

    name: ClassVar[str] = "spencer-discrepancy"
    contract_files: ClassVar[tuple[str, ...]] = ("spencer-discrepancy.toml",)  # in obligations/
    records_package: ClassVar[str | None] = "mathloop.targets.spencer_discrepancy"
    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.Discrepancy",)  # in lean/Mathloop/
    definition_only: ClassVar[bool] = True  # C10c ≥ disc(A)/√n for each admissible A, by C10c's definition
    bound_name: ClassVar[str] = BOUND
    symbol: ClassVar[str] = BOUND
    rules: ClassVar[PayloadRules] = PayloadRules(parse_payload, schema, read_candidate, MAX_FILE_BYTES)
    candidate_file_note: ClassVar[str] = ("The checker also reads a JSON list of rows, or a text file with one row of "
                                          "the matrix per line. Every entry is taken exactly as printed.")
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

    def configure(self, contract: Contract) -> None:
        """Read the grid digits and the limits of a {"matrix": [[entry, ...], ...]} payload. Raises ContractError."""
        p, lim = contract_tables(contract, _Parameters, _Limits)
        self.digits = p.grid_digits
        self.limits = Limits(max_n=lim.max_n, max_denominator=lim.max_denominator,
                             max_payload_bytes=lim.max_payload_bytes)

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
                    RATIO: self.goal_outcome(r, self.digits)}
        if self.beyond_record(r):  # a new record: the Gray-code walk must find the same minimum
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

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded optimiser (covering codes and local search over sign matrices; see proposer.py)."""
        from mathloop.targets.spencer_discrepancy.proposer import DiscrepancyProposer

        return DiscrepancyProposer(self, seed)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering of the finite check (see lean_claims), or None."""
        from mathloop.targets.spencer_discrepancy.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence)

    def describe(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "17×17 matrix"."""
        return f"{len(state['matrix'])}×{len(state['matrix'])} matrix"

