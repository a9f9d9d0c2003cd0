"""Strict parsing of untrusted candidate payloads into a frozen Candidate of exact rationals.

Payload: {"P": [...], "Q": [...], "R": "..."} — coefficient lists lowest degree first; every
number is a string spelling an exact rational: an integer ("-2"), a fraction ("13/10") or a
decimal ("1.3", "2.5e-3" with a small exponent). JSON numbers, NaN/inf, huge exponents, unknown
or missing keys and anything over the contract's limits are refused with Malformed("<field>: why").

Trailing zero coefficients are normalised away (["0", "1", "0"] is the candidate ["0", "1"]);
the zero polynomial is ["0"]. The list length cap applies before normalising.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed

_RATIONAL = re.compile(r"[+-]?[0-9]+/[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]{1,4}))?", re.ASCII)
KEYS = ("P", "Q", "R")


@dataclass(frozen=True)
class Limits:
    """The contract's [limits] for this target.

    Attributes:
        max_degree: largest allowed degree of P and Q.
        max_numerator: largest |numerator| of any reduced coefficient or R.
        max_denominator: largest denominator of any reduced coefficient or R.
        r_max: R must satisfy R <= r_max (R <= 0 parses, and is refused by `r-positive`).
        max_string_chars: longest accepted number string.
        max_exponent: largest |e| in a decimal exponent ("1e999" is refused).
        max_payload_bytes: largest payload (raw text, or canonical JSON of a parsed value).
    """

    max_degree: int = 12
    max_numerator: int = 10**15
    max_denominator: int = 10**15
    r_max: Fraction = Fraction(10)
    max_string_chars: int = 64
    max_exponent: int = 30
    max_payload_bytes: int = 4096


@dataclass(frozen=True)
class Candidate:
    """An exact candidate (P, Q, R), coefficients lowest degree first, trailing zeros removed."""

    P: tuple[Fraction, ...]
    Q: tuple[Fraction, ...]
    R: Fraction

    def payload(self) -> dict[str, Any]:
        """Return the canonical payload/state {"P": [...], "Q": [...], "R": "p/q"}."""
        return {"P": [fraction_str(x) for x in self.P], "Q": [fraction_str(x) for x in self.Q], "R": fraction_str(self.R)}


def _reject_constant(name: str) -> Any:
    raise Malformed(f"payload: non-finite number {name} is not allowed")


def _reject_number(text: str) -> Any:
    raise Malformed(f"payload: JSON number {text[:20]} is not allowed; write exact rationals as strings")


def parse_rational(field: str, value: Any, limits: Limits) -> Fraction:
    """Return the exact rational spelled by `value`.

    >>> parse_rational("R", "1.3", Limits())
    Fraction(13, 10)

    Raises:
        Malformed: not a string, bad syntax, zero denominator, huge exponent, over the size limits.
    """
    if not isinstance(value, str):
        raise Malformed(f"{field}: must be a string spelling an exact rational, got {type(value).__name__}")
    if len(value) > limits.max_string_chars:
        raise Malformed(f"{field}: longer than {limits.max_string_chars} characters")
    if _RATIONAL.fullmatch(value):
        num, den = value.lstrip("+").split("/")
        if int(den) == 0:
            raise Malformed(f"{field}: zero denominator in {value!r}")
        q = Fraction(int(num), int(den))
    else:
        m = _DECIMAL.fullmatch(value)
        if not m:
            raise Malformed(f"{field}: not an exact rational (integer, p/q or decimal): {value!r}")
        if m.group(1) is not None and abs(int(m.group(1))) > limits.max_exponent:
            raise Malformed(f"{field}: exponent beyond ±{limits.max_exponent} in {value!r}")
        q = Fraction(value)
    if abs(q.numerator) > limits.max_numerator:
        raise Malformed(f"{field}: numerator of {value!r} exceeds {limits.max_numerator}")
    if q.denominator > limits.max_denominator:
        raise Malformed(f"{field}: denominator of {value!r} exceeds {limits.max_denominator}")
    return q


def _poly(field: str, value: Any, limits: Limits) -> tuple[Fraction, ...]:
    if not isinstance(value, list):
        raise Malformed(f"{field}: must be a list of coefficient strings, lowest degree first")
    if not value:
        raise Malformed(f"{field}: empty coefficient list (the zero polynomial is [\"0\"])")
    if len(value) > limits.max_degree + 1:
        raise Malformed(f"{field}: {len(value)} coefficients, more than degree {limits.max_degree} allows")
    coeffs = [parse_rational(f"{field}[{i}]", v, limits) for i, v in enumerate(value)]
    while len(coeffs) > 1 and coeffs[-1] == 0:
        coeffs.pop()  # normalise: trailing zeros do not change the polynomial
    return tuple(coeffs)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    dup = next((k for k in keys if keys.count(k) > 1), None)
    if dup is not None:
        raise Malformed(f"{dup}: duplicate key")
    return dict(pairs)


def parse_payload(payload: Any, limits: Limits) -> Candidate:
    """Return the Candidate for a JSON value (or its JSON text).

    Raises:
        Malformed: with the offending field and the reason.
    """
    if isinstance(payload, (bytes, bytearray)):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError:
            raise Malformed("payload: not UTF-8") from None
    if isinstance(payload, str):
        if len(payload.encode("utf-8", errors="replace")) > limits.max_payload_bytes:
            raise Malformed(f"payload: larger than {limits.max_payload_bytes} bytes")
        try:
            payload = json.loads(
                payload, parse_float=_reject_number, parse_int=_reject_number, parse_constant=_reject_constant,
                object_pairs_hook=_no_duplicate_keys,
            )
        except json.JSONDecodeError as e:
            raise Malformed(f"payload: not valid JSON: {e.msg}") from None
        except RecursionError:
            raise Malformed("payload: JSON nested too deeply") from None
    if not isinstance(payload, Mapping):
        raise Malformed(f"payload: must be an object with keys P, Q, R, got {type(payload).__name__}")
    for k in payload:
        if k not in KEYS:
            raise Malformed(f"{str(k)[:40]}: unknown key (allowed: P, Q, R)")
    for k in KEYS:
        if k not in payload:
            raise Malformed(f"{k}: missing")
    P = _poly("P", payload["P"], limits)
    Q = _poly("Q", payload["Q"], limits)
    R = parse_rational("R", payload["R"], limits)
    if R > limits.r_max:
        raise Malformed(f"R: {fraction_str(R)} exceeds the limit R <= {fraction_str(limits.r_max)}")
    cand = Candidate(P, Q, R)
    size = len(json.dumps(cand.payload(), separators=(",", ":")))
    if size > limits.max_payload_bytes:
        raise Malformed(f"payload: larger than {limits.max_payload_bytes} bytes")
    return cand
