"""The Target API: a small required core and named optional capabilities, each with its default.

A target subclasses `Target`, defines the core (`TargetCore`: what every target must say) and overrides only the
members of the capabilities it offers. A capability is a plain mixin that needs nothing of the core, so a caller
that needs one capability may take (and a test may stub) just that one. Every capability member is declared here with a default, so the loop, the
gate, the CLI, proposers and exporters call a declared member and never probe for one (pytest's hookspecs are the
model). `CAPABILITIES` lists them in order; docs/targets.md is rendered from these classes (targets/api_doc.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

from mathloop.contract.model import Contract, ContractError
from mathloop.contract.rules import Floor, Required, enforce
from mathloop.domain import Evidence, Trust
from mathloop.propose.base import Proposer
from mathloop.targets.errors import CertificateError as CertificateError  # re-exported here for callers
from mathloop.targets.errors import CheckerCrash as CheckerCrash
from mathloop.targets.errors import Malformed as Malformed
from mathloop.targets.values import ChainCheck as ChainCheck
from mathloop.targets.values import OpenByDesign as OpenByDesign
from mathloop.targets.values import PublishedStart as PublishedStart

if TYPE_CHECKING:
    from mathloop.lean.render import RenderedCommit
    from mathloop.targets.form import ProposalForm
    from mathloop.targets.records import ConstantRecords


class TargetCore(ABC):
    """The required core: what every target defines, and the contract it was built from.

    Subclasses set `name` (the `[target] implementation` key, the entry point name), `version` (bump whenever the
    evidence for some input could change), `checks` (the checker names a contract obligation may cite, with their
    trust level), `required_obligations` (what the bound's soundness needs from every contract) and `limit_floors`
    (limits no contract may loosen), and define `parse`, `check` and `local_proposer`. Instances are built from a
    validated contract and must be cheap to build: checks may run in worker processes that rebuild the target.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    checks: ClassVar[Mapping[str, Trust]]
    required_obligations: ClassVar[tuple[Required, ...]] = ()
    limit_floors: ClassVar[tuple[Floor, ...]] = ()
    # The contract files this target ships, by file name (`levinson-conrey.toml` is the contract `levinson-conrey`):
    # mathloop's own targets' files are in `obligations/` (the package `mathloop.obligations`). Empty (a plug-in's
    # default): every `*.toml` in the `contracts/` folder of the target's own package.
    contract_files: ClassVar[tuple[str, ...]] = ()

    def __init__(self, contract: Contract) -> None:
        self.contract = contract

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless the contract keeps the required obligations and floors and
        every checker is known.

        Subclasses extend this (call super()) to validate their own parameters, limits and seed.
        """
        enforce(contract, cls.required_obligations, cls.limit_floors)
        for o in contract.checked:
            if o.checker not in cls.checks:
                raise ContractError(
                    contract.path,
                    f"obligations.{o.id}.checker",
                    f"unknown checker {o.checker!r} for target {cls.name} (known: {', '.join(sorted(cls.checks))})",
                )

    @classmethod
    def parsed_seed(cls, contract: Contract) -> Any:
        """Return the contract's seed parsed by this target (call last in validate_contract).

        Raises:
            ContractError: the seed is malformed (key "seed").
        """
        try:
            return cls(contract).parse(contract.seed)
        except Malformed as e:
            raise ContractError(contract.path, "seed", str(e)) from None

    @abstractmethod
    def parse(self, payload: Any) -> Any:
        """Return the typed candidate. Raises Malformed with the reason (schema, limits, sizes)."""

    @abstractmethod
    def check(self, parent_state: Mapping[str, Any] | None, candidate: Any) -> Evidence:
        """Return the evidence for the state that results from applying `candidate` to the parent.

        Refusals are values (REFUTED/UNKNOWN results with reasons, missing bounds); raise
        CheckerCrash only when the checker cannot answer. Must be deterministic: the same
        inputs give byte-identical `Evidence.canonical_bytes()`.
        """

    @abstractmethod
    def local_proposer(self, seed: int) -> Proposer:
        """Return the embedded proposer for this target (no network, deterministic for a seed)."""

    def seed_payload(self) -> Mapping[str, Any]:
        """Return the contract's seed candidate payload."""
        return self.contract.seed


class GateDeclarations:
    """Capability: what the gate may read as open by design, and which other target's class this one brackets."""

    # A target that certifies upper bounds of another target's class names it here: (the primal's
    # implementation key, the primal's bound, this target's bound). One store then brackets the two.
    ceiling_of: ClassVar[tuple[str, str, str] | None] = None
    # Obligations whose rank counts the work left and which may stay UNKNOWN while the bounds that depend on
    # them count (OpenByDesign.progress), e.g. ("blocks",). Default: none, every upstream check must be PROVED.
    progress_measures: ClassVar[tuple[str, ...]] = ()
    # Whether this target's checker decides its bound obligations by the contract's `goal` (UNKNOWN: "certified,
    # short of the goal"). Opt-in: without it a `goal` a user contract adds opens nothing (OpenByDesign.goals).
    decides_by_goal: ClassVar[bool] = False
    # True when the certified bound follows from the constant's definition alone and rests on no published theorem
    # (e.g. Θ(C7) ≥ |S|^{1/n}); then `required_obligations` names no hypothesis. A test holds the two together.
    definition_only: ClassVar[bool] = False

    @classmethod
    def open_by_design(cls, contract: Contract) -> OpenByDesign:
        """Return which obligations of `contract` may be open while a certified bound resting on them counts.

        Default: for a class that `decides_by_goal`, goals are the bound obligations whose contract bound sets a
        `goal` (such an obligation is discharged exactly when the goal is reached); for any other class none, so a
        `goal` added by a user contract opens no obligation. Progress measures are the class's
        `progress_measures` that the contract has. Override to declare fewer.
        """
        ids = {o.id for o in contract.checked}
        goals = frozenset(o.id for o in contract.checked if o.bound is not None and o.bound.goal is not None)
        return OpenByDesign(goals=goals if cls.decides_by_goal is True else frozenset(),
                            progress=frozenset(p for p in cls.progress_measures if p in ids))


class CandidateFiles:
    """Capability: reading a candidate from a file (`check --candidate`, a program's output, stored records)."""

    # One sentence for program prompts naming the file forms `read_candidate_file` reads besides strict JSON
    # ("" when it reads strict JSON only).
    candidate_file_note: ClassVar[str] = ""

    def read_candidate_file(self, path: Path, what: str = "--candidate") -> Any:
        """Return the payload of a candidate file; default: its strict JSON (size-capped, strict UTF-8, no NaN).

        `what` names the file's role in refusals ("--candidate", "output").

        Raises:
            InputError: unreadable, too large, not UTF-8 or not strict JSON (naming the file).
            Malformed: a target's own format refused the file.
        """
        from mathloop.bounded import MAX_CANDIDATE_BYTES, read_json

        return read_json(path, MAX_CANDIDATE_BYTES, what)


class PublishedRecords:
    """Capability: the published records of the table constant the target bounds (display data: the gate never
    reads them), and the published construction `run --start published` proposes first."""

    # The package whose `data/records.toml` lists the published records of the table constant this target bounds
    # (mathloop/targets/records.py; e.g. "mathloop.targets.shannon_capacity_c7"). None: not a table constant.
    # `published_bounds()` and `mathloop records` read it; the gate never does.
    records_package: ClassVar[str | None] = None
    records_file: ClassVar[str] = "records.toml"  # the file in that package's data/ (several constants: one each)

    @classmethod
    def constant_records(cls) -> ConstantRecords | None:
        """Return the ConstantRecords of the table constant this target bounds (targets/records.py), or None.

        Raises:
            ContractError: the class declares a records file that is missing or invalid.
        """
        from mathloop.targets.records import load

        return None if cls.records_package is None else load(cls.records_package, cls.records_file)

    @classmethod
    def published_bounds(cls, bound: str) -> tuple[tuple[str, Fraction], ...]:
        """Return (who, value as printed) of the published bounds on `bound`, for reference lines in plots and views.

        Display only: the gate never reads them. Default: the `[[published]]` entries of the class's records file
        (`records_package`) when `bound` is the constant's bound obligation; none without a records file.
        """
        records = cls.constant_records()
        if records is None or bound != records.constant.bound:
            return ()
        return tuple((p.who, Fraction(p.value)) for p in records.published)

    def published_start(self) -> PublishedStart | None:
        """Return the best published construction this target ships, or None (the default).

        `mathloop run --start published` proposes it first (credited to its authors in the proposal's meta), so
        the local proposer refines it. Only a proposal: it goes through parse, check and the gate.
        """
        return None


class ProposalForms:
    """Capability: what models are offered (the schema, the forms replies are written in) and the local polish."""

    def candidate_schema(self) -> Mapping[str, Any]:
        """Return the JSON schema offered to models, derived from the same spec as `parse`.

        Only a guide for the model (structured output, the prompt): `parse` stays the judge.
        """
        return {"type": "object"}

    def proposal_form(self) -> ProposalForm:
        """Return the form models write candidates in (default: the identity over `candidate_schema`).

        A target overrides it with a parametrisation in which every well-formed reply meets its side conditions;
        the form maps a reply exactly to the full payload, which is what is stored and checked.
        """
        from mathloop.targets.form import identity_form

        return identity_form(self.candidate_schema())

    def proposal_forms(self) -> dict[str, ProposalForm]:
        """Return the forms a user may choose by name (`run --form NAME`); none besides the default here."""
        return {}

    def polish(self, payload: Any, seed: int) -> Any | None:
        """Return a locally optimised version of a (model-proposed) payload, or None if unsupported.

        Used by `--proposer openai+local`: the model proposes structure, the local optimiser
        polishes it. The result is still only a proposal; it goes through parse and check.
        """
        return None


class LeanRendering:
    """Capability: the commit's claims as Lean text, and the Lean support modules those renderings import."""

    # The modules of mathloop's Lean library (`lean/Mathloop/`, the package `mathloop.lean_sources`) that this
    # target's renderings import besides `Mathloop.Exact`. A plug-in ships its own under its package's `lean/`.
    lean_modules: ClassVar[tuple[str, ...]] = ()

    def lean_render(self, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
        """Return the commit's plain-style Lean rendering, or None if this target renders none."""
        return None

    @classmethod
    def lean_support(cls) -> Mapping[str, str]:
        """Return {Lean module name: text} of the support modules this target's renderings may import
        besides mathloop's shared ones: the library modules it names in `lean_modules`, then the
        `lean/**/*.lean` files of its package (and of its base targets' packages), e.g.
        `lean/Mathloop/MyTarget.lean` is `Mathloop.MyTarget`.

        Raises:
            SupportError (a ValueError): a file is misnamed or takes a shared module's name.
        """
        from mathloop.lean.support_modules import class_modules

        return class_modules(cls)


class CertificateChains:
    """Capability: certificate files exported per commit and their re-verification from the seed."""

    def export_certificates(self, chain: Sequence[tuple[str, Evidence]], out_dir: Path) -> Path | None:
        """Write the certificates of a lineage's commits ((hash, evidence), root first) into out_dir.

        Returns the manifest path, or None when this target has no certificate files.
        """
        return None

    def verify_certificate_chain(self, manifest: Path, read_json: Callable[[Path], Any]) -> ChainCheck | None:
        """Return the re-verification of an exported chain from the seed, or None if the target has none.

        `read_json` is the caller's bounded reader for every file named by the manifest.
        """
        return None

    def rests_on_claimed_parent(self, evidence: Evidence) -> bool:
        """Return True when the evidence was checked against a parent state the payload itself claims."""
        return False


class Display:
    """Capability: how a state and an obligation read in logs, status and the graph."""

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return a one-line human description of a state (for log/status)."""
        return ", ".join(f"{k}={v}" for k, v in state.items())[:200]

    def graph_detail(self, obligation_id: str, state: Mapping[str, Any] | None) -> str | None:
        """Return extra display text for one obligation at a state (e.g. aggregated families)."""
        return None


# The optional capabilities, in the order docs/targets.md lists them.
CAPABILITIES: tuple[type, ...] = (GateDeclarations, CandidateFiles, PublishedRecords, ProposalForms,
                                 LeanRendering, CertificateChains, Display)


class Target(TargetCore, GateDeclarations, CandidateFiles, PublishedRecords, ProposalForms, LeanRendering,
             CertificateChains, Display):
    """One math target: one implementation, any number of contracts (e.g. levinson, levinson-conrey).

    The core (`TargetCore`) is required; every capability member has its default, and a target overrides only
    those of the capabilities it offers.
    """
