"""The shannon-capacity-c7 target: Θ(C7) ≥ |S|^{1/n} for an independent set S of C7^⊠n, certified exactly."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Mapping


from mathloop.contract.model import Contract, ContractError
from mathloop.contract.rules import Floor, Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.shannon_capacity_c7 import graph, published
from mathloop.targets.shannon_capacity_c7.formats import MAX_FILE_BYTES, read_candidate
from mathloop.targets.shannon_capacity_c7.schema import Candidate, Limits, parse_payload, schema
from mathloop.targets.table_constant import PayloadRules, TableConstant

if TYPE_CHECKING:
    from mathloop.targets.form import ProposalForm

BOUND = "capacity"
INPUT, INDEPENDENT, CAPACITY = "vertex-set", "independent", "capacity-bound"
# Lovász: Θ(C7) ≤ ϑ(C7) = 3.31766720...; no contract may raise the class maximum above 3.3177.
THETA_CEILING = Fraction(33177, 10000)
MAX_N = 10  # C7^⊠10 has 282 million vertices; codes fit in int64 and the grouped check (buckets.py) stays fast
MAX_VERTICES = 200_000
PAIRWISE_UP_TO = 2000  # up to this many vertices the m×m pairwise check (graph.conflicts), above it the grouped one
SECOND_PATH_PLAIN = 5_000_000  # |S|·3^n up to which the second path is graph.independent_plain (pure Python)


class ShannonCapacityC7(TableConstant):
    """Checks independent sets of C7^⊠n; the bound is the grid-rounded |S|^{1/n}."""

    name: ClassVar[str] = "shannon-capacity-c7"
    definition_only: ClassVar[bool] = True  # Θ(C7) ≥ α(C7^⊠n)^{1/n} by Θ's definition: no theorem taken as given
    bound_name: ClassVar[str] = BOUND
    symbol: ClassVar[str] = "Θ(C7)"
    rules: ClassVar[PayloadRules] = PayloadRules(parse_payload, schema, read_candidate, MAX_FILE_BYTES)
    candidate_file_note: ClassVar[str] = ("The checker also reads a JSON list of vertices, or a text file with one "
                                          "vertex per line (coordinates separated by spaces or commas, or one word "
                                          "of n digits).")
    # in obligations/: powers up to 6 (the first lineage) and up to 10 (the 2026 record's C7^⊠10, a second lineage)
    contract_files: ClassVar[tuple[str, ...]] = ("shannon-capacity-c7.toml", "shannon-capacity-c7-wide.toml")
    records_package: ClassVar[str | None] = published.PACKAGE  # data/records.toml: constant 9a's published records
    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.ShannonC7",)  # in lean/Mathloop/
    version: ClassVar[str] = "1"
    checks: ClassVar[Mapping[str, Trust]] = {INPUT: Trust.EXACT, INDEPENDENT: Trust.EXACT, CAPACITY: Trust.EXACT}
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required(INPUT, Kind.INPUT, INPUT),
        Required(INDEPENDENT, Kind.CHECK, INDEPENDENT),
        Required(CAPACITY, Kind.BOUND, CAPACITY, BOUND, Direction.MAXIMIZE),
    )
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor(f"bounds.{BOUND}.class_maximum", THETA_CEILING, at_most=True,
              why="Lovász (1979): Θ(C7) ≤ ϑ(C7) = 7cos(π/7)/(1 + cos(π/7)) < 3.3177"),
        Floor("limits.max_n", Fraction(MAX_N), at_most=True, why="the independence checks are sized for n ≤ 10"),
    )

    def configure(self, contract: Contract) -> None:
        """Read the grid digits and the limits of a {"n": int, "vertices": [[int, ...], ...]} payload."""
        self.digits, self.limits = _settings(contract)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Candidate) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        t0 = time.perf_counter()
        import numpy as np  # imported where used: listing targets never loads numpy

        vertices = np.array(candidate.vertices, dtype=np.int8)
        if len(vertices) <= PAIRWISE_UP_TO:
            bad, adjacent, duplicates = graph.conflicts(vertices)
        else:
            from mathloop.targets.shannon_capacity_c7 import buckets

            bad, adjacent, duplicates = buckets.conflicts(vertices)
        timings = {"independence": time.perf_counter() - t0}
        size, n = len(candidate.vertices), candidate.n
        outcomes = {INPUT: Outcome(Verdict.PROVED, Trust.EXACT)}
        bounds: dict[str, Fraction] = {}
        artifacts: dict[str, Any] = {}
        if bad:
            why = [f"vertices {_pair(candidate, i, j)} are adjacent in C7^⊠{n}" for i, j in adjacent[:3]]
            why += [f"vertices {_pair(candidate, i, j)} are the same vertex" for i, j in duplicates[:3]]
            outcomes[INDEPENDENT] = Outcome(Verdict.REFUTED, Trust.EXACT, (f"{bad} bad pairs", *why), rank=bad)
            outcomes[CAPACITY] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("the set is not independent",))
        else:
            outcomes[INDEPENDENT] = Outcome(Verdict.PROVED, Trust.EXACT)
            r = graph.certified_root(size, n, self.digits)
            if r > published.record_bound():  # beyond the published record: a second code path must agree
                t1 = time.perf_counter()
                if not _second_path_independent(candidate, vertices):
                    raise CheckerCrash("the two independence checks disagree (a checker bug)")
                timings["second_path"] = time.perf_counter() - t1
            bounds[BOUND] = r
            artifacts["certificate"] = {"n": n, "size": size, "r": fraction_str(r), "grid_digits": self.digits,
                                        **graph.root_certificate(size, n, r)}
            outcomes[CAPACITY] = self.goal_outcome(r, self.digits)
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.payload(), artifacts=artifacts,
                        precision={"arithmetic": "exact integers", "grid": f"10^-{self.digits}"}, timings=timings)

    def proposal_form(self) -> "ProposalForm":
        """Return the code + words form (every reply maps to an independent set of C7^⊠5; see form.py)."""
        from mathloop.targets.shannon_capacity_c7.form import CodeForm

        return CodeForm(self.limits.max_n, self.parse).form()

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded local search over independent sets (see proposer.py)."""
        from mathloop.targets.shannon_capacity_c7.proposer import LocalProposer

        return LocalProposer(self, seed)

    def polish(self, payload: Any, seed: int) -> dict[str, Any] | None:
        """Return the local search's improvement of a (model-proposed) set, or None (n > 5, malformed)."""
        from mathloop.targets.shannon_capacity_c7.proposer import polish_payload

        return polish_payload(self, payload, seed)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering of the finite check (see lean_claims), or None."""
        from mathloop.targets.shannon_capacity_c7.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence)

    def describe(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "367 vertices in C7^⊠5"."""
        return f"{len(state['vertices'])} vertices in C7^⊠{state['n']}"


