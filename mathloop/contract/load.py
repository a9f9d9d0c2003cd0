"""Parse a contract's TOML into a Contract and validate it as a contract (the target's own rules are above)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from typing import Any, Mapping

from mathloop.contract.model import DEFAULT_BUDGET, DEFAULT_CHECK_TIMEOUT_S, BoundSpec, Contract, ContractError, Obligation
from mathloop.contract.fields import validated
from mathloop.contract.schema import ContractFile, GenericLimits, ObligationTable
from mathloop.domain import sha256_hex

MAX_CONTRACT_BYTES = 1_000_000


def read_contract_file(path: Path) -> bytes:
    """Return the bytes of the user contract at `path` (at most MAX_CONTRACT_BYTES + 1). Raises ContractError."""
    if not path.is_file():
        raise ContractError(path, "<file>", "no such contract file")
    try:
        with path.open("rb") as f:
            return f.read(MAX_CONTRACT_BYTES + 1)
    except OSError as e:
        raise ContractError(path, "<file>", f"cannot read: {e.strerror}") from None


def parse_contract(path: Path, raw_bytes: bytes, *, source: str, package: str | None) -> Contract:
    """Return the contract parsed from TOML bytes and validated as a contract (keys, values, DAG, seed present).

    What a target needs from it (required obligations, floors, checkers, parameters, seed) is checked by
    the target, above this layer: `mathloop.targets.load_contract` does both.

    Raises:
        ContractError: too large, bad UTF-8 or TOML, unknown/missing keys, bad values, a cycle, an unknown
            dependency.
    """
    if len(raw_bytes) > MAX_CONTRACT_BYTES:
        raise ContractError(path, "<file>", f"larger than {MAX_CONTRACT_BYTES} bytes")
    try:
        text = raw_bytes.decode("utf-8")
        data = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ContractError(path, "<toml>", f"not valid TOML: {e}") from None
    except ValueError as e:  # e.g. an integer beyond Python's int-string digit limit
        raise ContractError(path, "<toml>", f"not readable: {str(e)[:200]}") from None
    return replace(_build(path, text, data), source=source, package=package)


def _contract_sha(data: Mapping[str, Any]) -> str:
    """Hash the parsed TOML (not its bytes), so comments and layout do not fork a lineage."""
    blob = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return sha256_hex(blob.encode("utf-8"))


def _build(path: Path, text: str, data: Mapping[str, Any]) -> Contract:
    f = validated(ContractFile, data, path)
    obligations = tuple(_obligation(o) for o in f.obligations)
    ids = [o.id for o in obligations]
    dup = next((x for x in ids if ids.count(x) > 1), None)
    if dup:
        raise ContractError(path, f"obligations.{dup}", "duplicate id")
    names = [o.bound.name for o in obligations if o.bound]
    dupb = next((x for x in names if names.count(x) > 1), None)
    if dupb:
        raise ContractError(path, f"bound {dupb}", "duplicate bound name")
    for o in obligations:
        for d in o.depends_on:
            if d not in ids:
                raise ContractError(path, f"obligations.{o.id}.depends_on", f"unknown obligation {d!r}")
    try:  # the standard library's sorter, not networkx: loading every contract is on each command's start-up path
        tuple(TopologicalSorter({o.id: o.depends_on for o in obligations}).static_order())
    except CycleError as e:  # e.args[1]: each node depends on the one before it, the first repeated last
        cycle = " -> ".join(e.args[1][:-1])
        raise ContractError(path, "obligations", f"dependency cycle: {cycle}") from None
    limits = validated(GenericLimits, f.limits, path, "limits")
    return Contract(
        name=path.stem,
        target=f.target.implementation,
        title=f.target.title,
        statement=f.target.statement,
        sha256=_contract_sha(data),
        path=path,
        text=text,
        obligations=obligations,
        parameters=f.parameters,
        limits=f.limits,
        seed=f.seed,
        check_timeout_s=limits.check_timeout_s or DEFAULT_CHECK_TIMEOUT_S,
        default_budget=limits.default_budget or DEFAULT_BUDGET,
        lean_timeout_s=limits.lean_timeout_s,
    )


def _obligation(o: ObligationTable) -> Obligation:
    b = o.bound
    bound = None if b is None else BoundSpec(name=b.name, direction=b.direction, min_improvement=b.min_improvement,
                                            class_maximum=b.class_maximum, goal=b.goal, digits=b.digits,
                                            class_maximum_basis=b.class_maximum_basis)
    return Obligation(id=o.id, kind=o.kind, title=o.title, statement=o.statement, citation=o.citation,
                      depends_on=o.depends_on, checker=o.checker, protected=o.protected, bound=bound)
