"""A frozen paired benchmark protocol, read from TOML and hashed: what every run of a comparison shares.

    [protocol]
    targets = ["levinson-conrey"]    # contract names or paths
    budget = 20                      # candidates per run
    seeds = [1, 2, 3]                # one run per (proposer, target, seed)
    time_limit = 600                 # optional, seconds per run
    samples = 4                      # proposals per round
    temperature = 0.7                # sampling of model proposers
    max_tokens = 256
    [rewards]                        # optional: the reward table of the dataset exports
    progress = 0.5
    [[proposers]]
    name = "smollm2-q4"
    proposer = "openai"              # local | openai | openai+local
    model = "smollm2"
    base_url = "http://127.0.0.1:8002/v1"
    # concurrency, request_timeout: operational, not part of the protocol

`protocol_sha256` hashes every contract's sha256, the candidate schema shown to models, every prompt
template, the budget, seeds, limits, sampling, the reward table, and each proposer's name, kind and
model; two results are comparable only if their hashes are equal.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from mathloop import __version__
from mathloop.contract import Contract, ContractError
from mathloop.contract.fields import first_error, refuse
from mathloop.targets import load_contract
from mathloop.domain import canonical_json, sha256_hex
from mathloop.env.rewards import RewardTable
from mathloop.propose.chat import check_base_url
from mathloop.propose.schemas import candidate_schema
from mathloop.targets import build_target

KINDS = ("local", "openai", "openai+local")


class SpecError(ValueError):
    """The bench spec is invalid; the message names the file, the key and the reason."""

    def __init__(self, path: Path | str, key: str, reason: str) -> None:
        self.key = key
        super().__init__(f"{path}: {key}: {reason}")


@dataclass(frozen=True)
class ProposerSpec:
    """One contestant: a name, a proposer kind, and (for model proposers) the model and its endpoint."""

    name: str
    kind: str
    model: str | None = None
    base_url: str | None = None
    concurrency: int = 2  # operational defaults as `run --proposer openai` has them (OpenAIOptions), so that an
    request_timeout: float = 60.0  # unreachable endpoint is given up on as soon as `run` gives up on it

    def identity(self) -> dict[str, Any]:
        """Return what the protocol hash covers (the endpoint's location and timeouts are operational)."""
        return {"name": self.name, "proposer": self.kind, "model": self.model}


@dataclass(frozen=True)
class BenchSpec:
    """A validated bench spec; `protocol()` is what `protocol_sha256` hashes."""

    path: Path
    contracts: tuple[Contract, ...]
    budget: int
    seeds: tuple[int, ...]
    proposers: tuple[ProposerSpec, ...]
    rewards: RewardTable
    time_limit: float | None = None
    samples: int = 4
    temperature: float = 0.7
    max_tokens: int = 256

    def protocol(self) -> dict[str, Any]:
        """Return the frozen protocol: contracts, schemas, templates, budget, seeds, sampling, proposers."""
        return {
            "mathloop_version": __version__,
            "targets": [{"name": c.name, "contract_sha256": c.sha256,
                         "candidate_schema_sha256": sha256_hex(canonical_json(candidate_schema(c, build_target(c))))}
                        for c in self.contracts],
            "prompt_templates": template_hashes(),
            "budget": self.budget, "seeds": list(self.seeds), "time_limit": _exact(self.time_limit),
            "samples": self.samples, "temperature": _exact(self.temperature), "max_tokens": self.max_tokens,
            "rewards": {k: _exact(v) for k, v in self.rewards.to_json().items()},
            "proposers": [p.identity() for p in self.proposers],
        }

    @property
    def protocol_sha256(self) -> str:
        return sha256_hex(canonical_json(self.protocol()))


def _exact(x: float | None) -> str | None:
    """Return a float as its shortest repr string (canonical JSON refuses floats)."""
    return None if x is None else repr(float(x))


def template_hashes() -> dict[str, str]:
    """Return {file: sha256} of every prompt template the model proposer ships."""
    root = resources.files("mathloop.propose").joinpath("prompts")
    return {p.name: sha256_hex(p.read_bytes()) for p in sorted(root.iterdir(), key=lambda p: p.name) if p.is_file()}


def _at_least(minimum: int) -> BeforeValidator:
    """Return the check of an integer key >= `minimum` (a bool or a float is not an integer)."""
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise refuse(f"must be an integer >= {minimum}, got {value!r}")
        return value
    return BeforeValidator(check)


def _number_in(lo: float, hi: float | None = None) -> BeforeValidator:
    """Return the check of a number key in [lo, hi] (an int is accepted and read as a float)."""
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= lo or (hi is not None and value > hi):
            raise refuse(f"must be a number in [{lo}, {hi if hi is not None else 'inf'}], got {value!r}")
        return float(value)
    return BeforeValidator(check)


Count = Annotated[int, _at_least(1), Field(ge=1)]
Seed = Annotated[int, _at_least(0), Field(ge=0)]
Tokens = Annotated[int, _at_least(16), Field(ge=16)]
Seconds = Annotated[float, _number_in(0.1), Field(ge=0.1)]
Temperature = Annotated[float, _number_in(0.0, 2.0), Field(ge=0.0, le=2.0)]


def _name(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip() or "/" in value or value.startswith("."):
        raise refuse(f"must be a non-empty name without '/', got {value!r}")
    return value


def _kind(value: Any) -> Any:
    if value not in KINDS:
        raise refuse(f"must be one of {', '.join(KINDS)}, got {value!r}")
    return value


def _targets(value: Any) -> Any:
    if not isinstance(value, list) or not value or not all(isinstance(t, str) for t in value):
        raise refuse(f"must be a non-empty list of target names, got {value!r}")
    return value


def _seeds(value: Any) -> Any:
    if not isinstance(value, list) or not value or len(set(map(repr, value))) != len(value):
        raise refuse(f"must be a non-empty list of distinct integers, got {value!r}")
    return value


def _rewards(value: Any) -> RewardTable:
    if not isinstance(value, dict):
        raise refuse("must be a table")
    try:
        return RewardTable.from_mapping(value)
    except (TypeError, ValueError) as e:  # "rewards.<key>: reason"
        key, _, reason = str(e).partition(":")
        raise refuse(reason.strip(), key.removeprefix("rewards.") if key.startswith("rewards.") else None) from None


class _Proposer(BaseModel):
    """One [[proposers]] table as written."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[str, BeforeValidator(_name)]
    proposer: Annotated[str, BeforeValidator(_kind)] = "local"
    model: str | None = None
    base_url: str | None = None
    concurrency: Count = 2  # operational defaults as `run --proposer openai` has them (OpenAIOptions), so that an
    request_timeout: Seconds = 60.0  # unreachable endpoint is given up on as soon as `run` gives up on it

    @model_validator(mode="after")
    def _endpoint(self) -> "_Proposer":
        if self.proposer == "local":
            if self.model is not None or self.base_url is not None:
                raise refuse("a local proposer takes no model or base_url", "model")
            return self
        if not isinstance(self.model, str) or not self.model.strip():
            raise refuse(f"required for proposer {self.proposer!r}", "model")
        if self.base_url is not None:
            try:
                check_base_url(self.base_url)
            except ValueError as e:
                raise refuse(str(e).removeprefix("base_url: "), "base_url") from None
        return self


class _Protocol(BaseModel):
    """The [protocol] table as written."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    targets: Annotated[list[str], BeforeValidator(_targets)]
    budget: Count
    seeds: Annotated[list[Seed], BeforeValidator(_seeds)]
    time_limit: Seconds | None = None
    samples: Count = 4
    temperature: Temperature = 0.7
    max_tokens: Tokens = 256


class _Spec(BaseModel):
    """A whole bench spec file as written (before its targets are loaded)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, arbitrary_types_allowed=True)

    protocol: _Protocol
    proposers: Annotated[list[_Proposer], Field(min_length=1)]
    rewards: Annotated[RewardTable, BeforeValidator(_rewards)] = RewardTable()


def load_spec(path: str | Path) -> BenchSpec:
    """Return the validated spec.

    Raises:
        SpecError: "<file>: <key>: reason" for a missing, unknown or invalid key.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SpecError(path, "<file>", e.strerror or str(e)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SpecError(path, "<file>", f"not valid TOML: {e}") from None
    except ValueError as e:  # e.g. an integer beyond Python's int-string digit limit
        raise SpecError(path, "<file>", f"not readable: {str(e)[:200]}") from None
    try:
        spec = _Spec.model_validate(data)
    except ValidationError as e:
        raise SpecError(path, *first_error(e, data, root="<file>")) from None
    proto = spec.protocol
    contracts = []
    for i, t in enumerate(proto.targets):
        try:
            contracts.append(load_contract(t))
        except ContractError as e:
            raise SpecError(path, f"protocol.targets[{i}]", str(e)) from None
    if len({c.name for c in contracts}) != len(contracts):
        raise SpecError(path, "protocol.targets", "names a target twice")
    proposers = tuple(ProposerSpec(p.name, p.proposer, p.model, p.base_url, p.concurrency, p.request_timeout)
                      for p in spec.proposers)
    if len({p.name for p in proposers}) != len(proposers):
        raise SpecError(path, "proposers", "two proposers share a name")
    return BenchSpec(path=path, contracts=tuple(contracts), budget=proto.budget, seeds=tuple(proto.seeds),
                     proposers=proposers, rewards=spec.rewards, time_limit=proto.time_limit, samples=proto.samples,
                     temperature=proto.temperature, max_tokens=proto.max_tokens)
