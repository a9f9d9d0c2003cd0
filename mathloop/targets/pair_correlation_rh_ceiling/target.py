"""Target `pair-correlation-rh-ceiling` (ASSUMING RH): certified ceiling = 2 - L for the RH class.

Evidence artifacts (JSON, rationals as "p/q"):
    "conditions": the exact checks' reasons (line, floor, support, masses) and L.
    "mass_floor": (only when 2W >= 1) the Arb certificate of a(t) = 1 + 2 sum w_i cos(2 pi b_i t) > 0
                  on [0, period/2], with a witness when refuted.
    "range":      conditions.Range.artifact(): end, method (period or tail), period, tail_end (None if 2W >= 1).
    "positivity": arb_positivity certificate (method, range, cell_count, max_depth, min_lower_bound,
                  min_cell, cells_sha256, precision_bits, third_derivative_bound, status) and, for
                  a refutation, witness_t / witness_x (rational) and witness_value_upper.
    "cross_check": the float sample minimum (decimal strings) and the mpmath points checked.
"""

from __future__ import annotations

import time
from dataclasses import astuple, replace
from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import Contract, ContractError
from mathloop.contract.rules import Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash, Target
from mathloop.targets.evidence import Outcome, assemble, int_limit
from mathloop.targets.pair_correlation_rh_ceiling import conditions
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate, Limits, parse_candidate, schema
from mathloop.targets.pair_correlation_rh_ceiling.knots import KnotLimits, knot_schema, parse_knot_candidate

BOUND_NAME = "ceiling"
LEMMA_REASON = ("weak duality J(r) >= L r(0) on the class: proved on paper (Parseval + signs; contract statement and "
                "package docstring), not machine-checked; it applies to every k of this form (even, piecewise linear "
                "with compact support, finitely many point masses)")


