"""The Levinson–Conrey target: κ >= 1 − log(c(P, Q, R, θ))/R, certified in exact rationals."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, ClassVar, Mapping

from mathloop.contract.model import Contract, ContractError
from mathloop.contract.rules import Floor, Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, fraction_str
from mathloop.propose.base import Proposer
from mathloop.targets.base import CheckerCrash, Target
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.levinson_conrey import admissibility, config
from mathloop.targets.levinson_conrey.certificate import GRID, TOL_EXP10, build_certificate, verify_certificate
from mathloop.targets.levinson_conrey.closed_form import closed_form
from mathloop.targets.form import ProposalForm
from mathloop.targets.levinson_conrey.edit_form import LevinsonEditForm
from mathloop.targets.levinson_conrey.move_form import LevinsonMoveForm
from mathloop.targets.levinson_conrey.schema import Candidate, parse_payload, spec

INPUTS = ("input-p", "input-q", "input-r")
KAPPA = "kappa-bound"
# A failed certificate at the high-precision grid floor is retried this many grid steps lower
# (the floor can sit within 10^-30 of κ); beyond that the numbers disagree: a checker bug.
GRID_RETRIES = 3


class LevinsonConrey(Target):
    """Checks (P, Q, R) for the Levinson–Conrey lower bound on the proportion of zeros on the line."""

    name: ClassVar[str] = "levinson-conrey"
    decides_by_goal: ClassVar[bool] = True  # its bound obligation is UNKNOWN short of the contract's goal
    contract_files: ClassVar[tuple[str, ...]] = ("levinson-conrey.toml", "levinson.toml")  # in obligations/
    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.LevinsonConrey",)  # in lean/Mathloop/
    version: ClassVar[str] = "1"
    checks: ClassVar[Mapping[str, Trust]] = {
        **{k: Trust.EXACT for k in INPUTS},
        **{k: Trust.EXACT for k in admissibility.CONDITIONS},
        "closed-form": Trust.EXACT,
        KAPPA: Trust.RIGOROUS,
    }
    # κ >= 1 − log(c)/R holds only for admissible (P, Q, R) and θ inside the mean-value theorem's
    # range, through Levinson's method and the Levinson–Conrey inequality.
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required("levinson-method", Kind.HYPOTHESIS),
        Required("levinson-conrey-inequality", Kind.HYPOTHESIS),
        Required("P", Kind.INPUT, "input-p"),
        Required("Q", Kind.INPUT, "input-q"),
        Required("R", Kind.INPUT, "input-r"),
        *(Required(c, Kind.CHECK, c) for c in admissibility.CONDITIONS),
        Required("closed-form", Kind.CHECK, "closed-form"),
        Required(KAPPA, Kind.BOUND, KAPPA, config.BOUND_NAME, Direction.MAXIMIZE),
    )
    limit_floors: ClassVar[tuple[Floor, ...]] = (
        Floor("parameters.theta_sup", config.THETA_SUP_MAX, at_most=True,
              why="Conrey (1989) proves the mean-value theorem for θ < 4/7 only"),
        Floor("bounds.kappa.class_maximum", Fraction(1), at_most=True, why="κ <= 1 always (c >= 1)"),
    )

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.settings = config.settings(contract)

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless checkers, parameters, limits, the kappa bound and the seed are valid."""
        super().validate_contract(contract)
        config.validate_mean_value(contract)
        used = [o.checker for o in contract.checked]
        for name in cls.checks:
            if used.count(name) != 1:
                raise ContractError(contract.path, "obligations", f"checker {name!r} must be cited by exactly one obligation (found {used.count(name)})")
        config.validate_bound(contract, KAPPA)
        cls.parsed_seed(contract)

    def parse(self, payload: Any) -> Candidate:
        """Return the exact candidate. Raises Malformed("<field>: reason")."""
        return parse_payload(payload, self.settings.limits)

    def candidate_schema(self) -> dict[str, Any]:
        """Return the schema of {"P": [...], "Q": [...], "R": "..."} (coefficients lowest degree first)."""
        return spec(self.settings.limits).schema()

    def proposal_form(self) -> ProposalForm:
        """Return the move form: one coordinate, direction and size per reply (side conditions by construction)."""
        return self.proposal_forms()["moves"]

    def proposal_forms(self) -> dict[str, ProposalForm]:
        """Return every form offered to models by name (`run --form NAME`): moves, edits, absolute."""
        edit = LevinsonEditForm(self.settings.limits.max_degree, self.parse)
        return {"moves": LevinsonMoveForm(self.settings.limits.max_degree, self.parse).form(), "edits": edit.form(),
                "absolute": edit.absolute.form()}

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Candidate) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        s = self.settings
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        fails = admissibility.failures(candidate, s.theta, s.theta_sup)
        timings["admissibility"] = time.perf_counter() - t0
        outcomes: dict[str, Outcome] = {name: Outcome(Verdict.PROVED, Trust.EXACT) for name in INPUTS}
        for name in admissibility.CONDITIONS:
            outcomes[name] = (Outcome(Verdict.REFUTED, Trust.EXACT, (fails[name],)) if name in fails
                              else Outcome(Verdict.PROVED, Trust.EXACT))
        bounds: dict[str, Fraction] = {}
        artifacts: dict[str, Any] = {}
        precision: dict[str, Any] = {"grid": fraction_str(GRID), "admissibility": "exact rationals"}
        if fails:
            why = ("not admissible: " + ", ".join(fails),)
            outcomes["closed-form"] = Outcome(Verdict.UNKNOWN, Trust.EXACT, why)
            outcomes[KAPPA] = Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, why)
        else:
            k0 = self._certify(candidate, timings, artifacts, precision)
            bounds["kappa"] = k0
            outcomes["closed-form"] = Outcome(Verdict.PROVED, Trust.EXACT)
            outcomes[KAPPA] = self._kappa_outcome(k0)
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.payload(), artifacts=artifacts, precision=precision, timings=timings)

    def _certify(self, c: Candidate, timings: dict[str, float], artifacts: dict[str, Any], precision: dict[str, Any]) -> Fraction:
        """Return the certified k0; fill the artifacts. Raises CheckerCrash on any inconsistency."""
        # mpmath on use: every command lists the targets, few check a candidate
        from mathloop.targets.levinson_conrey.crosscheck import REL_TOL_EXP10, check_k0, crosscheck

        s = self.settings
        t0 = time.perf_counter()
        cf = closed_form(c.P, c.Q, c.R, s.theta)
        t1 = time.perf_counter()
        hp = crosscheck(cf.a, cf.b, c.R, GRID)
        t2 = time.perf_counter()
        cert = None
        for step in range(GRID_RETRIES):
            k0 = (hp.grid_floor - step) * GRID
            cert = build_certificate(c.P, c.Q, c.R, s.theta, cf.a, cf.b, k0)
            if cert is not None:
                break
        t3 = time.perf_counter()
        timings.update(closed_form=t1 - t0, crosscheck=t2 - t1, certificate=t3 - t2)
        if cert is None:
            raise CheckerCrash(f"certificate: no k0 within {GRID_RETRIES} grid steps of the high-precision κ = {hp.kappa} is provable")
        check_k0(k0, hp)  # a value beyond the class maximum is refused by the gate (check/gate.decide)
        artifacts["certificate"] = cert
        artifacts["highprec"] = {"c": hp.c, "kappa": hp.kappa, "dps": hp.dps[1]}
        precision.update(
            taylor_tolerance=f"1e-{TOL_EXP10}",
            taylor_orders={"exp_2R": cert["exp_2R"]["n"], "exp_rhs": cert["exp_rhs"]["n"]},
            mpmath_dps=list(hp.dps),
            crosscheck_rel_tol=f"1e-{REL_TOL_EXP10}",
        )
        return k0

    def _kappa_outcome(self, k0: Fraction) -> Outcome:
        from mathloop.targets.levinson_conrey.crosscheck import decimal_str

        goal = self.contract.bound_spec(config.BOUND_NAME).goal
        if goal is None or k0 >= goal:
            return Outcome(Verdict.PROVED, Trust.RIGOROUS)
        return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS,
                       (f"certified κ >= {decimal_str(k0, 12)} is below the goal {decimal_str(goal, 12)}",))

    def verify_certificate(self, cert: Mapping[str, Any]) -> bool:
        """Return True iff the κ certificate is valid with θ inside this contract's range (0, theta_sup)."""
        return verify_certificate(cert, self.settings.theta_sup)

    def lean_render(self, commit_hash: str, evidence: Evidence):
        """Return the commit's Lean rendering (see lean_claims), or None without a certificate."""
        from mathloop.targets.levinson_conrey.lean_claims import render_commit

        return render_commit(self.contract, commit_hash, evidence, self.settings.theta_sup)

    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded optimiser over (P, Q, R) (see proposer.py)."""
        from mathloop.targets.levinson_conrey.proposer import LocalProposer

        return LocalProposer(self, seed)

    def polish(self, payload: Any, seed: int) -> dict[str, Any] | None:
        """Return a locally optimised payload with the structure (degrees, R, start) of `payload`."""
        from mathloop.targets.levinson_conrey.proposer import polish_payload

        return polish_payload(self, payload, seed)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "deg P 3, deg Q 3, R = 13/10"."""
        try:
            return f"deg P {len(state['P']) - 1}, deg Q {len(state['Q']) - 1}, R = {state['R']}"
        except (KeyError, TypeError):
            return super().state_summary(state)

    def graph_detail(self, obligation_id: str, state: Mapping[str, Any] | None) -> str | None:
        """Return θ for theta-admissible, else None."""
        if obligation_id == "theta-admissible":
            return f"θ = {fraction_str(self.settings.theta)} < {fraction_str(self.settings.theta_sup)}"
        return None

