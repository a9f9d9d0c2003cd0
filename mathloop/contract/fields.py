"""Field validators for TOML tables (pydantic), and the one translation of their errors into ContractError.

Every refusal keeps the form "file: key: reason" (key as in the TOML: `obligations.<id>.bound.direction`).
The contract's models (schema.py) and the targets' settings models use them.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, ClassVar, Mapping, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from mathloop.contract.model import ContractError

M = TypeVar("M", bound=BaseModel)


def refuse(reason: str, field: str | None = None) -> PydanticCustomError:
    """Return the error that becomes ContractError(path, key[.field], reason)."""
    return PydanticCustomError("mathloop", "{reason}", {"reason": reason, "field": field})


def non_empty(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise refuse("must be a non-empty string")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else non_empty(value)


def _rational(value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise refuse("must be an exact rational as a string (e.g. \"1/1000000000\") or an integer")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise refuse(f"not a rational: {value!r}") from None


def _optional_rational(value: Any) -> Fraction | None:
    return None if value is None else _rational(value)


Text = Annotated[str, BeforeValidator(non_empty)]
OptionalText = Annotated[str | None, BeforeValidator(_optional_text)]
Rational = Annotated[Fraction, BeforeValidator(_rational)]
OptionalRational = Annotated[Fraction | None, BeforeValidator(_optional_rational)]


class Table(BaseModel):
    """A TOML table with a fixed set of keys: an unknown key is refused naming the allowed ones (extra="forbid")."""

    model_config = ConfigDict(extra="forbid", validate_default=True, arbitrary_types_allowed=True, frozen=True)
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


def one_of(enum: type, message: str) -> BeforeValidator:
    """Return the validator of a key whose value is one of `enum`'s values (`message` refuses any other)."""
    def check(value: Any) -> Any:
        try:
            return enum(value)
        except ValueError:
            raise refuse(message) from None
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
    return ContractError(path, *first_error(e, data, prefix))


def first_error(e: ValidationError, data: Any, prefix: str = "", root: str = "<contract>") -> tuple[str, str]:
    """Return (key, reason) of the first error of `e` (an unknown key first): the key as written, under `prefix`.

    The one translation of pydantic's errors into mathloop's "file: key: reason" refusals (contracts, settings,
    bench specs, checkpoints, model replies): a list entry is `list[i]`, or `list.<id>` when it has an id.
    """
    errors = e.errors(include_url=False)
    # A misspelt key is both an unknown key and a missing one: name the key as the user wrote it.
    err = next((x for x in errors if x.get("type") == "extra_forbidden"), errors[0])
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
        if str(ctx["field"]).startswith("[") and parts:  # an entry of the list the error is about
            parts[-1] += ctx["field"]
        else:
            parts.append(ctx["field"])
    return ".".join(parts) or root, ctx.get("reason") or _generic_reason(err)


def _generic_reason(err: Mapping[str, Any]) -> str:
    kind = err.get("type", "")
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return "must be a table"
    if kind == "missing":
        return "missing"
    if kind == "extra_forbidden":
        return "unknown key"
    if kind in _LIMITS:
        op, name = _LIMITS[kind]
        return f"must be {op} {(err.get('ctx') or {}).get(name)}, got {repr(err.get('input'))[:60]}"
    if kind in _TYPE_NAMES:
        return f"must be {_TYPE_NAMES[kind]}, got {repr(err.get('input'))[:60]}"
    return str(err.get("msg", "invalid")).removeprefix("Value error, ")[:200]


_LIMITS = {"greater_than_equal": (">=", "ge"), "greater_than": (">", "gt"), "less_than_equal": ("<=", "le"),
           "less_than": ("<", "lt")}
_TYPE_NAMES = {"string_type": "a string", "int_type": "an integer", "float_type": "a number", "bool_type": "true or false",
               "list_type": "a list", "dict_type": "a table"}
