"""A target's proposal form: the parametrisation models write, in which side conditions hold by construction.

One `ProposalForm` gives the schema offered to models, the strict parser of a reply and its exact mapping to the
full candidate payload (what is stored and checked), and the head in the same form (for the prompt). The default
form is the identity: the target's own payload and schema. Everything here only shapes what a model may write;
the target's `parse` and checkers stay the judges of the mapped payload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from mathloop.domain import fraction_str
from mathloop.targets.errors import Malformed


@dataclass(frozen=True)
class ProposalForm:
    """How a target offers candidates to models.

    Attributes:
        name: "identity" or the target's name for its parametrisation.
        schema: the JSON schema of a reply (every instance maps to a candidate meeting the side conditions).
        to_payload: reply -> full canonical candidate payload; raises Malformed("<field>: why") off the schema.
        from_payload: stored payload/state -> the reply form (for the prompt), None when it has no such form.
        explanation: what the fields mean (shown in the prompt; empty for the identity).
        edits: True when a reply is an edit of the head: `to_payload(reply, head_state)` then (see `map`).
        as_edit: (payload, head state) -> the payload as an edit of the head (the history in an edit form's terms),
            None when it has none; None for forms that are not edits.
        schema_for: (head state, seen payload sha256s) -> the schema offered for that head (a narrower instance of
            `schema`, e.g. only the head's own coordinates, without replies whose candidate is already stored);
            None: `schema` for every head.
        head_note: head state -> a line shown under the head in the prompt (e.g. which coordinates it has); None.
    """

    name: str
    schema: Mapping[str, Any]
    to_payload: Callable[[Any], Any]
    from_payload: Callable[[Mapping[str, Any]], Any]
    explanation: str = ""
    edits: bool = False
    as_edit: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] | None = None
    schema_for: Callable[[Mapping[str, Any] | None, frozenset[str]], Mapping[str, Any]] | None = None
    head_note: Callable[[Mapping[str, Any] | None], str] | None = None

    @property
    def identity(self) -> bool:
        return self.name == "identity"

    def map(self, reply: Any, head: Mapping[str, Any] | None = None) -> Any:
        """Return the full candidate for a reply (an edit form applies it to `head`). Raises Malformed."""
        return self.to_payload(reply, head) if self.edits else self.to_payload(reply)

    def schema_at(self, head: Mapping[str, Any] | None, seen: frozenset[str] = frozenset()) -> Mapping[str, Any]:
        """Return the schema offered to a model for this head (every instance is also one of `schema`)."""
        return self.schema if self.schema_for is None else self.schema_for(head, seen)


def identity_form(schema: Mapping[str, Any]) -> ProposalForm:
    """Return the identity form over a target's own candidate schema (the reply is the payload)."""
    return ProposalForm("identity", dict(schema), lambda reply: reply, lambda state: dict(state))


@dataclass(frozen=True)
class Decimal:
    """A decimal string with bounded integer digits and places (no fractions, no exponents).

    `positive`: a value in (0, 10): zero and negatives are off the schema (written without a lookahead, which
    llama.cpp's grammar converter cannot read); int_digits is then 1 and up to 2·places − 1 places are allowed.
    `unit`: a value in [0, 1] ("0", "0.25", "1", "1.000"); int_digits, signed and positive are then ignored.
    `max_lead`: with one integer digit, the largest it may be (0: |x| < 1; with `positive`, 1: x in (0, 2)).
    """

    int_digits: int = 2
    places: int = 6
    positive: bool = False
    signed: bool = True  # False: no minus sign (values >= 0)
    ratio_digits: int = 0  # with `positive`: also "p/q" with 1..ratio_digits digits each, no leading zero
    unit: bool = False
    max_lead: int = 9

    @property
    def pattern(self) -> str:
        i, p = self.int_digits, self.places
        if self.unit:
            return f"^(0([.][0-9]{{1,{p}}})?|1([.]0{{1,{p}}})?)$"
        if self.positive:  # one integer digit: 1-9 with places, or 0.0...0d... with a non-zero digit
            d = self.ratio_digits
            ratio = f"|[1-9][0-9]{{0,{d - 1}}}/[1-9][0-9]{{0,{d - 1}}}" if d else ""
            lead = f"{_digit_class(1, self.max_lead)}([.][0-9]{{1,{2 * p - 1}}})?|" if self.max_lead >= 1 else ""
            return f"^({lead}0[.]0{{0,{p - 1}}}[1-9][0-9]{{0,{p - 1}}}{ratio})$"
        whole = _digit_class(0, self.max_lead) if i == 1 and self.max_lead < 9 else f"[0-9]{{1,{i}}}"
        return f"^{'-?' if self.signed else ''}{whole}([.][0-9]{{1,{p}}})?$"

    def schema(self) -> dict[str, Any]:
        if self.unit:
            return {"type": "string", "pattern": self.pattern, "maxLength": self.places + 2}
        return {"type": "string", "pattern": self.pattern,
                "maxLength": max(self.int_digits + 2 * self.places + 1, 2 * self.ratio_digits + 1)}

    def parse(self, field: str, value: Any) -> Fraction:
        """Return the exact value. Raises Malformed naming the field and the allowed spelling."""
        if not isinstance(value, str):
            raise Malformed(f"{field}: must be a decimal string, got {type(value).__name__}")
        if not re.fullmatch(self.pattern, value):
            if self.unit:
                raise Malformed(f"{field}: must be a decimal in [0, 1] with at most {self.places} places "
                                f"(e.g. \"0.25\"), got {value[:24]!r}")
            sign = "a positive" if self.positive else "a" if self.signed else "a non-negative"
            whole = (f"absolute value below {self.max_lead + 1}" if self.int_digits == 1 and self.max_lead < 9
                     else f"at most {self.int_digits} integer digits")
            raise Malformed(f"{field}: must be {sign} decimal with {whole} and {self.places} places "
                            f"(e.g. \"0.25\"), got {value[:24]!r}")
        q = Fraction(value)
        if self.positive and q <= 0:
            raise Malformed(f"{field}: must be > 0, got {value!r}")
        return q

    def show(self, q: Fraction) -> str:
        """Return q in this spelling (rounded to `places` when it has more: display only)."""
        places = 2 * self.places - 1 if self.positive else self.places
        scaled = round(q * 10**places)
        sign, scaled = ("-" if scaled < 0 else ""), abs(scaled)
        whole, frac = divmod(scaled, 10**places)
        text = f"{whole}.{frac:0{places}d}".rstrip("0").rstrip(".")
        return sign + text if text != "0" else "0"


def _digit_class(lo: int, hi: int) -> str:
    """Return a regex matching one digit in lo..hi ("5" when lo == hi)."""
    return str(lo) if lo == hi else f"[{lo}-{hi}]"


@dataclass(frozen=True)
class Step:
    """A signed decimal step |d| <= tenths/10 with at most `places` places ("0", "-0.05", "0.2"): an edit's size.

    Written without lookaheads (llama.cpp's grammar converter reads alternations only).
    """

    tenths: int = 2
    places: int = 3

    @property
    def bound(self) -> Fraction:
        return Fraction(self.tenths, 10)

    @property
    def pattern(self) -> str:
        d, p = self.tenths, self.places
        return f"^-?0([.]({_digit_class(0, d - 1)}[0-9]{{0,{p - 1}}}|{d}0{{0,{p - 1}}}))?$"

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "pattern": self.pattern, "maxLength": self.places + 3}

    def parse(self, field: str, value: Any) -> Fraction:
        """Return the exact step. Raises Malformed naming the field and the allowed spelling."""
        if not isinstance(value, str) or not re.fullmatch(self.pattern, value):
            got = repr(value[:24]) if isinstance(value, str) else type(value).__name__
            raise Malformed(f"{field}: must be a decimal step between -{self.bound} and {self.bound} with at most "
                            f"{self.places} places (e.g. \"-0.05\"), got {got}")
        return Fraction(value)


@dataclass(frozen=True)
class DecimalList:
    """A list of decimals of length between min_items and max_items."""

    item: "Decimal | Step"
    min_items: int
    max_items: int

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": self.item.schema(), "minItems": self.min_items, "maxItems": self.max_items}

    def parse(self, field: str, value: Any) -> tuple[Fraction, ...]:
        if not isinstance(value, list):
            raise Malformed(f"{field}: must be a list of decimal strings")
        if not self.min_items <= len(value) <= self.max_items:
            exact = self.min_items == self.max_items
            want = f"exactly {self.min_items}" if exact else f"{self.min_items} to {self.max_items}"
            raise Malformed(f"{field}: {len(value)} entries, must be {want}")
        return tuple(self.item.parse(f"{field}[{i}]", v) for i, v in enumerate(value))


def object_schema(fields: Mapping[str, Mapping[str, Any]], optional: Mapping[str, Mapping[str, Any]] = {}) -> dict[str, Any]:
    """Return a strict object schema with these required (and optional) properties."""
    return {"type": "object", "properties": {**fields, **optional}, "required": list(fields),
            "additionalProperties": False}


def exact(q: Fraction) -> str:
    """Return the canonical payload spelling of an exact rational."""
    return fraction_str(q)
