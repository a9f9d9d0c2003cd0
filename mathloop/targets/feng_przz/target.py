"""The feng-przz target: κ >= 1 − log(c(P₁..P_K, Q, R, θ))/R for Feng's mollifier (PRZZ's K = 3), certified.

c is PRZZ's main term in closed form, c = Σ w_k e^{x_k} with exact rationals (main_term.py,
docs/przz.md). The bound is certified twice over: the Arb ball of κ lies above k₀ (evaluate.certifies)
and an exact rational inequality with Taylor enclosures (certificate.py) proves c <= e^{R(1−k₀)};
mpmath at two precisions guards both. Anything it cannot certify is UNKNOWN.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, ClassVar, Mapping

import mpmath

from mathloop.contract.model import Contract
from mathloop.contract.rules import Floor, Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets import side_conditions
from mathloop.targets.base import CheckerCrash, Target
from mathloop.targets.checker_citations import require_cited_once
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.feng_przz import admissibility, config
from mathloop.targets.feng_przz.certificate import GRID, TOL_EXP10, build_certificate, verify_certificate
from mathloop.targets.feng_przz.evaluate import DPS_HIGH, DPS_LOW, certifies, crosscheck, extra_digits, kappa_ball
from mathloop.targets.feng_przz.main_term import main_term
from mathloop.targets.feng_przz.schema import Candidate, parse_payload, spec
from mathloop.targets.levinson_conrey.config import validate_bound
from mathloop.targets.levinson_conrey.target import LevinsonConrey

INPUTS = ("input-p", "input-q", "input-r")
MAIN_TERM = "main-term"
KAPPA = "kappa-bound"
GRID_RETRIES = 3
AGREE_DIGITS = 15  # mpmath at 30 and 60 digits must share this many digits of c (cancellation costs ~10)
ARB_PREC = 256


class FengPrzz(Target):
    """Checks (P₁..P_K, Q, R) for the PRZZ/Feng lower bound on the proportion of zeros on the line."""

    name: ClassVar[str] = "feng-przz"
    decides_by_goal: ClassVar[bool] = True  # its bound obligation is UNKNOWN short of the contract's goal
    contract_files: ClassVar[tuple[str, ...]] = ("feng-przz.toml",)  # in obligations/
    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.FengPrzz",)  # in lean/Mathloop/
    version: ClassVar[str] = "1"
    checks: ClassVar[Mapping[str, Trust]] = {
        **{k: Trust.EXACT for k in INPUTS},
        **{k: Trust.EXACT for k in admissibility.CONDITIONS},
        MAIN_TERM: Trust.EXACT,
        KAPPA: Trust.RIGOROUS,
    }
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required("levinson-method", Kind.HYPOTHESIS),
        Required("conrey-mean-value", Kind.HYPOTHESIS),
        Required("przz-mean-value", Kind.HYPOTHESIS),
        Required("P", Kind.INPUT, "input-p"),
        Required("Q", Kind.INPUT, "input-q"),
        Required("R", Kind.INPUT, "input-r"),
        *(Required(c, Kind.CHECK, c) for c in admissibility.CONDITIONS),
        Required(MAIN_TERM, Kind.CHECK, MAIN_TERM),
        Required(KAPPA, Kind.BOUND, KAPPA, config.BOUND_NAME, Direction.MAXIMIZE),
    )
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor("parameters.theta_sup", config.THETA_SUP_MAX, at_most=True,
              why="PRZZ's mean-value theorem (as Conrey's) holds for θ < 4/7 only"),
        Floor("bounds.kappa.class_maximum", Fraction(1), at_most=True, why="κ <= 1"),
    )

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.settings = config.settings(contract)

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless checkers, parameters, limits, the kappa bound and the seed are valid."""
        super().validate_contract(contract)
        config.settings(contract)
        require_cited_once(contract, cls.checks)
        validate_bound(contract, KAPPA)
        cls.parsed_seed(contract)

    def parse(self, payload: Any) -> Candidate:
        """Return the exact candidate. Raises Malformed("<field>: reason")."""
        return parse_payload(payload, self.settings.limits, len(self.settings.pieces))

    def candidate_schema(self) -> dict[str, Any]:
        """Return the schema of {"P1": [...], ..., "Q": [...], "R": "..."}."""
        return spec(self.settings.limits, len(self.settings.pieces)).schema()

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Candidate) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        s = self.settings
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        fails = admissibility.failures(candidate, s.theta, s.theta_sup)
        timings["admissibility"] = time.perf_counter() - t0
        outcomes: dict[str, Outcome] = {name: Outcome(Verdict.PROVED, Trust.EXACT) for name in INPUTS}
        outcomes.update(side_conditions.outcomes(admissibility.CONDITIONS, fails))
        bounds: dict[str, Fraction] = {}
        artifacts: dict[str, Any] = {}
        precision: dict[str, Any] = {"grid": fraction_str(GRID), "main_term": "exact rationals",
                                     "arb_prec_bits_min": ARB_PREC, "taylor_tolerance": f"1e-{TOL_EXP10}",
                                     "mpmath_dps": [DPS_LOW, DPS_HIGH]}
        if fails:
            why = ("not admissible: " + ", ".join(fails),)
            outcomes[MAIN_TERM] = Outcome(Verdict.UNKNOWN, Trust.EXACT, why)
            outcomes[KAPPA] = Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, why)
        else:
            outcomes[MAIN_TERM] = Outcome(Verdict.PROVED, Trust.EXACT)
            k0, why = self._certify(candidate, timings, artifacts)
            if k0 is None:
                outcomes[KAPPA] = Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, (why,))
            else:
                bounds["kappa"] = k0
                outcomes[KAPPA] = self._kappa_outcome(k0)
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.payload(), artifacts=artifacts, precision=precision, timings=timings)

    def _certify(self, cand: Candidate, timings: dict[str, float], artifacts: dict[str, Any]) -> tuple[Fraction | None, str]:
        """Return (certified k0, "") or (None, why); fill the artifacts. Raises CheckerCrash on disagreement."""
        s = self.settings
        t0 = time.perf_counter()
        c = main_term(list(zip(s.pieces, cand.P)), cand.Q, cand.R, s.theta)
        t1 = time.perf_counter()
        hp = crosscheck(c, cand.R)
        t2 = time.perf_counter()
        prec = ARB_PREC + 4 * extra_digits(c)  # bits: the cancellation in Σ w·e^x, as for mpmath
        timings.update(main_term=t1 - t0, crosscheck=t2 - t1)
        if hp.agree_digits < AGREE_DIGITS:
            raise CheckerCrash(f"cross-check: c at {DPS_LOW}+ and {DPS_HIGH}+ digits agree on {hp.agree_digits} digits only")
        artifacts["highprec"] = {"c": hp.c_high, "kappa": hp.kappa_high, "agree_digits": hp.agree_digits,
                                 "extra_digits": extra_digits(c), "arb_prec_bits": prec}
        with mpmath.workdps(DPS_HIGH):
            c_hi = mpmath.mpf(hp.c_high)
            if c_hi <= 0:
                return None, f"c = {hp.c_high} is not positive: log c undefined"
            grid_floor = int(mpmath.floor(mpmath.mpf(hp.kappa_high) / (mpmath.mpf(GRID.numerator) / GRID.denominator)))
        try:
            artifacts["arb_kappa"] = kappa_ball(c, cand.R, prec).str(30, radius=True)
        except ValueError as e:
            return None, f"Arb: {e}"
        for step in range(GRID_RETRIES):
            k0 = (grid_floor - step) * GRID
            if not certifies(c, cand.R, k0, prec):
                continue
            cert = build_certificate(cand, s.pieces, s.theta, c, k0)
            if cert is not None:
                timings["certificate"] = time.perf_counter() - t2
                artifacts["certificate"] = cert
                return k0, ""
        timings["certificate"] = time.perf_counter() - t2
        return None, f"no k0 within {GRID_RETRIES} grid steps below the high-precision κ = {hp.kappa_high} is certified"

    def _kappa_outcome(self, k0: Fraction) -> Outcome:
        goal = self.contract.bound_spec(config.BOUND_NAME).goal
        if goal is None or k0 >= goal:
            return Outcome(Verdict.PROVED, Trust.RIGOROUS)
        return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS,
                       (f"certified κ >= {fraction_str(k0)} is below the goal {fraction_str(goal)}",))

    def verify_certificate(self, cert: Mapping[str, Any]) -> bool:
        """Return True iff the κ certificate is valid with θ inside this contract's range."""
        return verify_certificate(cert, self.settings.theta_sup)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering (see lean_claims), or None without a certificate."""
        from mathloop.targets.feng_przz.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence, self.settings.theta_sup)

    @classmethod
    def published_bounds(cls, bound: str) -> tuple[tuple[str, Fraction], ...]:
        """Return PRZZ's printed record κ ≥ 0.417293962 (arXiv:1802.10521) for reference lines."""
        return (("PRZZ 2020 (arXiv:1802.10521)", Fraction("0.417293962")),) if bound == config.BOUND_NAME else ()

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded optimiser (see proposer.py)."""
        from mathloop.targets.feng_przz.proposer import LocalProposer

        return LocalProposer(self, seed)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "deg P 5/3/3, deg Q 5, R = 13/10"."""
        try:
            degs = "/".join(str(len(state[f"P{i + 1}"]) - 1) for i in range(len(self.settings.pieces)))
            return f"deg P {degs}, deg Q {len(state['Q']) - 1}, R = {state['R']}"
        except (KeyError, TypeError):
            return super().state_summary(state)

    # θ for theta-admissible, else None: levinson-conrey's, read from the same settings.theta/theta_sup
    graph_detail = LevinsonConrey.graph_detail
