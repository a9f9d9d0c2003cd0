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
from typing import Any, Mapping

from mathloop import __version__
from mathloop.contract import Contract, ContractError
from mathloop.targets import load_contract
from mathloop.domain import canonical_json, sha256_hex
from mathloop.env.rewards import RewardTable
from mathloop.propose.chat import check_base_url
from mathloop.propose.schemas import candidate_schema
from mathloop.targets import build_target

KINDS = ("local", "openai", "openai+local")
_PROTOCOL_KEYS = {"targets", "budget", "seeds", "time_limit", "samples", "temperature", "max_tokens"}
_PROPOSER_KEYS = {"name", "proposer", "model", "base_url", "concurrency", "request_timeout"}
_TOP_KEYS = {"protocol", "proposers", "rewards"}


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


def _int(path: Path, key: str, value: Any, *, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SpecError(path, key, f"must be an integer >= {minimum}, got {value!r}")
    return value


def _number(path: Path, key: str, value: Any, lo: float, hi: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= lo or (hi is not None and value > hi):
        raise SpecError(path, key, f"must be a number in [{lo}, {hi if hi is not None else 'inf'}], got {value!r}")
    return float(value)


def _unknown(path: Path, where: str, table: Mapping[str, Any], known: set[str]) -> None:
    for key in table:
        if key not in known:
            prefix = f"{where}." if where else ""
            raise SpecError(path, f"{prefix}{key}", f"unknown key (known: {', '.join(sorted(known))})")


def _proposer(path: Path, i: int, t: Any) -> ProposerSpec:
    key = f"proposers[{i}]"
    if not isinstance(t, dict):
        raise SpecError(path, key, "must be a table")
    _unknown(path, key, t, _PROPOSER_KEYS)
    name = t.get("name")
    if not isinstance(name, str) or not name.strip() or "/" in name or name.startswith("."):
        raise SpecError(path, f"{key}.name", f"must be a non-empty name without '/', got {name!r}")
    kind = t.get("proposer", "local")
    if kind not in KINDS:
        raise SpecError(path, f"{key}.proposer", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    model, base_url = t.get("model"), t.get("base_url")
    if kind == "local":
        if model is not None or base_url is not None:
            raise SpecError(path, f"{key}.model", "a local proposer takes no model or base_url")
    else:
        if not isinstance(model, str) or not model.strip():
            raise SpecError(path, f"{key}.model", f"required for proposer {kind!r}")
        if base_url is not None:
            if not isinstance(base_url, str):
                raise SpecError(path, f"{key}.base_url", f"must be a string, got {base_url!r}")
            try:
                check_base_url(base_url)
            except ValueError as e:
                raise SpecError(path, f"{key}.base_url", str(e).removeprefix("base_url: ")) from None
    return ProposerSpec(name, kind, model, base_url, _int(path, f"{key}.concurrency", t.get("concurrency", 2)),
                        _number(path, f"{key}.request_timeout", t.get("request_timeout", 60.0), 0.1))


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
    _unknown(path, "", data, _TOP_KEYS)
    proto = data.get("protocol")
    if not isinstance(proto, dict):
        raise SpecError(path, "protocol", "missing table [protocol]")
    _unknown(path, "protocol", proto, _PROTOCOL_KEYS)
    for key in ("targets", "budget", "seeds"):
        if key not in proto:
            raise SpecError(path, f"protocol.{key}", "required")
    targets = proto["targets"]
    if not isinstance(targets, list) or not targets or not all(isinstance(t, str) for t in targets):
        raise SpecError(path, "protocol.targets", f"must be a non-empty list of target names, got {targets!r}")
    contracts = []
    for i, t in enumerate(targets):
        try:
            contracts.append(load_contract(t))
        except ContractError as e:
            raise SpecError(path, f"protocol.targets[{i}]", str(e)) from None
    if len({c.name for c in contracts}) != len(contracts):
        raise SpecError(path, "protocol.targets", "names a target twice")
    seeds = proto["seeds"]
    if not isinstance(seeds, list) or not seeds or len(set(map(repr, seeds))) != len(seeds):
        raise SpecError(path, "protocol.seeds", f"must be a non-empty list of distinct integers, got {seeds!r}")
    seeds = tuple(_int(path, f"protocol.seeds[{i}]", s, minimum=0) for i, s in enumerate(seeds))
    props = data.get("proposers")
    if not isinstance(props, list) or not props:
        raise SpecError(path, "proposers", "at least one [[proposers]] table is required")
    proposers = tuple(_proposer(path, i, t) for i, t in enumerate(props))
    if len({p.name for p in proposers}) != len(proposers):
        raise SpecError(path, "proposers", "two proposers share a name")
    rewards_table = data.get("rewards", {})
    if not isinstance(rewards_table, dict):
        raise SpecError(path, "rewards", "must be a table")
    try:
        rewards = RewardTable.from_mapping(rewards_table)
    except (TypeError, ValueError) as e:
        raise SpecError(path, str(e).split(":", 1)[0], str(e).split(":", 1)[-1].strip()) from None
    time_limit = proto.get("time_limit")
    return BenchSpec(
        path=path, contracts=tuple(contracts), budget=_int(path, "protocol.budget", proto["budget"]), seeds=seeds,
        proposers=proposers, rewards=rewards,
        time_limit=None if time_limit is None else _number(path, "protocol.time_limit", time_limit, 0.1),
        samples=_int(path, "protocol.samples", proto.get("samples", 4)),
        temperature=_number(path, "protocol.temperature", proto.get("temperature", 0.7), 0.0, 2.0),
        max_tokens=_int(path, "protocol.max_tokens", proto.get("max_tokens", 256), minimum=16),
    )
