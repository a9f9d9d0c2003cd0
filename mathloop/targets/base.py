"""The Target contract: parse untrusted payloads, check them, and offer a local proposer."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from mathloop.contract.model import Contract, ContractError
from mathloop.domain import Evidence, Trust
from mathloop.propose.base import Proposer

if TYPE_CHECKING:
    from mathloop.lean.render import RenderedCommit


class Malformed(ValueError):
    """The payload violates the candidate schema or the contract's limits; str() is the reason."""


class CheckerCrash(RuntimeError):
    """A checker could not answer (crash, timeout, cross-check disagreement); becomes `error`."""


class Target(ABC):
    """One math target: one implementation, any number of contracts (e.g. levinson, levinson-conrey).

    Subclasses set `name` (the `[target] implementation` key), `checks` (the checker names a
    contract obligation may cite, with their trust level) and `version` (bump whenever the
    evidence for some input could change). Instances are built from a validated contract and
    must be cheap to build: checks may run in worker processes that rebuild the target.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    checks: ClassVar[Mapping[str, Trust]]

    def __init__(self, contract: Contract) -> None:
        self.contract = contract

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless every checker is known and parameters/limits/seed are valid.

        Subclasses extend this (call super()) to validate their own parameters and limits.
        """
        for key in ("check_timeout_s", "default_budget"):  # read by the loop and the CLI, not the target
            value = contract.limits.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ContractError(contract.path, f"limits.{key}", "must be a positive integer")
        for o in contract.checked:
            if o.checker not in cls.checks:
                raise ContractError(
                    contract.path,
                    f"obligations.{o.id}.checker",
                    f"unknown checker {o.checker!r} for target {cls.name} (known: {', '.join(sorted(cls.checks))})",
                )

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

    def polish(self, payload: Any, seed: int) -> Any | None:
        """Return a locally optimised version of a (model-proposed) payload, or None if unsupported.

        Used by `--proposer openai+local`: the model proposes structure, the local optimiser
        polishes it. The result is still only a proposal; it goes through parse and check.
        """
        return None

    def seed_payload(self) -> Mapping[str, Any]:
        """Return the contract's seed candidate payload."""
        return self.contract.seed

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return a one-line human description of a state (for log/status)."""
        return ", ".join(f"{k}={v}" for k, v in state.items())[:200]

    def graph_detail(self, obligation_id: str, state: Mapping[str, Any] | None) -> str | None:
        """Return extra display text for one obligation at a state (e.g. aggregated families)."""
        return None

    def lean_render(self, commit_hash: str, evidence: Evidence) -> "RenderedCommit | None":
        """Return the commit's plain-style Lean rendering, or None if this target renders none."""
        return None
