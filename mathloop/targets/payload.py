"""Candidate payload specs: one definition gives both the strict parser and the JSON schema for models.

Every exact rational in every target's payload is a JSON string read by the one `Rational.parse`
with one grammar — an integer ("-2"), a fraction ("13/10") or a decimal ("1.3", "2.5e-3" when
the spec allows exponents) — and the spec's limits. JSON numbers, NaN/inf, unknown or missing
keys and anything over the limits are refused with Malformed("<field>: why"). The schema the
model is offered is derived from the same spec; it only guides the model, `parse` is the judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Annotated, Any, Callable, Mapping

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model, model_validator

from mathloop.contract.fields import first_error, refuse

from mathloop.targets.base import Malformed

_RATIO = re.compile(r"[+-]?[0-9]+/[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]{1,4}))?", re.ASCII)
# Decimal places offered to the model: enough to steer, few enough that "1.234567" stays within
# any sensible numerator/denominator limit.
_SCHEMA_PLACES = 6


@dataclass(frozen=True)
class Rational:
    """One exact rational written as a JSON string, with its limits.

    Attributes:
        max_chars: longest accepted string.
        max_digits: most digits in the string (None: not limited this way).
        max_numerator: largest |numerator| of the reduced value (None: not limited).
        max_denominator: largest denominator of the reduced value (None: not limited).
        max_exponent: largest |e| of a decimal exponent ("1e999" is refused; 0: none but e0).
    """

    max_chars: int = 64
    max_digits: int | None = None
    max_numerator: int | None = None
    max_denominator: int | None = None
    max_exponent: int = 0

    def parse(self, field: str, value: Any) -> Fraction:
        """Return the exact rational spelled by `value`.

        >>> Rational(max_exponent=3).parse("R", "1.3e-1"), Rational().parse("x", "-3/6")
        (Fraction(13, 100), Fraction(-1, 2))

        Raises:
            Malformed: not a string, bad syntax, zero denominator, huge exponent, over a limit.
        """
        if not isinstance(value, str):
            raise Malformed(f"{field}: must be a string spelling an exact rational, got {type(value).__name__}")
        if len(value) > self.max_chars:
            raise Malformed(f"{field}: longer than {self.max_chars} characters")
        if self.max_digits is not None:
            digits = sum(ch.isdigit() for ch in value)
            if digits > self.max_digits:
                raise Malformed(f"{field}: {digits} digits exceeds the limit {self.max_digits}")
        if _RATIO.fullmatch(value):
            num, den = value.lstrip("+").split("/")
            if int(den) == 0:
                raise Malformed(f"{field}: zero denominator in {value!r}")
            q = Fraction(int(num), int(den))
        else:
            m = _DECIMAL.fullmatch(value)
            if not m:
                raise Malformed(f"{field}: not an exact rational (integer, p/q or decimal): {value[:40]!r}")
            if m.group(1) is not None and abs(int(m.group(1))) > self.max_exponent:
                raise Malformed(f"{field}: exponent beyond ±{self.max_exponent} in {value!r}")
            q = Fraction(value)
        if self.max_numerator is not None and abs(q.numerator) > self.max_numerator:
            raise Malformed(f"{field}: numerator of {value!r} exceeds {self.max_numerator}")
        if self.max_denominator is not None and q.denominator > self.max_denominator:
            raise Malformed(f"{field}: denominator of {value!r} exceeds {self.max_denominator}")
        return q

    def schema(self) -> dict[str, Any]:
        """Return the JSON schema of this rational: a string whose digits fit the limits.

        Written without backslash escapes: llama-cpp-python's grammar converter cannot parse `\\.`
        and its server process dies on a grammar it cannot parse (measured).

        >>> Rational(max_numerator=10**15, max_denominator=10**15).schema()["pattern"]
        '^-?([0-9]{1,15}(/[0-9]{1,15})?|[0-9]{1,9}[.][0-9]{1,6})$'
        """
        if self.max_digits is not None:
            d = max(1, min(self.max_digits, 60))
            return {"type": "string", "maxLength": 2 * d + 2,
                    "pattern": f"^-?([0-9]{{1,{d}}}(/[0-9]{{1,{d}}})?|[0-9]{{1,{d}}}[.][0-9]{{1,{d}}})$"}
        num = max(1, len(str(self.max_numerator or 10**15)) - 1)  # every numeral this long is < the limit
        den = max(1, len(str(self.max_denominator or 10**15)) - 1)
        places = min(_SCHEMA_PLACES, den, num - 1) if num > 1 else 0
        decimal = f"|[0-9]{{1,{num - places}}}[.][0-9]{{1,{places}}}" if places else ""
        return {"type": "string", "pattern": f"^-?([0-9]{{1,{num}}}(/[0-9]{{1,{den}}})?{decimal})$",
                "maxLength": self.max_chars}


@dataclass(frozen=True)
class RationalList:
    """A non-empty list of exact rationals (e.g. coefficients, node values).

    Attributes:
        item: the spec of every entry.
        max_items: longest accepted list.
        noun: what the entries are called in refusals ("coefficients", "entries").
    """

    item: Rational
    max_items: int
    noun: str = "entries"

    def parse(self, field: str, value: Any) -> tuple[Fraction, ...]:
        """Return the list's rationals. Raises Malformed naming the list or the entry."""
        if not isinstance(value, list):
            raise Malformed(f"{field}: must be a list of rational strings")
        if not value:
            raise Malformed(f"{field}: empty list")
        if len(value) > self.max_items:
            raise Malformed(f"{field}: {len(value)} {self.noun}, more than the limit {self.max_items}")
        return tuple(self.item.parse(f"{field}[{i}]", v) for i, v in enumerate(value))

    def schema(self, shared: Rational | None = None) -> dict[str, Any]:
        """Return the array schema; entries refer to $defs/rational when they use the `shared` spec."""
        items = {"$ref": "#/$defs/rational"} if self.item == shared else self.item.schema()
        return {"type": "array", "items": items, "minItems": 1, "maxItems": self.max_items}


