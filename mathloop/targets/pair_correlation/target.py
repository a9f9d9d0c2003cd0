"""Target `pair-correlation`: B(g) = 2 - M(g) for even polynomials g >= 0 on [-1/2, 1/2], exact.

Evidence artifacts (JSON, rationals as "p/q"):
    "moments":    the functional's exact pieces (functional.Functional.artifact): g (coefficients in
                  x), C, g_squared, H_squared (coefficients), moments[n] = int_{-1/2}^{1/2} x^n,
                  int_g2, int_H2, M, B and the identity B = 3/2 - (int_g2 - 2 int_H2)/C^2 — a
                  rational identity a Lean rendering can check by `norm_num`/`decide`.
    "positivity": the certificate of g(x) = p(x^2) >= 0 (positivity module keys), in the variable
                  u = x^2 on [0, 1/4]: unit, factors (square-free decomposition with
                  multiplicities), odd_degree, endpoint_roots, sign, cells (Descartes cells) —
                  or the refutation's witness.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

import mpmath

from mathloop.contract.model import Contract
from mathloop.contract.rules import Required, proportion_ceiling
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash, Malformed, Target
from mathloop.targets.evidence import Outcome, assemble, int_limit
from mathloop.targets.pair_correlation.functional import functional, m_by_g_route, m_by_quadrature
from mathloop.targets.payload import PayloadSpec, Rational, RationalList
from mathloop.targets.positivity import certify_nonnegative

CROSS_CHECK_DPS = (30, 45)


@dataclass(frozen=True)
class EvenPolynomial:
    """A parsed candidate: g(x) = sum_k a[k] x^(2k)."""

    a: tuple[Fraction, ...]

    def payload(self) -> dict[str, list[str]]:
        return {"g": [fraction_str(c) for c in self.a]}


class PairCorrelation(Target):
    """Unconditional Montgomery–Taylor slice: certified B(g) for even polynomial g >= 0."""

    name = "pair-correlation"
    contract_files = ("pair-correlation.toml",)  # in obligations/
    lean_modules = ("Mathloop.PairCorrelation",)  # in lean/Mathloop/
    version = "1"
    checks = {
        "positivity": Trust.EXACT,
        "mass": Trust.EXACT,
        "functional": Trust.EXACT,
        "bound": Trust.EXACT,
    }
    # B(g) bounds the proportion only for g >= 0 with int g != 0, through the pair-correlation theorem.
    required_obligations = (
        Required("pair-correlation-theorem", Kind.HYPOTHESIS),
        Required("g-nonnegative", Kind.CHECK, "positivity"),
        Required("mass-nonzero", Kind.CHECK, "mass"),
        Required("functional-exact", Kind.CHECK, "functional"),
        Required("proportion-bound", Kind.BOUND, "bound", "proportion", Direction.MAXIMIZE),
    )
    limit_floors = (proportion_ceiling("proportion"),)

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.max_terms = int(contract.limits["max_terms"])
        self.max_digits = int(contract.limits["max_digits"])

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        super().validate_contract(contract)
        int_limit(contract, "max_terms", 1, 64)
        int_limit(contract, "max_digits", 1, 400)
        cls.parsed_seed(contract)

    @property
    def spec(self) -> PayloadSpec:
        """Return the payload spec {"g": [...]}: coefficients of x^0, x^2, x^4, ... as exact rationals."""
        rational = Rational(max_chars=self.max_digits + 8, max_digits=self.max_digits)
        return PayloadSpec((("g", RationalList(rational, self.max_terms, noun="coefficients")),))

    def candidate_schema(self) -> dict[str, Any]:
        return self.spec.schema()

    def parse(self, payload: Any) -> EvenPolynomial:
        """Return the even polynomial, trailing zeros removed. Raises Malformed("<field>: reason")."""
        a = self.spec.parse(payload)["g"]
        while len(a) > 1 and a[-1] == 0:
            a = a[:-1]  # canonical form: no trailing zero coefficients
        return EvenPolynomial(a)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: EvenPolynomial) -> Evidence:
        t0 = time.perf_counter()
        a = candidate.a
        u_poly = list(a)  # g(x) = p(u) with u = x^2 in [0, 1/4]
        rep = certify_nonnegative(u_poly, Fraction(0), Fraction(1, 4))
        t1 = time.perf_counter()
        positivity = {**rep.certificate, "variable": "u = x^2", "status": rep.status}
        if rep.witness is not None:
            positivity["witness_u"] = rep.witness
        outcomes: dict[str, Outcome] = {}
        if rep.status == "nonnegative":
            self._cross_check_sign(a)
            outcomes["positivity"] = Outcome(Verdict.PROVED, Trust.EXACT, (rep.reason,))
        elif rep.status == "negative":
            outcomes["positivity"] = Outcome(Verdict.REFUTED, Trust.EXACT, (f"g < 0 somewhere on [-1/2, 1/2]: {rep.reason}",))
        else:
            outcomes["positivity"] = Outcome(Verdict.UNKNOWN, Trust.EXACT, (rep.reason,))
        artifacts: dict[str, Any] = {"positivity": positivity}
        value = None
        try:
            f = functional(a)
        except ZeroDivisionError:
            outcomes["mass"] = Outcome(Verdict.REFUTED, Trust.EXACT, ("C = int g = 0",))
            outcomes["functional"] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("M(g) undefined when C = 0",))
        else:
            outcomes["mass"] = Outcome(Verdict.PROVED, Trust.EXACT, (f"C = {fraction_str(f.C)}",))
            self._cross_check_value(a, f.M)
            outcomes["functional"] = Outcome(Verdict.PROVED, Trust.EXACT, (f"M(g) = {fraction_str(f.M)}",))
            artifacts["moments"] = f.artifact()
            value = f.B
        outcomes["bound"] = Outcome(Verdict.PROVED, Trust.EXACT)
        t2 = time.perf_counter()
        return assemble(
            self.contract,
            checker=self.name,
            version=self.version,
            outcomes=outcomes,
            value=value,
            state=candidate.payload(),
            artifacts=artifacts,
            precision={
                "functional": "exact rationals (Fraction)",
                "positivity": "exact (flint square-free decomposition + Descartes bisection)",
                "cross_check": f"mpmath quadrature at {CROSS_CHECK_DPS} dps; exact second route via G",
            },
            timings={"positivity": t1 - t0, "functional": t2 - t1},
        )

    def _cross_check_value(self, a: tuple[Fraction, ...], M: Fraction) -> None:
        """Raise CheckerCrash unless two exact routes agree and mpmath agrees at two precisions."""
        if m_by_g_route(a) != M:
            raise CheckerCrash("functional: the two exact routes to M(g) disagree")
        scale = sum(abs(c) for c in a) / abs(functional(a).C)
        for dps in CROSS_CHECK_DPS:
            with mpmath.workdps(dps):
                err = abs(m_by_quadrature(a, dps) - mpmath.mpf(M.numerator) / M.denominator)
                tol = mpmath.mpf(10) ** (-(dps // 2)) * (1 + mpmath.mpf(scale.numerator) / scale.denominator) ** 2
                if err > tol:
                    raise CheckerCrash(f"functional: mpmath at {dps} dps differs from the exact M(g) by {mpmath.nstr(err, 5)}")

    def _cross_check_sign(self, a: tuple[Fraction, ...]) -> None:
        """Raise CheckerCrash if a certified-nonnegative g is clearly negative at a sample point."""
        scale = float(sum(abs(c) for c in a))
        for i in range(201):
            u = i / 800.0
            v = sum(float(c) * u**k for k, c in enumerate(a))
            if v < -1e-9 * scale:
                raise CheckerCrash(f"positivity: certified g >= 0 but g(sqrt({u})) ~ {v}")

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering (see lean_claims), or None without a certificate."""
        from mathloop.targets.pair_correlation.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence)

    def local_proposer(self, seed: int) -> Proposer:
        from mathloop.targets.pair_correlation.proposer import PolynomialProposer

        return PolynomialProposer(self, seed)

    def polish(self, payload: Any, seed: int) -> Any | None:
        from mathloop.targets.pair_correlation.proposer import polished

        try:
            cand = self.parse(payload)
        except Malformed:
            return None
        return polished(len(cand.a), self.max_digits)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        g = state.get("g", [])
        return f"g of degree {2 * (len(g) - 1)}: " + ", ".join(g)[:160]
