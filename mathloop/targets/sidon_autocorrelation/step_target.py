"""The common part of the step-function targets (C1a, C1b): parsing, evidence, files, display.

A subclass names its admissibility checker and bound, and implements `evaluate` (the exact value
of admissible heights, with the integers that prove it) and `admissibility` (why not admissible).
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Sequence

from mathloop.contract.model import Contract
from mathloop.domain import Evidence, Trust, Verdict, decimal_str
from mathloop.targets.base import ChainCheck, Malformed, PublishedStart, Target
from mathloop.targets.checker_citations import require_cited_once
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.sidon_autocorrelation.heights import StepLimits, Steps, parse_steps

INPUT = "input-heights"


class StepFunctionTarget(Target):
    """A constant bounded by the exact value of a step function with n equal steps (minimised)."""

    lean_modules: ClassVar[tuple[str, ...]] = ("Mathloop.StepFunctions", "Mathloop.StepTrees")  # in lean/Mathloop/
    decides_by_goal: ClassVar[bool] = True  # its bound obligation is UNKNOWN short of the contract's goal
    candidate_file_note: ClassVar[str] = ("The checker also reads a JSON list of numbers, or numbers separated by "
                                          "spaces or newlines. Every number is taken exactly as printed (\"0.1\" is "
                                          "exactly 1/10).")
    admissible_check: ClassVar[str]
    value_check: ClassVar[str]
    bound_name: ClassVar[str]

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.limits = StepLimits.of(contract)

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless limits, checkers (each cited once) and the seed are valid."""
        super().validate_contract(contract)
        StepLimits.validate(contract)
        require_cited_once(contract, cls.checks)
        contract.bound_spec(cls.bound_name)
        cls.parsed_seed(contract)

    def parse(self, payload: Any) -> Steps:
        """Return the exact heights. Raises Malformed("<field>: reason")."""
        return parse_steps(payload, self.limits)

    def candidate_schema(self) -> dict[str, Any]:
        """Return the schema of {"heights": ["h_0", ...]} (exact rational strings)."""
        return self.limits.spec.schema()

    def read_candidate_file(self, path: Path, what: str = "--candidate") -> Any:
        """Return the payload of a candidate file: own JSON, a JSON list, `.npy` or text (see candidate_file); the
        file's path names it in refusals, whatever its role `what`.

        Raises:
            Malformed: the file is unreadable or not one of the formats (the message names the file).
        """
        from mathloop.targets.sidon_autocorrelation.candidate_file import CandidateFileError, read_candidate_file

        try:
            return read_candidate_file(path)
        except CandidateFileError as e:
            raise Malformed(str(e)) from None

    def export_certificates(self, chain: Sequence[tuple[str, Evidence]], out_dir: Path) -> Path:
        """Write one certificate file per commit with a certified bound, and manifest.json (certificates.py)."""
        from mathloop.targets.sidon_autocorrelation.certificates import export_certificates

        return export_certificates(self, chain, out_dir)

    def verify_certificate_chain(self, manifest: Path, read_json: Callable[[Path], Any]) -> ChainCheck:
        """Return the re-verification of every exported file (each a full candidate; certificates.py)."""
        from mathloop.targets.sidon_autocorrelation.certificates import verify_chain

        return verify_chain(self, manifest, read_json)

    def published_start(self) -> PublishedStart | None:
        """Return the best published construction this lineage admits (`shipped_start`), or None."""
        from mathloop.targets.published_start import shipped_start

        return shipped_start(self)

    def admissibility(self, steps: Steps) -> str | None:
        """Return why the step function is not admissible, or None."""
        raise NotImplementedError

    def evaluate(self, steps: Steps) -> tuple[Fraction, dict[str, Any]]:
        """Return the exact value of admissible heights and the artifact with its proof integers."""
        raise NotImplementedError

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Steps) -> Evidence:
        """Return the evidence for `candidate` (a full replacement state; the parent is not needed)."""
        t0 = time.perf_counter()
        why = self.admissibility(candidate)
        outcomes = {INPUT: Outcome(Verdict.PROVED, Trust.EXACT)}
        bounds: dict[str, Fraction] = {}
        artifacts: dict[str, Any] = {}
        if why is not None:
            outcomes[self.admissible_check] = Outcome(Verdict.REFUTED, Trust.EXACT, (why,))
            outcomes[self.value_check] = Outcome(Verdict.UNKNOWN, Trust.EXACT, ("not admissible: " + why,))
        else:
            outcomes[self.admissible_check] = Outcome(Verdict.PROVED, Trust.EXACT)
            value, artifact = self.evaluate(candidate)
            bounds[self.bound_name] = value
            artifacts["value"] = artifact
            outcomes[self.value_check] = self._bound_outcome(value)
        timings = {"check": time.perf_counter() - t0}
        precision = {"arithmetic": "exact integers (python-flint fmpz_poly) and rationals", "steps": candidate.n}
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=candidate.payload(), artifacts=artifacts, precision=precision, timings=timings)

    def _bound_outcome(self, value: Fraction) -> Outcome:
        spec = self.contract.bound_spec(self.bound_name)
        if spec.goal is None or value <= spec.goal:
            return Outcome(Verdict.PROVED, Trust.EXACT)
        return Outcome(Verdict.UNKNOWN, Trust.EXACT, (
            f"certified {self.bound_name} <= {decimal_str(value, spec.digits, round_down=False)} is above the goal "
            f"{decimal_str(spec.goal, spec.digits, round_down=False)} (the best published bound)",))

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return e.g. "600 steps"."""
        hs = state.get("heights") if isinstance(state, Mapping) else None
        return f"{len(hs)} steps" if isinstance(hs, list) else super().state_summary(state)
