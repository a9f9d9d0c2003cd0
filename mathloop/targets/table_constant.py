"""The shared base of the table-constant targets: one construction certifies a bound on one constant of the table.

spencer-discrepancy, furstenberg-sarkozy, shannon-capacity-c7(-recursive) and sum-difference-3b/3c each check one
candidate against a contract's parameters and limits and certify a value of one constant, decided by the contract's
`goal`, with the constant's published records beside it. What they share lives here once: the contract's
parameters and limits read when the target is built (so validating a contract is building the target and parsing
its seed), parse and schema over those limits, the candidate-file reader, the goal's outcome, the record test and
the frame of the Lean rendering.
Each target keeps only what is its own: its obligations, its check and its proposer.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence, TypeVar

from mathloop.contract.fields import Table, validated
from mathloop.contract.model import Contract
from mathloop.domain import Trust, Verdict, decimal_str
from mathloop.targets.base import PublishedStart, Target
from mathloop.targets.evidence import Outcome

if TYPE_CHECKING:
    from mathloop.lean.render import Claim, Definition, RenderedCommit

P = TypeVar("P", bound=Table)
L = TypeVar("L", bound=Table)


@dataclass(frozen=True)
class PayloadRules:
    """How one table-constant target reads a payload, all over the limits its contract sets.

    Attributes:
        parse: (payload, limits) -> the typed candidate; raises Malformed("<field>: reason").
        schema: limits -> the JSON schema offered to models (from the same spec as `parse`).
        read: (path, byte cap) -> the payload of a candidate file in the published formats it reads (raises
            InputError); None: strict JSON only.
        file_floor: the byte cap of a candidate file is the larger of this and the contract's `max_payload_bytes`
            (published text forms carry more bytes than the JSON payload they spell).
    """

    parse: Callable[[Any, Any], Any]
    schema: Callable[[Any], dict[str, Any]]
    read: Callable[[Path, int], Any] | None = None
    file_floor: int = 0


def contract_tables(contract: Contract, parameters: type[P], limits: type[L]) -> tuple[P, L]:
    """Return the contract's `[parameters]` and target `[limits]` validated as the two tables.

    Raises:
        ContractError: an unknown, missing or invalid key (naming it).
    """
    return (validated(parameters, dict(contract.parameters), contract.path, "parameters"),
            validated(limits, dict(contract.target_limits), contract.path, "limits"))


class TableConstant(Target):
    """A target that certifies a bound on one table constant from one construction (see the module docstring).

    Subclasses set `bound_name` (the contract's bound), `symbol` (how reasons name the constant), `rules` and the
    core's declarations, and define `configure` (which sets `limits`), `check` and `local_proposer`.
    """

    decides_by_goal: ClassVar[bool] = True  # the bound obligation is UNKNOWN short of the contract's goal
    bound_name: ClassVar[str]
    symbol: ClassVar[str]
    rules: ClassVar[PayloadRules]
    bound_trust: ClassVar[Trust] = Trust.EXACT
    limits: Any

    def __init__(self, contract: Contract) -> None:
        super().__init__(contract)
        self.configure(contract)

    @abstractmethod
    def configure(self, contract: Contract) -> None:
        """Read the contract's parameters and limits into this target (sets `limits`). Raises ContractError."""

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless obligations, parameters, limits and the seed are valid."""
        super().validate_contract(contract)
        cls.parsed_seed(contract)  # builds the target: `configure` refuses bad parameters and limits first

    def parse(self, payload: Any) -> Any:
        """Return the typed candidate. Raises Malformed("<field>: reason")."""
        return self.rules.parse(payload, self.limits)

    def candidate_schema(self) -> Mapping[str, Any]:
        """Return the JSON schema of a candidate under this contract's limits."""
        return self.rules.schema(self.limits)

    def read_candidate_file(self, path: Path, what: str = "--candidate") -> Any:
        """Return the payload of a candidate file: strict JSON, or the published formats `rules.read` reads.

        Raises:
            InputError: unreadable, too large, or not a form the target reads (naming the file).
        """
        cap = max(self.rules.file_floor, self.limits.max_payload_bytes)
        if self.rules.read is None:
            from mathloop.bounded import read_json

            return read_json(path, cap, what)
        return self.rules.read(path, cap)

    def published_start(self) -> PublishedStart | None:
        """Return the best published construction this contract admits (`shipped_start`), or None."""
        from mathloop.targets.published_start import shipped_start

        return shipped_start(self)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return the state in a few words (`describe`), or the default line for a state not of this target's shape."""
        try:
            return self.describe(state)
        except (KeyError, TypeError):
            return super().state_summary(state)

    @abstractmethod
    def describe(self, state: Mapping[str, Any]) -> str:
        """Return a state of this target's shape in a few words. Raises KeyError or TypeError for another shape."""

    def goal_outcome(self, r: Fraction, digits: int, given: str = "", say_proved: bool = False) -> Outcome:
        """Return the bound's outcome by the contract's goal: PROVED at or above it (or without one), else UNKNOWN
        "certified <symbol> ≥ r<given> is below the goal g" (`say_proved`: a PROVED one says "<symbol> ≥ r<given>")."""
        goal = self.contract.bound_spec(self.bound_name).goal
        shown = decimal_str(r, digits)
        if goal is None or r >= goal:
            return Outcome(Verdict.PROVED, self.bound_trust, (f"{self.symbol} ≥ {shown}{given}",) if say_proved else ())
        return Outcome(Verdict.UNKNOWN, self.bound_trust, (f"certified {self.symbol} ≥ {shown}{given} is below the goal "
                                                           f"{decimal_str(goal, digits)}",))

    def beyond_record(self, r: Fraction) -> bool:
        """Return True when r is strictly better than every certified published record (then a second code path
        must agree before it counts)."""
        records = self.constant_records()
        if records is None:
            return False
        certified = [Fraction(p.certified) for p in records.published if p.certified]
        return all(records.better(r, c) for c in certified)


@dataclass(frozen=True)
class LeanStatement:
    """The fixed text of a table constant's Lean rendering, around each commit's definitions and claims.

    Attributes:
        proves: what the kernel recomputes from the data.
        given: what is taken as given (a definition, a published construction).
        not_proved: what the rendering does not prove.
        support: the support modules the claims import, in import order.
        package: the target's package (its own `lean/` support modules).
        bound: the bound key the statement certifies (as `r`).
    """

    proves: str
    given: str
    not_proved: str
    support: tuple[str, ...]
    package: str
    bound: str

    def render(self, contract: Contract, commit_hash: str, defs: Sequence[Definition], claims: Sequence[Claim],
               r: Fraction) -> RenderedCommit:
        """Return the commit's two Lean modules: these texts, the commit's definitions and claims, bound ≥ r.

        Raises:
            RenderError: the definitions or claims cannot be rendered.
        """
        from mathloop.lean.render import render
        from mathloop.lean.support_modules import package_modules, select

        return render(target=contract.target, contract_name=contract.name, contract_sha=contract.sha256,
                      commit_hash=commit_hash, proves=self.proves, given=self.given, not_proved=self.not_proved,
                      defs=defs, claims=claims, support=select(self.support, package_modules(self.package)),
                      bounds={self.bound: ("r", r)})


def bound_definitions(r: Fraction, meaning: str) -> list[Definition]:
    """Return the Lean definitions p, q and r = p/q of a certified bound r (`meaning`: what r bounds, in words)."""
    from mathloop.lean.render import Definition, frac, nat

    return [Definition("p", "Nat", nat(r.numerator), "Numerator of the certified bound r."),
            Definition("q", "Nat", nat(r.denominator), "Denominator of the certified bound r."),
            Definition("r", "Frac", frac(r), meaning)]
