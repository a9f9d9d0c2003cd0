"""The published records of a table constant and mathloop's own, read from the target package's `data/records.toml`.

One file per constant of "Optimization Constants in Mathematics" (GitHub teorth/optimizationproblems), in the format
of the project's records note: a `[constant]` table, `[[published]]` entries (who, the value as printed, date,
source, the construction file stored beside it in `data/` or why it could not be obtained, and the value mathloop
certifies for it, rounded outward to 12 digits, with its Lean status) and `[[mathloop]]` entries (a certified value strictly better than
the published best, with its exact value, certificate file, the command that re-certifies it and its Lean status).
A target class names the package holding the file with `records_package` (targets/base.py), and the file with
`records_file` when one package holds several constants (e.g. records-3b.toml, records-3c.toml); `published_bounds()`
(reference lines in plots) and `mathloop records` both read it here. Display data only: the gate never reads it.
"""

from __future__ import annotations

import functools
import re
import tomllib
from enum import Enum
from fractions import Fraction
from importlib import resources
from typing import Annotated, Any, Protocol

from pydantic import BeforeValidator, model_validator

from mathloop.contract.fields import Table, Text, refuse, validated
from mathloop.contract.model import ContractError


RECORDS_FILE = "records.toml"
DIGITS = 12  # the `certified` and mathloop `value` strings: rounded outward to 12 digits after the point
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_DATE = re.compile(r"[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?")
_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Direction(str, Enum):
    """Which way a bound improves: "upper" (smaller is better) or "lower" (larger is better)."""

    UPPER = "upper"
    LOWER = "lower"


def _decimal(value: Any) -> str:
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
        raise refuse("must be a decimal number written as a string, e.g. \"1.502862\"")
    return value


def _optional_decimal(value: Any) -> str:
    return "" if value == "" else _decimal(value)


def _date(value: Any) -> str:
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        raise refuse("must be an ISO date string: \"2026-05-01\", \"2026-05\" or \"2026\"")
    return value


def _file(value: Any) -> str:
    if not isinstance(value, str) or (value and not _FILE.fullmatch(value)):
        raise refuse("must be a file name in the package's data/ folder (no path), or \"\"")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise refuse("must be a string")
    return value


Decimal = Annotated[str, BeforeValidator(_decimal)]
OptionalDecimal = Annotated[str, BeforeValidator(_optional_decimal)]
Date = Annotated[str, BeforeValidator(_date)]
FileName = Annotated[str, BeforeValidator(_file)]
OptionalText = Annotated[str, BeforeValidator(_text)]


class LeanStatus(str, Enum):
    """What a records file may say of a construction's Lean status; "checked" is backed by the Lean tier's test.

    A real kernel accepted the construction's rendered claims against mathloop's support modules ("checked"), the
    target renders no Lean for it ("not rendered", e.g. above its Lean size), or it was not Lean-checked ("not run").
    """

    CHECKED = "checked"
    NOT_RENDERED = "not rendered"
    NOT_RUN = "not run"


class Constant(Table):
    """The `[constant]` table: which constant of the table, and the target's bound obligation that bounds it."""

    table_id: Text
    name: Text
    symbol: Text
    bound: Text
    direction: Direction
    definition: Text


class Published(Table):
    """One published record: `construction` is a file in data/ ("" with `why_not` when it could not be obtained)."""

    who: Text
    value: Decimal
    date: Date
    source: Text
    construction: FileName = ""
    certified: OptionalDecimal = ""
    lean: LeanStatus = LeanStatus.NOT_RUN
    why_not: OptionalText = ""
    # the contract that certifies the construction ("" = the widest contract of the records' target package) and,
    # for a recursive construction, the hypotheses (obligation ids of that contract) its bound is conditional on
    contract: OptionalText = ""
    conditional_on: list[Text] = []

    @model_validator(mode="after")
    def _obtained_or_why(self) -> "Published":
        if not self.construction and not self.why_not.strip():
            raise refuse("a record without a construction file must say why it could not be obtained", "why_not")
        if not self.construction and self.certified:
            raise refuse("nothing is certified without a construction file", "certified")
        if self.lean is LeanStatus.CHECKED and not self.certified:
            raise refuse("only a certified construction can be Lean-checked", "lean")
        if self.conditional_on and not self.contract:
            raise refuse("a conditional record names the contract whose hypotheses it rests on", "contract")
        return self


