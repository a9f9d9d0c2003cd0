"""The contract's TOML tables as pydantic models (validated with contract.fields.validated)."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo, field_validator, model_validator

from mathloop.contract.fields import OptionalRational, OptionalText, Rational, Table, Text, non_empty, one_of, refuse
from mathloop.domain import Direction, Kind


def _required(value: Any) -> Any:
    if value is None:
        raise refuse("missing")
    return value


class BoundTable(Table):
    unknown_reason: ClassVar[str] = "unknown key"

    name: Annotated[Text, BeforeValidator(_required)] = None
    direction: Annotated[Direction, one_of(Direction, "must be 'maximize' or 'minimize'"), BeforeValidator(_required)] = None
    min_improvement: Annotated[Rational, BeforeValidator(_required)] = None
    digits: Any = 12
    class_maximum_basis: OptionalText = None
    class_maximum: OptionalRational = None
    goal: OptionalRational = None

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
    kind: Annotated[Kind, one_of(Kind, f"must be one of {', '.join(k.value for k in Kind)}")] = None
    depends_on: Any = []
    citation: OptionalText = None
    checker: Any = None
    protected: Any = True
    bound: Annotated[BoundTable | None, BeforeValidator(_bound_for_kind)] = None
    title: Text = None
    statement: Text = None

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
        return non_empty(v) if kind is not None else v

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
