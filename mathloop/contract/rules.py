"""What a target's soundness needs from any contract it checks: required obligations and limit floors.

A contract is data a user may edit. The target, not the contract, knows which obligations make
its bound true (a hypothesis such as RH, a positivity check, ...), so the target declares them and every
contract — shipped or named with `--contract` — is refused when it drops one, changes its kind,
checker or bound, or moves a limit past a declared floor. Refused at load time: before any check.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathloop.contract.model import Contract, ContractError
from mathloop.domain import Direction, Kind


@dataclass(frozen=True)
class Required:
    """An obligation the target's soundness needs, with what it must be.

    Attributes:
        id: the obligation id.
        kind: its kind (a hypothesis the bound rests on, a check that makes the bound true, ...).
        checker: the target's check that decides it (None for hypotheses).
        bound: for a bound obligation, the bound name it must carry.
        direction: for a bound obligation, the direction it must have.
    """

    id: str
    kind: Kind
    checker: str | None = None
    bound: str | None = None
    direction: Direction | None = None


@dataclass(frozen=True)
class Floor:
    """A limit a contract may not loosen: `key` stays >= value (or <= value when `at_most`).

    Attributes:
        key: "parameters.NAME", "limits.NAME" or "bounds.NAME.class_maximum".
        value: the floor (or ceiling).
        at_most: True when the value is an upper limit (a ceiling) rather than a lower one.
        why: the mathematical reason, shown in the refusal.
    """

    key: str
    value: Fraction
    at_most: bool = False
    why: str = ""


def proportion_ceiling(bound: str) -> Floor:
    """Return the ceiling 1 on a proportion bound's class maximum (a proportion of zeros is at most 1)."""
    return Floor(f"bounds.{bound}.class_maximum", Fraction(1), at_most=True, why="a proportion of zeros is at most 1")


def enforce(contract: Contract, required: tuple[Required, ...], floors: tuple[Floor, ...]) -> None:
    """Raise ContractError naming the obligation or key unless the contract keeps every rule.

    Raises:
        ContractError: a required obligation is missing or has another kind, checker or bound;
            a floor is crossed (or its key is absent or not a number).
    """
    ids = {o.id: o for o in contract.obligations}
    for r in required:
        where = f"obligations.{r.id}"
        o = ids.get(r.id)
        if o is None:
            raise ContractError(contract.path, where, f"required {r.kind.value} obligation {r.id!r} is missing: "
                                                      "the target's soundness needs it")
        if o.kind is not r.kind:
            raise ContractError(contract.path, f"{where}.kind", f"must be {r.kind.value!r} (the target's soundness "
                                                                f"needs it), not {o.kind.value!r}")
        if r.checker is not None and o.checker != r.checker:
            raise ContractError(contract.path, f"{where}.checker", f"must be {r.checker!r} (the target's soundness "
                                                                   f"needs it), not {o.checker!r}")
        if r.bound is not None and (o.bound is None or o.bound.name != r.bound):
            raise ContractError(contract.path, f"{where}.bound.name", f"must be {r.bound!r}")
        if r.direction is not None and (o.bound is None or o.bound.direction is not r.direction):
            raise ContractError(contract.path, f"{where}.bound.direction", f"must be {r.direction.value!r}")
    for f in floors:
        value = _value(contract, f.key)
        if value is None:
            raise ContractError(contract.path, f.key, f"missing: the target needs it {'<=' if f.at_most else '>='} "
                                                      f"{f.value} ({f.why})")
        if (value > f.value) if f.at_most else (value < f.value):
            raise ContractError(contract.path, f.key, f"{value} is {'above' if f.at_most else 'below'} the target's "
                                                      f"{'ceiling' if f.at_most else 'floor'} {f.value}: {f.why}")


def _value(contract: Contract, key: str) -> Fraction | None:
    """Return the rational at `key` in the contract, or None when it is absent or not a number."""
    table, _, rest = key.partition(".")
    raw: Any
    if table == "bounds":
        name, _, field = rest.partition(".")
        try:
            spec = contract.bound_spec(name)
        except KeyError:
            return None
        fields = {"class_maximum": spec.class_maximum, "goal": spec.goal, "min_improvement": spec.min_improvement}
        if field not in fields:
            raise ValueError(f"floor key {key!r}: a bound floor names class_maximum, goal or min_improvement")
        raw = fields[field]
    elif table == "parameters":
        raw = contract.parameters.get(rest)
    elif table == "limits":
        raw = contract.limits.get(rest)
    else:
        raise ValueError(f"floor key {key!r}: must start with parameters., limits. or bounds.")
    if isinstance(raw, bool) or raw is None:
        return None
    try:
        return Fraction(raw) if isinstance(raw, (int, str, Fraction)) else None
    except (ValueError, ZeroDivisionError):
        return None
