"""The contract's TOML tables as pydantic models, and the one translation of their errors into ContractError.

Every refusal keeps the form "file: key: reason" (key as in the TOML: `obligations.<id>.bound.direction`).
Targets validate their own [parameters] and [limits] with `validated()` and the field types below.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, ClassVar, Mapping, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from mathloop.contract.model import ContractError
from mathloop.domain import Direction, Kind

M = TypeVar("M", bound=BaseModel)


def refuse(reason: str, field: str | None = None) -> PydanticCustomError:
    """Return the error that becomes ContractError(path, key[.field], reason)."""
    return PydanticCustomError("mathloop", "{reason}", {"reason": reason, "field": field})


def _non_empty(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise refuse("must be a non-empty string")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else _non_empty(value)


def _rational(value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise refuse("must be an exact rational as a string (e.g. \"1/1000000000\") or an integer")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise refuse(f"not a rational: {value!r}") from None


def _optional_rational(value: Any) -> Fraction | None:
    return None if value is None else _rational(value)


Text = Annotated[str, BeforeValidator(_non_empty)]
OptionalText = Annotated[str | None, BeforeValidator(_optional_text)]
Rational = Annotated[Fraction, BeforeValidator(_rational)]
OptionalRational = Annotated[Fraction | None, BeforeValidator(_optional_rational)]


class Table(BaseModel):
    """A TOML table with a fixed set of keys: an unknown key is refused naming the allowed ones."""

    model_config = ConfigDict(extra="allow", validate_default=True, arbitrary_types_allowed=True, frozen=True)
    unknown_reason: ClassVar[str] = "unknown key (allowed: {allowed})"

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise refuse("must be a table")
        unknown = sorted(set(data) - set(cls.model_fields))
        if unknown:
            raise refuse(cls.unknown_reason.format(allowed=", ".join(sorted(cls.model_fields))), unknown[0])
        return data


def _required(value: Any) -> Any:
    if value is None:
        raise refuse("missing")
    return value


class BoundTable(Table):
    unknown_reason: ClassVar[str] = "unknown key"

    name: Annotated[Text, BeforeValidator(_required)] = None
    direction: Annotated[Any, BeforeValidator(_required)] = None
    min_improvement: Annotated[Rational, BeforeValidator(_required)] = None
    digits: Any = 12
    class_maximum_basis: OptionalText = None
    class_maximum: OptionalRational = None
    goal: OptionalRational = None

    @field_validator("direction")
    @classmethod
    def _direction(cls, v: Any) -> Direction:
        try:
            return Direction(v)
        except ValueError:
            raise refuse("must be 'maximize' or 'minimize'") from None

    @field_validator("min_improvement")
    @classmethod
    def _strict(cls, v: Fraction) -> Fraction:
        if v <= 0:
            raise refuse("must be > 0 (strict progress)")
        return v

    @field_validator("digits")
    @classmethod
    def _digits(cls, v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 60:
            raise refuse("must be an integer in [0, 60]")
        return v

    @field_validator("class_maximum_basis")
    @classmethod
    def _basis(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("theorem", "numerical optimum")):
            raise refuse("must start with 'theorem' or 'numerical optimum'")
        return v

    @model_validator(mode="after")
    def _basis_needs_value(self) -> "BoundTable":
        if self.class_maximum_basis is not None and self.class_maximum is None:
            raise refuse("given without a class_maximum", "class_maximum_basis")
        return self


def _bound_for_kind(value: Any, info: ValidationInfo) -> Any:
    kind = info.data.get("kind")
    if kind is Kind.BOUND and value is None:
        raise refuse("a bound obligation needs a [bound] table")
    if kind is not None and kind is not Kind.BOUND and value is not None:
        raise refuse(f"only bound obligations carry a bound (kind is {kind.value})")
    return value


class ObligationTable(Table):
    id: Text = None
    kind: Any = None
    depends_on: Any = []
    citation: OptionalText = None
    checker: Any = None
    protected: Any = True
    bound: Annotated[BoundTable | None, BeforeValidator(_bound_for_kind)] = None
    title: Text = None
    statement: Text = None

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: Any) -> Kind:
        try:
            return Kind(v)
        except ValueError:
            raise refuse(f"must be one of {', '.join(k.value for k in Kind)}") from None

    @field_validator("depends_on")
    @classmethod
    def _deps(cls, v: Any) -> tuple[str, ...]:
        if not isinstance(v, list) or not all(isinstance(d, str) for d in v):
            raise refuse("must be a list of obligation ids")
        return tuple(v)

    @field_validator("citation")
    @classmethod
    def _citation(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None and info.data.get("kind") is Kind.HYPOTHESIS:
            raise refuse("must be a non-empty string")
        return v

    @field_validator("checker")
    @classmethod
    def _checker(cls, v: Any, info: ValidationInfo) -> str | None:
        kind = info.data.get("kind")
        if kind is Kind.HYPOTHESIS:
            if v is not None:
                raise refuse("a hypothesis is taken as given and has no checker")
            return None
        return _non_empty(v) if kind is not None else v

    @field_validator("protected")
    @classmethod
    def _protected(cls, v: Any) -> bool:
        if not isinstance(v, bool):
            raise refuse("must be true or false")
        return v


class TargetTable(Table):
    implementation: Text = None
    title: Text = None
    statement: Text = None


def _positive_int(hi: int):
    def check(value: Any) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= hi:
            raise refuse(f"must be a positive integer (at most {hi})")
        return value
    return BeforeValidator(check)


def _table_or_empty(value: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise refuse("must be a table")
    return value


def _required_table(value: Any) -> Any:
    if value is None:
        raise refuse("missing table")
    return value


def _obligation_list(value: Any) -> Any:
    if not isinstance(value, list) or not value:
        raise refuse("missing or empty array of tables [[obligations]]")
    return value


def _seed(value: Any) -> dict:
    if value is not None and not isinstance(value, dict):
        raise refuse("must be a table")
    if not value:
        raise refuse("missing seed candidate")
    return value


PlainTable = Annotated[dict, BeforeValidator(_table_or_empty)]


class ContractFile(Table):
    """A whole contract file: [target], [[obligations]], [seed], and the target's [parameters] and [limits]."""

    unknown_reason: ClassVar[str] = "unknown top-level key (allowed: {allowed})"

    target: Annotated[TargetTable, BeforeValidator(_required_table)] = None
    obligations: Annotated[list[ObligationTable], BeforeValidator(_obligation_list)] = None
    seed: Annotated[dict, BeforeValidator(_seed)] = None
    limits: PlainTable = None
    parameters: PlainTable = None


