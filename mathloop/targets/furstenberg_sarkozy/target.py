"""Target `furstenberg-sarkozy`: C4b ≥ ½(1 + log|R|/log m) for a squarefree m and residues R mod m with no two
distinct ones differing by a square mod m (Ruzsa's base-m construction), certified in integers."""

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
from mathloop.targets.furstenberg_sarkozy import residues as res
from mathloop.targets.furstenberg_sarkozy.schema import Candidate, Limits, parse_payload, schema

BOUND = "C4b"
CONSTRUCTION = "ruzsa-construction"
INPUT, SQUAREFREE, DIFFERENCES, EXPONENT = "residues", "squarefree", "no-square-difference", "exponent-bound"


class _Parameters(Table):
    max_denominator: Annotated[int, int_in(10, 10_000_000)] = None


class _Limits(Table):
    max_modulus: Annotated[int, int_in(2, 100_000_000)] = None
    max_residues: Annotated[int, int_in(1, 20_000)] = None
    max_payload_bytes: Annotated[int, int_in(64, 10_000_000)] = None


class FurstenbergSarkozy(Target):
    """Lower bounds on the Furstenberg–Sárközy exponent C4b from one residue set (see residues.py)."""

    name: ClassVar[str] = "furstenberg-sarkozy"
    contract_files: ClassVar[tuple[str, ...]] = ("furstenberg-sarkozy.toml",)  # in obligations/
    records_package: ClassVar[str | None] = "mathloop.targets.furstenberg_sarkozy"
    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.SquareDifference",)  # in lean/Mathloop/
    decides_by_goal: ClassVar[bool] = True
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

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.max_q, self.limits = _settings(contract)

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
        """Return the schema of {"modulus": m, "residues": [...]}."""
        return schema(self.limits)

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
            if self._beyond_record(r):  # a new record: a plain second pass over the pairs must agree
                if res.square_differences(m, R)[0] != 0:
                    raise CheckerCrash("the two square-difference checks disagree (a checker bug)")
            bounds[BOUND] = r
            artifacts["certificate"] = {"r": fraction_str(r), **res.exponent_certificate(m, len(R), r)}
            outcomes[EXPONENT] = self._bound_outcome(r)
        else:
            outcomes[EXPONENT] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("the residue set does not qualify",))
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.payload(), artifacts=artifacts,
                        precision={"arithmetic": "exact integers", "max_q": self.max_q}, timings=timings)

    def _bound_outcome(self, r: Fraction) -> Outcome:
        goal = self.contract.bound_spec(BOUND).goal
        if goal is None or r >= goal:
            return Outcome(Verdict.PROVED, Trust.EXACT)
        return Outcome(Verdict.UNKNOWN, Trust.EXACT, (f"certified C4b ≥ {decimal_str(r, 10)} is below the goal "
                                                      f"{decimal_str(goal, 10)}",))

    def _beyond_record(self, r: Fraction) -> bool:
        return r > max(Fraction(p.certified) for p in self.constant_records().published if p.certified)

    def read_candidate_file(self, path: Path) -> Any:
        """Return the strict JSON of a candidate file of at most the contract's payload limit (or 1 MB).

        Raises:
            InputError: unreadable, too large, not UTF-8 or not strict JSON (naming the file).
        """
        from mathloop.bounded import read_json

        return read_json(path, max(1_000_000, self.limits.max_payload_bytes), "--candidate")

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded search over moduli and residue sets (see proposer.py)."""
        from mathloop.targets.furstenberg_sarkozy.proposer import ResidueProposer

        return ResidueProposer(self, seed)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering of the finite checks (see lean_claims), or None."""
        from mathloop.targets.furstenberg_sarkozy.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "12 residues mod 205"."""
        try:
            return f"{len(state['residues'])} residues mod {state['modulus']}"
        except (KeyError, TypeError):
            return super().state_summary(state)


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


def _settings(contract: Contract) -> tuple[int, Limits]:
    """Return (the largest denominator q of the exponent's rational bound, limits). Raises ContractError."""
    p = validated(_Parameters, dict(contract.parameters), contract.path, "parameters")
    lim = validated(_Limits, dict(contract.target_limits), contract.path, "limits")
    return p.max_denominator, Limits(max_modulus=lim.max_modulus, max_residues=lim.max_residues,
                                     max_payload_bytes=lim.max_payload_bytes)