class PairCorrelationRHCeiling(Target):
    """A dual certificate k for the Chirre–Gonçalves–de Laat class (see the package docstring)."""

    name = "pair-correlation-rh-ceiling"
    # the wide lineage (issue 24): knot-form duals, A up to 120, the kink checker (`parameters.form = "knots"`)
    contract_files = ("pair-correlation-rh-ceiling.toml", "pair-correlation-rh-ceiling-wide.toml")  # in obligations/
    version = "1"
    ceiling_of = ("pair-correlation-rh", "proportion", "ceiling")  # every B(r) of that class is <= 2 - L
    checks = {
        "line": Trust.EXACT,
        "floor": Trust.EXACT,
        "support": Trust.EXACT,
        "masses": Trust.EXACT,
        "mass_floor": Trust.RIGOROUS,
        "dual_positivity": Trust.RIGOROUS,
        "weak_duality": Trust.HYPOTHESIS,
        "bound": Trust.EXACT,
    }
    # 2 - L caps the class only through the weak-duality lemma and (i)-(iii); what it caps is
    # RH-conditional: no contract may drop these.
    required_obligations = (
        Required("riemann-hypothesis", Kind.HYPOTHESIS),
        Required("montgomery-pair-correlation", Kind.HYPOTHESIS),
        Required("weak-duality", Kind.LEMMA, "weak_duality"),
        Required("k-on-the-line", Kind.CHECK, "line"),
        Required("k-above-floor", Kind.CHECK, "floor"),
        Required("k-supported", Kind.CHECK, "support"),
        Required("masses-admissible", Kind.CHECK, "masses"),
        Required("mass-cosines-nonnegative", Kind.CHECK, "mass_floor"),
        Required("dual-nonnegative", Kind.CHECK, "dual_positivity"),
        Required("ceiling-bound", Kind.BOUND, "bound", BOUND_NAME, Direction.MINIMIZE),
    )

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        lim = contract.limits
        self.limits = Limits(int(lim["max_inv_h"]), Fraction(lim["A_max"]), int(lim["max_nodes"]),
                             int(lim["max_digits"]), int(lim["max_masses"]))
        self.max_cells = int(lim["max_cells"])
        self.knot_form = contract.parameters.get("form", "nodes") == "knots"
        self.knot_limits = (KnotLimits(*astuple(self.limits), int(lim["max_knots"])) if self.knot_form else None)

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        super().validate_contract(contract)
        int_limit(contract, "max_inv_h", 1, 2000)
        int_limit(contract, "max_nodes", 2, 100001)  # the wide lineage expands up to 48001 nodes
        int_limit(contract, "max_digits", 1, 200)
        int_limit(contract, "max_masses", 0, 1024)
        int_limit(contract, "max_cells", 1, 50_000_000)
        v = contract.limits.get("A_max")
        try:
            q = Fraction(v) if isinstance(v, str) else None
        except (ValueError, ZeroDivisionError):
            q = None
        if q is None or q < 1:
            raise ContractError(contract.path, "limits.A_max", "must be a rational string >= 1")
        form = contract.parameters.get("form", "nodes")
        if set(contract.parameters) - {"form"} or form not in ("nodes", "knots"):
            raise ContractError(contract.path, "parameters", 'only `form` = "nodes" (every node) or "knots" is known')
        if form == "knots":
            int_limit(contract, "max_knots", 1, 20000)
        cls.parsed_seed(contract)

    def candidate_schema(self) -> dict[str, Any]:
        return knot_schema(self.knot_limits) if self.knot_limits is not None else schema(self.limits)

    def parse(self, payload: Any) -> DualCandidate:
        """Return the dual candidate (knot form in the wide lineage). Raises Malformed("<field>: reason")."""
        if self.knot_limits is not None:
            return parse_knot_candidate(payload, self.knot_limits)
        return parse_candidate(payload, self.limits)

    def _positivity(self, c: DualCandidate, end: Fraction):
        """Return the Arb verdict on f > 0 over [0, end]: through the kinks in the wide lineage, else the monomials."""
        if self.knot_form:
            from mathloop.targets.pair_correlation_rh_ceiling.kink_positivity import certify_kinks_positive

            return certify_kinks_positive(c, end, max_cells=self.max_cells)
        from mathloop.targets.pair_correlation_rh_ceiling.arb_positivity import certify_dual_positive

        return certify_dual_positive(c, end, max_cells=self.max_cells)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: DualCandidate) -> Evidence:
        from mathloop.targets.pair_correlation_rh_ceiling import cross_check  # numpy, mpmath: imported on use

        t0 = time.perf_counter()
        c = candidate
        outcomes: dict[str, Outcome] = {}
        exact = {"line": conditions.on_the_line(c), "floor": conditions.above_floor(c),
                 "support": conditions.supported(c), "masses": conditions.masses_ok(c)}
        for key, (ok, why) in exact.items():
            outcomes[key] = Outcome(Verdict.PROVED if ok else Verdict.REFUTED, Trust.EXACT, (why,))
        outcomes["weak_duality"] = Outcome(Verdict.PROVED, Trust.HYPOTHESIS, (LEMMA_REASON,))
        artifacts: dict[str, Any] = {"conditions": {k: why for k, (_, why) in exact.items()} | {"L": c.L}}
        t1 = time.perf_counter()
        floor = self._mass_floor(c, exact["masses"][0], artifacts)
        outcomes["mass_floor"] = floor
        if exact["masses"][0] and exact["support"][0] and floor.verdict is Verdict.PROVED:
            rng = conditions.reduced_range(c)
            artifacts["range"] = rng.artifact()
            rep = self._positivity(c, rng.end)
            positivity: dict[str, Any] = {**rep.certificate, "status": rep.status}
            t2 = time.perf_counter()
            if rep.status == "positive":
                artifacts["cross_check"] = self._cross_check(c, rng.end, rep.lowest, rep.certificate["min_lower_bound"])
                outcomes["dual_positivity"] = Outcome(Verdict.PROVED, Trust.RIGOROUS, (rep.reason,))
            elif rep.status == "negative":
                assert rep.witness is not None
                positivity |= {"witness_t": rep.witness, "witness_x": rep.witness / c.h}
                outcomes["dual_positivity"] = Outcome(Verdict.REFUTED, Trust.RIGOROUS, (rep.reason,))
            else:
                outcomes["dual_positivity"] = Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, (rep.reason,))
            artifacts["positivity"] = positivity
        else:
            t2 = time.perf_counter()
            why = ("not attempted: the range reduction needs k(A) = 0 and valid masses"
                   if not (exact["masses"][0] and exact["support"][0]) else
                   "not attempted: the period reduction needs a(t) >= 0 (mass-cosines-nonnegative)")
            outcomes["dual_positivity"] = Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, (why,))
        outcomes["bound"] = Outcome(Verdict.PROVED, Trust.EXACT)
        t3 = time.perf_counter()
        return assemble(
            self.contract, checker=self.name, version=self.version, outcomes=outcomes, value=c.ceiling,
            state=c.payload(), artifacts=artifacts,
            precision={
                "conditions": "exact rationals (Fraction)",
                "range": "exact: period lcm, or T^2 (1 - 2W) 986/100 >= h S",
                "positivity": ("Arb balls (python-flint) at 192 bits, third-order Taylor cells over the kinks with a local "
                               "fourth-derivative bound" if self.knot_form else
                               "Arb balls (python-flint), second-order Taylor cells with an exact third-derivative bound"),
                "cross_check": f"mpmath at {cross_check.DPS} dps at the lowest cells; float sample of f",
            } | ({"mass_floor": "Arb cells as for positivity, on [0, period/2]; float sample of a"}
                 if "mass_floor" in artifacts else {}),  # light masses: evidence as before heavy masses existed
            timings={"conditions": t1 - t0, "positivity": t2 - t1, "cross_check": t3 - t2},
        )

    def _mass_floor(self, c: DualCandidate, admissible: bool, artifacts: dict[str, Any]) -> Outcome:
        """Return the outcome of a(t) = 1 + 2 sum w_i cos(2 pi (a_i/h) t) >= 0 (exact when 2W < 1, else Arb)."""
        from mathloop.targets.pair_correlation_rh_ceiling import cross_check  # numpy, mpmath: imported on use
        from mathloop.targets.pair_correlation_rh_ceiling.arb_positivity import certify_mass_floor

        if not admissible:
            return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, ("not attempted: the masses are not admissible",))
        if conditions.light_masses(c):
            return Outcome(Verdict.PROVED, Trust.EXACT, (
                f"a(t) >= 1 - 2W = {fraction_str(1 - 2 * conditions.mass_sum(c))} > 0 (exact)",))
        end = Fraction(conditions.period(c), 2)  # a is even and periodic: [0, period/2] suffices
        rep = certify_mass_floor(c, end, max_cells=self.max_cells)
        floor: dict[str, Any] = {**rep.certificate, "status": rep.status}
        if rep.status == "negative":
            assert rep.witness is not None
            floor |= {"witness_t": rep.witness, "witness_x": rep.witness / c.h}
        if rep.status == "positive":  # a float sample must agree (never a proof; a disagreement is a bug)
            t, v = cross_check.sample_minimum(replace(c, nodes=(Fraction(0), Fraction(0))), end)
            if v < -1e-9 * cross_check.scale(c):
                raise CheckerCrash(f"mass_floor: certified positive but a float sample gives a({t:.12g}) = {v:.3e}")
            floor |= {"sample_min_t": f"{t:.12g}", "sample_min_a": f"{v:.6e}"}
        artifacts["mass_floor"] = floor
        verdict = {"positive": Verdict.PROVED, "negative": Verdict.REFUTED}.get(rep.status, Verdict.UNKNOWN)
        return Outcome(verdict, Trust.RIGOROUS, (rep.reason,))

    @staticmethod
    def _cross_check(c: DualCandidate, end: Fraction, lowest: tuple[Fraction, ...], floor: Fraction) -> dict[str, Any]:
        """Return the cross-check record; raise CheckerCrash if mpmath or a float sample disagrees."""
        from mathloop.targets.pair_correlation_rh_ceiling import cross_check  # numpy, mpmath: imported on use

        cross_check.check_points(c, lowest, floor)
        t, v = cross_check.sample_minimum(c, end)
        if v < -1e-9 * cross_check.scale(c):
            raise CheckerCrash(f"dual_positivity: certified positive but a float sample gives f({t:.12g}) = {v:.3e}")
        return {"mpmath_points": list(lowest), "sample_min_t": f"{t:.12g}", "sample_min_f": f"{v:.6e}"}

    def local_proposer(self, seed: int) -> Proposer:
        """Return the wide lineage's dense LP + mixing proposer (knot form), else the first lineage's LP proposer."""
        if self.knot_form:
            from mathloop.targets.pair_correlation_rh_ceiling.wide_proposer import WideProposer

            return WideProposer(self, seed)
        from mathloop.targets.pair_correlation_rh_ceiling.proposer import CeilingProposer

        return CeilingProposer(self, seed)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        masses = state.get("masses") or []
        return (f"h={state.get('h')}, A={state.get('A')}, L={state.get('L')}, {len(state.get('nodes', []))} nodes, "
                f"{len(masses)} mass(es)")
