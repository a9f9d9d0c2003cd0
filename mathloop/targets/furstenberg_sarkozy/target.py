"""Target `furstenberg-sarkozy`: C4b ≥ ½(1 + log|R|/log m) for a squarefree m and residues R mod m with no two
distinct ones differing by a square mod m (Ruzsa's base-m construction), certified in integers."""

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
from mathloop.targets.furstenberg_sarkozy import residues as res
from mathloop.targets.furstenberg_sarkozy.schema import Candidate, Limits, parse_payload, schema
from mathloop.targets.table_constant import PayloadRules, TableConstant, contract_tables

BOUND = "C4b"
CONSTRUCTION = "ruzsa-construction"
INPUT, SQUAREFREE, DIFFERENCES, EXPONENT = "residues", "squarefree", "no-square-difference", "exponent-bound"


class _Parameters(Table):
    max_denominator: Annotated[int, int_in(10, 10_000_000)] = None


class _Limits(Table):
    max_modulus: Annotated[int, int_in(2, 100_000_000)] = None
    max_residues: Annotated[int, int_in(1, 20_000)] = None
    max_payload_bytes: Annotated[int, int_in(64, 10_000_000)] = None


class FurstenbergSarkozy(TableConstant):
    """Lower bounds on the Furstenberg–Sárközy exponent C4b from one residue set (see residues.py)."""

    name: ClassVar[str] = "furstenberg-sarkozy"
    contract_files: ClassVar[tuple[str, ...]] = ("furstenberg-sarkozy.toml",)  # in obligations/
    records_package: ClassVar[str | None] = "mathloop.targets.furstenberg_sarkozy"
    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.SquareDifference",)  # in lean/Mathloop/
    bound_name: ClassVar[str] = BOUND
    symbol: ClassVar[str] = BOUND
    rules: ClassVar[PayloadRules] = PayloadRules(parse_payload, schema, file_floor=1_000_000)
    version: ClassVar[str] = "1"
    checks: ClassVar[Mapping[str, Trust]] = {INPUT: Trust.EXACT, SQUAREFREE: Trust.EXACT, DIFFERENCES: Trust.EXACT,
                                             EXPONENT: Trust.EXACT}
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required(CONSTRUCTION, Kind.HYPOTHESIS),
        Required(INPUT, Kind.INPUT, INPUT),
        Required(SQUAREFREE, Kind.CHECK, SQUAREFREE),
        Required(DIFFERENCES, Kind.CHECK, DIFFERENCES),
        Required(EXPONENT, Kind.BOUND, EXPONENT, BOUND, Direction.MAXIMIZE),
    )
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor(f"bounds.{BOUND}.class_maximum", Fraction(1), at_most=True, why="trivially r(N) ≤ N: C4b ≤ 1"),)

    def configure(self, contract: Contract) -> None:
        """Read the largest denominator q of the exponent's rational bound and the limits of a {"modulus": m,
        "residues": [...]} payload. Raises ContractError."""
        p, lim = contract_tables(contract, _Parameters, _Limits)
        self.max_q = p.max_denominator
        self.limits = Limits(max_modulus=lim.max_modulus, max_residues=lim.max_residues,
                             max_payload_bytes=lim.max_payload_bytes)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Candidate) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        t0 = time.perf_counter()
        m, R = candidate.modulus, list(candidate.residues)
        square_factor = res.squarefree(m)
        bad, pairs = _square_differences(m, R)
        timings = {"checks": time.perf_counter() - t0}
        outcomes = {INPUT: Outcome(Verdict.PROVED, Trust.EXACT)}
        outcomes[SQUAREFREE] = Outcome(Verdict.PROVED, Trust.EXACT) if square_factor is None else Outcome(
            Verdict.REFUTED, Trust.EXACT, (f"{square_factor}² divides the modulus {m}",))
        outcomes[DIFFERENCES] = Outcome(Verdict.PROVED, Trust.EXACT) if bad == 0 else Outcome(
            Verdict.REFUTED, Trust.EXACT, (f"{bad} ordered pairs of residues differ by a square mod {m}",
                                           *(f"{r} − {s} ≡ a square mod {m}" for r, s in pairs[:3])), rank=bad)
        bounds: dict[str, Fraction] = {}
        artifacts: dict[str, Any] = {}
        if square_factor is None and bad == 0:
            t1 = time.perf_counter()
            r = res.certified_exponent(m, len(R), self.max_q)
            timings["exponent"] = time.perf_counter() - t1
            if self.beyond_record(r):  # a new record: a plain second pass over the pairs must agree
                if res.square_differences(m, R)[0] != 0:
                    raise CheckerCrash("the two square-difference checks disagree (a checker bug)")
            bounds[BOUND] = r
            artifacts["certificate"] = {"r": fraction_str(r), **res.exponent_certificate(m, len(R), r)}
            outcomes[EXPONENT] = self.goal_outcome(r, 10)
        else:
            outcomes[EXPONENT] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("the residue set does not qualify",))
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.payload(), artifacts=artifacts,
                        precision={"arithmetic": "exact integers", "max_q": self.max_q}, timings=timings)

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded search over moduli and residue sets (see proposer.py)."""
        from mathloop.targets.furstenberg_sarkozy.proposer import ResidueProposer

        return ResidueProposer(self, seed)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering of the finite checks (see lean_claims), or None."""
        from mathloop.targets.furstenberg_sarkozy.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence)

    def describe(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "12 residues mod 205"."""
        return f"{len(state['residues'])} residues mod {state['modulus']}"


def _square_differences(m: int, R: list[int]) -> tuple[int, list[tuple[int, int]]]:
    """Return (ordered pairs of distinct residues differing by a square mod m, a few of them), in numpy."""
    import numpy as np

    x = np.arange(m, dtype=np.int64)
    is_square = np.zeros(m, dtype=bool)
    is_square[(x * x) % m] = True
    r = np.array(R, dtype=np.int64)
    bad, pairs = 0, []
    for start in range(0, len(r), 2000):  # 2000 × |R| differences at a time
        d = np.mod(r[start:start + 2000, None] - r[None, :], m)
        hit = is_square[d]
        hit[np.arange(len(d)), np.arange(start, start + len(d))] = False  # r − r = 0 is no pair
        bad += int(hit.sum())
        for i, j in np.argwhere(hit)[: max(0, 10 - len(pairs))]:
            pairs.append((int(r[start + i]), int(r[j])))
    return bad, pairs