def _second_path_independent(candidate: Candidate, vertices: Any) -> bool:
    """Return the second, independent code path's answer: no two vertices equal or adjacent."""
    if len(vertices) * 3 ** candidate.n <= SECOND_PATH_PLAIN:
        return graph.independent_plain(list(candidate.vertices))
    from mathloop.targets.shannon_capacity_c7 import buckets

    return buckets.conflicts_by_pairs(vertices) == 0


def _pair(c: Candidate, i: int, j: int) -> str:
    return f"[{i}] {c.vertices[i]} and [{j}] {c.vertices[j]}"


def _settings(contract: Contract) -> tuple[int, Limits]:
    """Return (grid digits, limits). Raises ContractError naming the key."""
    p, lim = contract.parameters, contract.target_limits
    for table, allowed, where in ((p, {"grid_digits"}, "parameters"),
                                  (lim, {"max_n", "max_vertices", "max_payload_bytes"}, "limits")):
        for k in table:
            if k not in allowed:
                raise ContractError(contract.path, f"{where}.{k}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
        for k in allowed:
            if k not in table:
                raise ContractError(contract.path, f"{where}.{k}", "missing")
    digits = _int(contract, "parameters.grid_digits", p["grid_digits"], 1, 30)
    limits = Limits(max_n=_int(contract, "limits.max_n", lim["max_n"], 1, MAX_N),
                    max_vertices=_int(contract, "limits.max_vertices", lim["max_vertices"], 1, MAX_VERTICES),
                    max_payload_bytes=_int(contract, "limits.max_payload_bytes", lim["max_payload_bytes"], 64, 10_000_000))
    return digits, limits


def _int(contract: Contract, key: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ContractError(contract.path, key, f"must be an integer in [{lo}, {hi}]")
    return value
