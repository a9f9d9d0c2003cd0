"""Strict parsing of untrusted candidate payloads: exact keys, exact rational strings, size limits."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Mapping

from mathloop.targets.base import Malformed

# "12", "-3/7", "0.125", "-.5": no exponents, no spaces, no nan/inf (they fail the pattern)
_RATIONAL = re.compile(r"[+-]?(?:\d+(?:/\d+)?|\d*\.\d+|\d+\.)", re.ASCII)


def exact_keys(payload: Any, required: set[str], where: str = "payload") -> Mapping[str, Any]:
    """Return `payload` if it is an object with exactly `required` keys. Raises Malformed."""
    if not isinstance(payload, Mapping):
        raise Malformed(f"{where}: must be a JSON object, got {type(payload).__name__}")
    extra = sorted(map(str, set(payload) - required))
    if extra:
        raise Malformed(f"{extra[0]}: unknown key (allowed: {', '.join(sorted(required))})")
    missing = sorted(required - set(payload))
    if missing:
        raise Malformed(f"{missing[0]}: missing")
    return payload


def parse_rational(field: str, value: Any, max_digits: int) -> Fraction:
    """Return the exact rational spelled by a JSON string such as "13/10" or "1.3". Raises Malformed.

    >>> parse_rational("x", "-3/6", 10)
    Fraction(-1, 2)
    """
    if not isinstance(value, str):
        raise Malformed(f"{field}: must be an exact rational as a string, got {type(value).__name__}")
    if not _RATIONAL.fullmatch(value):
        raise Malformed(f"{field}: not an exact rational string: {value[:40]!r}")
    digits = sum(ch.isdigit() for ch in value)
    if digits > max_digits:
        raise Malformed(f"{field}: {digits} digits exceeds the limit {max_digits}")
    try:
        return Fraction(value)
    except ZeroDivisionError:
        raise Malformed(f"{field}: zero denominator") from None


def parse_list(field: str, value: Any, max_len: int, max_digits: int) -> tuple[Fraction, ...]:
    """Return a non-empty list of exact rational strings as Fractions. Raises Malformed."""
    if not isinstance(value, list):
        raise Malformed(f"{field}: must be a list of rational strings")
    if not value:
        raise Malformed(f"{field}: must not be empty")
    if len(value) > max_len:
        raise Malformed(f"{field}: {len(value)} entries exceeds the limit {max_len}")
    return tuple(parse_rational(f"{field}[{i}]", v, max_digits) for i, v in enumerate(value))
