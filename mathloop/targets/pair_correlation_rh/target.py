"""Target `pair-correlation-rh` (ASSUMING RH): B = 2 - J/int r-hat for piecewise-linear r-hat.

Evidence artifacts (JSON, rationals as "p/q"):
    "integrals":  rh_functional.RhFunctional.artifact(): h, A, mass (= int r-hat = r(0)),
                  first_moment (int_{-1}^{1} |alpha| r-hat), J, B and the identity used.
    "tail":       {"value_at_1": r-hat(1), "max_tail_node": max of nodes with j h >= 1 (or null)}.
    "positivity": the certificate that p(x) = c_0 + 2 sum c_j T_j(x) >= 0 on [-1, 1], i.e.
                  P(theta) >= 0 on [0, pi] (cosine_positivity keys: method, interval, unit,
                  odd_degree, endpoint_roots, sign, cells, cell_count, max_depth, variable, degree,
                  status, and witness_x for a refutation).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import Contract, ContractError
from mathloop.contract.rules import Required, proportion_ceiling
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash, Malformed, Target
from mathloop.targets.form import ProposalForm
from mathloop.targets.pair_correlation_rh.form import PairCorrelationForm
from mathloop.targets.evidence import Outcome, assemble, int_limit
from mathloop.targets.payload import PayloadSpec, Rational, RationalList
from mathloop.targets.pair_correlation_rh.functional import b_by_quadrature, rh_functional, value_at

CROSS_CHECK_DPS = (30, 45)


@dataclass(frozen=True)
class PiecewiseLinear:
    """A parsed candidate: r-hat(j h) = nodes[j], j = 0 .. A/h - 1, r-hat(A) = 0."""

    h: Fraction
    A: Fraction
    nodes: tuple[Fraction, ...]

    def payload(self) -> dict[str, Any]:
        return {"h": fraction_str(self.h), "A": fraction_str(self.A), "nodes": [fraction_str(c) for c in self.nodes]}


class PairCorrelationRH(Target):
    """Montgomery's pair correlation with Cohn–Elkies-type r (Chirre–Gonçalves–de Laat), assuming RH."""

    name = "pair-correlation-rh"
    # the wide lineage (issue 36): the same checker with up to 1600 nodes and A up to 16
    contract_files = ("pair-correlation-rh.toml", "pair-correlation-rh-wide.toml")  # in obligations/
    version = "1"
    checks = {
        "tail_sign": Trust.EXACT,
        "mass": Trust.EXACT,
        "cosine_positivity": Trust.EXACT,
        "functional": Trust.EXACT,
        "bound": Trust.EXACT,
    }
    # B = 2 - J / int r-hat bounds the proportion only for r >= 0, r-hat <= 0 beyond 1, mass > 0,
    # and only assuming RH (through Montgomery and the CGdL reduction): no contract may drop these.
    required_obligations = (
        Required("riemann-hypothesis", Kind.HYPOTHESIS),
        Required("montgomery-pair-correlation", Kind.HYPOTHESIS),
        Required("cgdl-reduction", Kind.HYPOTHESIS),
        Required("rhat-nonpositive-tail", Kind.CHECK, "tail_sign"),
        Required("mass-positive", Kind.CHECK, "mass"),
        Required("r-nonnegative", Kind.CHECK, "cosine_positivity"),
        Required("functional-exact", Kind.CHECK, "functional"),
        Required("proportion-bound", Kind.BOUND, "bound", "proportion", Direction.MAXIMIZE),
    )
    limit_floors = (proportion_ceiling("proportion"),)

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        lim = contract.limits
        self.max_nodes = int(lim["max_nodes"])
        self.max_digits = int(lim["max_digits"])
        self.max_cells = int(lim["max_cells"])
        self.h_min = Fraction(lim["h_min"])
        self.a_max = Fraction(lim["A_max"])

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        super().validate_contract(contract)
        int_limit(contract, "max_nodes", 1, 5000)
        int_limit(contract, "max_digits", 1, 200)
        int_limit(contract, "max_cells", 1, 10_000_000)
        for key in ("h_min", "A_max"):
            v = contract.limits.get(key)
            try:
                q = Fraction(v) if isinstance(v, str) else None
            except (ValueError, ZeroDivisionError):
                q = None
            if q is None or q <= 0:
                raise ContractError(contract.path, f"limits.{key}", "must be a positive rational string")
        cls.parsed_seed(contract)

    @property
    def spec(self) -> PayloadSpec:
        """Return the payload spec {"h": ..., "A": ..., "nodes": [...]} (node values r-hat(j h), j < A/h)."""
        node = Rational(max_chars=self.max_digits + 8, max_digits=self.max_digits)
        step = Rational(max_chars=38, max_digits=30)
        return PayloadSpec((("h", step), ("A", step), ("nodes", RationalList(node, self.max_nodes))))

    def candidate_schema(self) -> dict[str, Any]:
        return self.spec.schema()

    def proposal_form(self) -> ProposalForm:
        """Return the body/tail form on the seed's grid (exact node counts, r-hat <= 0 on [1, A] by construction)."""
        seed = self.parse(self.seed_payload())
        return PairCorrelationForm(seed.h, seed.A, self.parse).form() or super().proposal_form()

    def parse(self, payload: Any) -> PiecewiseLinear:
        """Return the piecewise-linear r-hat. Raises Malformed("<field>: reason")."""
        p = self.spec.parse(payload)
        h, A, nodes = p["h"], p["A"], p["nodes"]
        if h <= 0:
            raise Malformed("h: must be > 0")
        if h < self.h_min:
            raise Malformed(f"h: below the limit {fraction_str(self.h_min)}")
        if A <= 0:
            raise Malformed("A: must be > 0")
        if A > self.a_max:
            raise Malformed(f"A: above the limit {fraction_str(self.a_max)}")
        n = A / h
        if n.denominator != 1:
            raise Malformed("A: A/h must be an integer")
        if n > self.max_nodes:
            raise Malformed(f"nodes: A/h = {n} exceeds the limit {self.max_nodes}")
        if len(nodes) != n:
            raise Malformed(f"nodes: expected A/h = {n} values (j = 0 .. A/h - 1), got {len(nodes)}")
        return PiecewiseLinear(h, A, nodes)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: PiecewiseLinear) -> Evidence:
        t0 = time.perf_counter()
        h, A, nodes = candidate.h, candidate.A, candidate.nodes
        outcomes: dict[str, Outcome] = {}
        # r-hat <= 0 on [1, A]: it is linear between nodes, so r-hat(1) and the nodes beyond 1 decide
        at_one = value_at(h, nodes, Fraction(1))
        tail = [c for j, c in enumerate(nodes) if j * h >= 1]
        bad = [j for j, c in enumerate(nodes) if j * h >= 1 and c > 0]
        if at_one <= 0 and not bad:
            outcomes["tail_sign"] = Outcome(Verdict.PROVED, Trust.EXACT, ("r-hat(1) <= 0 and every node with j h >= 1 is <= 0",))
        else:
            where = f"node j = {bad[0]} (alpha = {fraction_str(bad[0] * h)})" if bad else f"alpha = 1 (value {fraction_str(at_one)})"
            outcomes["tail_sign"] = Outcome(Verdict.REFUTED, Trust.EXACT, (f"r-hat > 0 at {where}, where |alpha| >= 1",))
        f = rh_functional(h, A, nodes)
        if f.mass > 0:
            outcomes["mass"] = Outcome(Verdict.PROVED, Trust.EXACT, (f"int r-hat = {fraction_str(f.mass)}",))
        else:
            outcomes["mass"] = Outcome(Verdict.REFUTED, Trust.EXACT, (f"int r-hat = {fraction_str(f.mass)} is not > 0",))
        # numpy (cosine_positivity) and mpmath are imported on use: every command lists the targets
        from mathloop.targets.pair_correlation_rh.cosine_positivity import certify_cosine_nonnegative, sample_minimum

        t1 = time.perf_counter()
        rep = certify_cosine_nonnegative(nodes, max_cells=self.max_cells)
        t2 = time.perf_counter()
        positivity = {**rep.certificate, "status": rep.status}
        if rep.witness is not None:
            positivity["witness_x"] = rep.witness
        if rep.status == "nonnegative":
            if sample_minimum(nodes) < -1e-9 * float(sum(abs(c) for c in nodes)):
                raise CheckerCrash("cosine_positivity: certified P >= 0 but a float sample is clearly negative")
            outcomes["cosine_positivity"] = Outcome(Verdict.PROVED, Trust.EXACT, (rep.reason,))
        elif rep.status == "negative":
            outcomes["cosine_positivity"] = Outcome(Verdict.REFUTED, Trust.EXACT, (f"P(theta) < 0 somewhere on [0, pi] (r < 0 somewhere): {rep.reason}",))
        else:
            outcomes["cosine_positivity"] = Outcome(Verdict.UNKNOWN, Trust.EXACT, (rep.reason,))
        value = None
        if f.mass > 0:
            self._cross_check(h, nodes, f.B)
            outcomes["functional"] = Outcome(Verdict.PROVED, Trust.EXACT, (f"J = {fraction_str(f.J)}",))
            value = f.B
        else:
            outcomes["functional"] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("B is not a bound unless int r-hat > 0",))
        outcomes["bound"] = Outcome(Verdict.PROVED, Trust.EXACT)
        t3 = time.perf_counter()
        return assemble(
            self.contract,
            checker=self.name,
            version=self.version,
            outcomes=outcomes,
            value=value,
            state=candidate.payload(),
            artifacts={
                "integrals": f.artifact(),
                "tail": {"value_at_1": at_one, "max_tail_node": max(tail) if tail else None},
                "positivity": positivity,
            },
            precision={
                "functional": "exact rationals (Fraction)",
                "positivity": "exact (x = cos theta; flint square-free decomposition + Descartes bisection)",
                "cross_check": f"mpmath Simpson per linear piece at {CROSS_CHECK_DPS} dps; float sample of P at 4001 points",
            },
            timings={"tail_and_integrals": t1 - t0, "positivity": t2 - t1, "cross_check": t3 - t2},
        )

    def _cross_check(self, h: Fraction, nodes: tuple[Fraction, ...], B: Fraction) -> None:
        """Raise CheckerCrash unless mpmath at two precisions agrees with the exact B."""
        import mpmath

        for dps in CROSS_CHECK_DPS:
            with mpmath.workdps(dps):
                exact = mpmath.mpf(B.numerator) / B.denominator
                err = abs(b_by_quadrature(h, nodes, dps) - exact)
                # relative to the size of B: a tiny mass makes B huge, and the tolerance must scale
                if err > mpmath.mpf(10) ** (-(dps // 2)) * max(1, abs(exact)):
                    raise CheckerCrash(f"functional: mpmath at {dps} dps differs from the exact B by {mpmath.nstr(err, 5)}")

    def local_proposer(self, seed: int) -> Proposer:
        from mathloop.targets.pair_correlation_rh.proposer import LpProposer

        return LpProposer(self, seed)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        return f"h={state.get('h')}, A={state.get('A')}, {len(state.get('nodes', []))} nodes"
