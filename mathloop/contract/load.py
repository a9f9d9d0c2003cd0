"""Parse a contract's TOML into a Contract and validate it as a contract (the target's own rules are above)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from mathloop.contract.model import DEFAULT_BUDGET, DEFAULT_CHECK_TIMEOUT_S, BoundSpec, Contract, ContractError, Obligation
from mathloop.domain import Direction, Kind, sha256_hex

_TOP_KEYS = {"target", "parameters", "limits", "obligations", "seed"}
_TARGET_KEYS = {"implementation", "title", "statement"}
_OBLIGATION_KEYS = {"id", "kind", "title", "statement", "citation", "depends_on", "checker", "protected", "bound"}
_BOUND_KEYS = {"name", "direction", "min_improvement", "class_maximum", "class_maximum_basis", "goal", "digits"}
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


def _positive_int(path: Path, limits: Mapping[str, Any], key: str, default: int | None, hi: int) -> int | None:
    """Return limits[key] as an integer in [1, hi], or `default` when absent. Raises ContractError."""
    value = limits.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= hi:
        raise ContractError(path, f"limits.{key}", f"must be a positive integer (at most {hi})")
    return value


def _table(path: Path, data: Mapping[str, Any], key: str, allowed: set[str] | None, required: bool = True) -> dict:
    value = data.get(key)
    if value is None:
        if required:
            raise ContractError(path, key, "missing table")
        return {}
    if not isinstance(value, dict):
        raise ContractError(path, key, "must be a table")
    if allowed is not None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise ContractError(path, f"{key}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
    return value


def _str(path: Path, where: str, value: Any, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ContractError(path, where, "must be a non-empty string")
    return value


def _rational(path: Path, where: str, value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ContractError(path, where, "must be an exact rational as a string (e.g. \"1/1000000000\") or an integer")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ContractError(path, where, f"not a rational: {value!r}") from None


def _bound(path: Path, where: str, raw: Any) -> BoundSpec:
    if not isinstance(raw, dict):
        raise ContractError(path, where, "must be a table")
    unknown = sorted(set(raw) - _BOUND_KEYS)
    if unknown:
        raise ContractError(path, f"{where}.{unknown[0]}", "unknown key")
    for k in ("name", "direction", "min_improvement"):
        if k not in raw:
            raise ContractError(path, f"{where}.{k}", "missing")
    try:
        direction = Direction(raw["direction"])
    except ValueError:
        raise ContractError(path, f"{where}.direction", "must be 'maximize' or 'minimize'") from None
    delta = _rational(path, f"{where}.min_improvement", raw["min_improvement"])
    if delta <= 0:
        raise ContractError(path, f"{where}.min_improvement", "must be > 0 (strict progress)")
    digits = raw.get("digits", 12)
    if not isinstance(digits, int) or isinstance(digits, bool) or not 0 <= digits <= 60:
        raise ContractError(path, f"{where}.digits", "must be an integer in [0, 60]")
    basis = _str(path, f"{where}.class_maximum_basis", raw.get("class_maximum_basis"), required=False)
    if basis is not None and not basis.startswith(("theorem", "numerical optimum")):
        raise ContractError(path, f"{where}.class_maximum_basis", "must start with 'theorem' or 'numerical optimum'")
    if basis is not None and "class_maximum" not in raw:
        raise ContractError(path, f"{where}.class_maximum_basis", "given without a class_maximum")
    return BoundSpec(
        name=_str(path, f"{where}.name", raw["name"]),
        direction=direction,
        min_improvement=delta,
        class_maximum=_rational(path, f"{where}.class_maximum", raw["class_maximum"]) if "class_maximum" in raw else None,
        goal=_rational(path, f"{where}.goal", raw["goal"]) if "goal" in raw else None,
        digits=digits,
        class_maximum_basis=basis,
    )


def _obligation(path: Path, i: int, raw: Any) -> Obligation:
    where = f"obligations[{i}]"
    if not isinstance(raw, dict):
        raise ContractError(path, where, "must be a table")
    if isinstance(raw.get("id"), str) and raw["id"].strip():
        where = f"obligations.{raw['id']}"
    unknown = sorted(set(raw) - _OBLIGATION_KEYS)
    if unknown:
        raise ContractError(path, f"{where}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(_OBLIGATION_KEYS))})")
    oid = _str(path, f"{where}.id", raw.get("id"))
    where = f"obligations.{oid}"
    try:
        kind = Kind(raw.get("kind"))
    except ValueError:
        raise ContractError(path, f"{where}.kind", f"must be one of {', '.join(k.value for k in Kind)}") from None
    deps = raw.get("depends_on", [])
    if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        raise ContractError(path, f"{where}.depends_on", "must be a list of obligation ids")
    citation = _str(path, f"{where}.citation", raw.get("citation"), required=kind is Kind.HYPOTHESIS)
    checker = raw.get("checker")
    if kind is Kind.HYPOTHESIS:
        if checker is not None:
            raise ContractError(path, f"{where}.checker", "a hypothesis is taken as given and has no checker")
    else:
        checker = _str(path, f"{where}.checker", checker)
    protected = raw.get("protected", True)
    if not isinstance(protected, bool):
        raise ContractError(path, f"{where}.protected", "must be true or false")
    bound = None
    if kind is Kind.BOUND:
        if "bound" not in raw:
            raise ContractError(path, f"{where}.bound", "a bound obligation needs a [bound] table")
        bound = _bound(path, f"{where}.bound", raw["bound"])
    elif "bound" in raw:
        raise ContractError(path, f"{where}.bound", f"only bound obligations carry a bound (kind is {kind.value})")
    return Obligation(
        id=oid,
        kind=kind,
        title=_str(path, f"{where}.title", raw.get("title")),
        statement=_str(path, f"{where}.statement", raw.get("statement")),
        citation=citation,
        depends_on=tuple(deps),
        checker=checker,
        protected=protected,
        bound=bound,
    )


def _contract_sha(data: Mapping[str, Any]) -> str:
    """Hash the parsed TOML (not its bytes), so comments and layout do not fork a lineage."""
    blob = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return sha256_hex(blob.encode("utf-8"))


def _build(path: Path, text: str, data: Mapping[str, Any]) -> Contract:
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ContractError(path, unknown[0], f"unknown top-level key (allowed: {', '.join(sorted(_TOP_KEYS))})")
    target = _table(path, data, "target", _TARGET_KEYS)
    raw_obligations = data.get("obligations")
    if not isinstance(raw_obligations, list) or not raw_obligations:
        raise ContractError(path, "obligations", "missing or empty array of tables [[obligations]]")
    obligations = tuple(_obligation(path, i, o) for i, o in enumerate(raw_obligations))
    ids = [o.id for o in obligations]
    dup = next((x for x in ids if ids.count(x) > 1), None)
    if dup:
        raise ContractError(path, f"obligations.{dup}", "duplicate id")
    names = [o.bound.name for o in obligations if o.bound]
    dupb = next((x for x in names if names.count(x) > 1), None)
    if dupb:
        raise ContractError(path, f"bound {dupb}", "duplicate bound name")
    import networkx as nx  # imported on use: it costs a second at CLI start-up

    g = nx.DiGraph()
    g.add_nodes_from(ids)
    for o in obligations:
        for d in o.depends_on:
            if d not in ids:
                raise ContractError(path, f"obligations.{o.id}.depends_on", f"unknown obligation {d!r}")
            g.add_edge(d, o.id)
    if not nx.is_directed_acyclic_graph(g):
        cycle = " -> ".join(a for a, _ in nx.find_cycle(g))
        raise ContractError(path, "obligations", f"dependency cycle: {cycle}")
    seed = _table(path, data, "seed", None)
    if not seed:
        raise ContractError(path, "seed", "missing seed candidate")
    limits = _table(path, data, "limits", None, required=False)
    return Contract(
        name=path.stem,
        target=_str(path, "target.implementation", target.get("implementation")),
        title=_str(path, "target.title", target.get("title")),
        statement=_str(path, "target.statement", target.get("statement")),
        sha256=_contract_sha(data),
        path=path,
        text=text,
        obligations=obligations,
        parameters=_table(path, data, "parameters", None, required=False),
        limits=limits,
        seed=seed,
        check_timeout_s=_positive_int(path, limits, "check_timeout_s", DEFAULT_CHECK_TIMEOUT_S, 86_400),
        default_budget=_positive_int(path, limits, "default_budget", DEFAULT_BUDGET, 10**9),
        lean_timeout_s=_positive_int(path, limits, "lean_timeout_s", None, 86_400),
    )