class Own(Table):
    """One of mathloop's own records: a certified value strictly better than the published best."""

    who: Text
    value: Decimal
    exact: OptionalText = ""
    date: Date
    construction: FileName
    command: Text
    lean: LeanStatus


class ConstantRecords(Table):
    """A constant's records file. `best` is the best published entry in the constant's direction."""

    constant: Constant
    published: list[Published]
    mathloop: list[Own] = []

    @model_validator(mode="after")
    def _some_published(self) -> "ConstantRecords":
        if not self.published:
            raise refuse("at least one [[published]] record is needed", "published")
        return self

    def better(self, a: Fraction, b: Fraction) -> bool:
        """Return True when value a is strictly better than b in the constant's direction."""
        return a < b if self.constant.direction is Direction.UPPER else a > b

    @property
    def best(self) -> Published:
        """Return the best published record (the first listed among equal values)."""
        top = self.published[0]
        for p in self.published[1:]:
            if self.better(Fraction(p.value), Fraction(top.value)):
                top = p
        return top

    @property
    def best_own(self) -> Own | None:
        """Return mathloop's best own record, or None."""
        top = None
        for o in self.mathloop:
            if top is None or self.better(Fraction(o.value), Fraction(top.value)):
                top = o
        return top


def outward(x: Fraction, direction: Direction | str, digits: int = DIGITS) -> str:
    """Return x as a decimal with `digits` places, rounded down for a lower bound and up for an upper bound.

    >>> outward(Fraction(2, 3), "lower"), outward(Fraction(2, 3), "upper"), outward(Fraction(-2, 3), "lower", 2)
    ('0.666666666666', '0.666666666667', '-0.67')
    """
    scale = 10**digits
    k = (x * scale).__floor__() if Direction(direction) is Direction.LOWER else (x * scale).__ceil__()
    sign, k = ("-", -k) if k < 0 else ("", k)
    return f"{sign}{k // scale}.{k % scale:0{digits}d}"


def records_file(package: str, name: str = RECORDS_FILE) -> Any:
    """Return the Traversable of `package`'s data/<name> (package data, read with importlib.resources)."""
    return resources.files(package) / "data" / name


@functools.lru_cache(maxsize=64)
def load(package: str, name: str = RECORDS_FILE) -> ConstantRecords:
    """Return the validated records of the constant whose target package is `package` (file data/<name>).

    Raises:
        ContractError: the file is missing, not TOML, or a key is invalid ("<file>: <key>: <reason>").
    """
    where = f"{package.replace('.', '/')}/data/{name}"
    try:
        text = records_file(package, name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContractError(where, "<file>", "missing: the package declares records but ships no records.toml") from None
    except UnicodeDecodeError as e:
        raise ContractError(where, "<file>", f"not UTF-8: {e}") from None
    return parse(text, where)


def parse(text: str, where: str) -> ConstantRecords:
    """Return the validated records of a records file's text (`where` names it in errors).

    Raises:
        ContractError: not TOML, or a key is invalid.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ContractError(where, "<file>", f"not valid TOML: {e}") from None
    return validated(ConstantRecords, data, where)


class RecordsHolder(Protocol):
    """A target class as the records functions see it (the PublishedRecords capability of targets/base.py; named
    here by shape so that records.py does not import base.py, which loads records through it)."""

    @property
    def name(self) -> str: ...

    @property
    def records_package(self) -> str | None: ...

    def constant_records(self) -> ConstantRecords | None: ...


def published_records(target_class: RecordsHolder) -> ConstantRecords | None:
    """Return the records of the constant a Target class bounds (`Target.constant_records()`), or None.

    Raises:
        ContractError: the declared file is missing or invalid.
    """
    return target_class.constant_records()


def construction_file(target_class: RecordsHolder, name: str) -> Any:
    """Return the Traversable of a construction file named in the records (in the same data/ folder).

    Raises:
        ValueError: the class declares no records.
    """
    if target_class.records_package is None:
        raise ValueError(f"{target_class.name} declares no records")
    return resources.files(target_class.records_package) / "data" / name