class GenericLimits(BaseModel):
    """The [limits] keys every contract may set (the rest belong to the target)."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    check_timeout_s: Annotated[int | None, _positive_int(86_400)] = None
    default_budget: Annotated[int | None, _positive_int(10**9)] = None
    lean_timeout_s: Annotated[int | None, _positive_int(86_400)] = None


def int_in(lo: int, hi: int, *, required: bool = True, digit_strings: bool = False) -> BeforeValidator:
    """Return the validator of an integer key in [lo, hi] ("missing" when absent and required; None else).

    digit_strings: also accept "123" (a TOML string of ASCII digits).
    """
    def check(value: Any) -> int | None:
        if value is None:
            if required:
                raise refuse("missing")
            return None
        if digit_strings and isinstance(value, str) and value.isascii() and value.isdigit():
            try:
                value = int(value)
            except ValueError:  # beyond Python's int-string digit limit: out of range below
                pass
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise refuse(f"must be an integer in [{lo}, {hi}]")
        return value
    return BeforeValidator(check)


def flag(default: bool) -> BeforeValidator:
    """Return the validator of a true/false key (`default` when absent)."""
    def check(value: Any) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            raise refuse("must be true or false")
        return value
    return BeforeValidator(check)


def exact_rational(message: str) -> BeforeValidator:
    """Return the validator of a required exact rational key; `message` refuses a value of another type."""
    def check(value: Any) -> Fraction:
        if value is None:
            raise refuse("missing")
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise refuse(message)
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise refuse(f"not a rational: {value!r}") from None
    return BeforeValidator(check)


def validated(model: type[M], data: Any, path: Path | str, prefix: str = "") -> M:
    """Return `data` validated as `model`. Raises ContractError(path, key, reason), key under `prefix`."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise contract_error(e, path, prefix, data) from None


def contract_error(e: ValidationError, path: Path | str, prefix: str, data: Any) -> ContractError:
    """Return the ContractError for the first error of `e` (its key as written in the TOML)."""
    err = e.errors(include_url=False)[0]
    ctx = err.get("ctx") or {}
    parts = [prefix] if prefix else []
    node: Any = data
    for step in err["loc"]:
        if isinstance(step, int):
            item = node[step] if isinstance(node, list) and step < len(node) else None
            oid = item.get("id") if isinstance(item, dict) else None
            parts[-1] = f"{parts[-1]}.{oid}" if isinstance(oid, str) and oid.strip() else f"{parts[-1]}[{step}]"
            node = item
        else:
            parts.append(str(step))
            node = node.get(step) if isinstance(node, dict) else None
    if ctx.get("field"):
        parts.append(ctx["field"])
    reason = ctx.get("reason") or _generic_reason(err)
    return ContractError(path, ".".join(parts) or "<contract>", reason)


def _generic_reason(err: Mapping[str, Any]) -> str:
    kind = err.get("type", "")
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return "must be a table"
    if kind == "missing":
        return "missing"
    return str(err.get("msg", "invalid"))[:200]