def _refusing(parse: Callable[[str, Any], Any], key: str) -> BeforeValidator:
    """Return the validator of one payload key by `parse(key, value)`; its Malformed("<key>[i]: why") is the refusal."""
    def check(value: Any) -> Any:
        try:
            return parse(key, value)
        except Malformed as e:
            name, _, why = str(e).partition(": ")
            raise refuse(why, name.removeprefix(key) or None) from None
    return BeforeValidator(check)


class _Payload(BaseModel):
    """A candidate payload: a JSON object with exactly the model's keys (unknown keys first, then missing ones)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, arbitrary_types_allowed=True)

    @model_validator(mode="before")
    @classmethod
    def _exact_keys(cls, data: Any) -> Any:
        try:
            return exact_keys(data, tuple(cls.model_fields))
        except Malformed as e:
            name, _, why = str(e).partition(": ")
            raise refuse(why, name) from None


@dataclass(frozen=True)
class PayloadSpec:
    """A candidate payload: an object with exactly these keys, each a rational or a list of them.

    Attributes:
        fields: (key, Rational or RationalList), in the order refusals report them.
    """

    fields: tuple[tuple[str, Rational | RationalList], ...]

    @property
    def rational(self) -> Rational:
        """Return the rational spec of the first field (defined once under $defs in the schema)."""
        first = self.fields[0][1]
        return first.item if isinstance(first, RationalList) else first

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.fields)

    @cached_property
    def model(self) -> type[BaseModel]:
        """Return the pydantic model of this payload: exactly these keys, each read by its exact parser."""
        fields: dict[str, Any] = {}
        for key, spec in self.fields:
            if isinstance(spec, RationalList):
                fields[key] = (Annotated[tuple[Fraction, ...], _refusing(spec.parse, key),
                                         Field(min_length=1, max_length=spec.max_items)], ...)
            else:
                fields[key] = (Annotated[Fraction, _refusing(spec.parse, key)], ...)
        return create_model("Payload", __base__=_Payload, **fields)

    def parse(self, payload: Any) -> dict[str, Any]:
        """Return {key: Fraction or tuple of Fractions}. Raises Malformed with the field and reason."""
        try:
            parsed = self.model.model_validate(payload)
        except ValidationError as e:
            key, reason = first_error(e, payload, root="payload")
            raise Malformed(f"{key}: {reason}") from None
        return {k: getattr(parsed, k) for k in self.keys}

    def schema(self) -> dict[str, Any]:
        """Return the strict JSON schema (additionalProperties false; the rational defined once in $defs)."""
        shared = self.rational
        return {
            "$defs": {"rational": shared.schema()},
            "type": "object",
            "properties": {k: spec.schema(shared) if isinstance(spec, RationalList)
                           else {"$ref": "#/$defs/rational"} if spec == shared else spec.schema()
                           for k, spec in self.fields},
            "required": list(self.keys),
            "additionalProperties": False,
        }


def exact_keys(payload: Any, keys: tuple[str, ...] | set[str] | frozenset[str], where: str = "payload") -> Mapping[str, Any]:
    """Return `payload` if it is an object with exactly `keys`. Raises Malformed (unknown keys first, then missing)."""
    ordered = tuple(keys) if isinstance(keys, tuple) else tuple(sorted(keys))
    allowed = ", ".join(ordered)
    if not isinstance(payload, Mapping):
        raise Malformed(f"{where}: must be an object with keys {allowed}, got {type(payload).__name__}")
    for k in payload:
        if k not in ordered:
            raise Malformed(f"{str(k)[:40] or repr(k)}: unknown key (allowed: {allowed})")  # "''" names an empty key
    for k in ordered:
        if k not in payload:
            raise Malformed(f"{k}: missing")
    return payload


def short_int(value: int) -> str:
    """Return an integer as text for a refusal: its digits, or its size when it has too many to print.

    >>> short_int(12), short_int(10**5000)
    ('12', 'an integer of about 5001 digits')
    """
    if abs(value) < 10**40:
        return str(value)
    return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"


def bounded_int(field: str, value: Any, lo: int, hi: int) -> int:
    """Return `value` when it is a JSON integer (not a bool) in lo..hi.

    Raises:
        Malformed: "<field>: must be an integer in lo..hi, got <type>" or "<field>: <value> is not in lo..hi".

    >>> bounded_int("n", 3, 1, 6)
    3
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise Malformed(f"{field}: must be an integer in {lo}..{hi}, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise Malformed(f"{field}: {short_int(value)} is not in {lo}..{hi}")
    return value


def parse_rational(field: str, value: Any, max_digits: int) -> Fraction:
    """Return one exact rational string with at most `max_digits` digits (the shared rules). Raises Malformed.

    >>> parse_rational("x", "-3/6", 10)
    Fraction(-1, 2)
    """
    return Rational(max_chars=max_digits + 8, max_digits=max_digits).parse(field, value)


def parse_list(field: str, value: Any, max_len: int, max_digits: int) -> tuple[Fraction, ...]:
    """Return a non-empty list of exact rational strings (the shared rules). Raises Malformed."""
    return RationalList(Rational(max_chars=max_digits + 8, max_digits=max_digits), max_len).parse(field, value)
