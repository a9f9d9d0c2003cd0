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
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathloop.bounded import StrictJSONError, strict_loads
from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed
from mathloop.targets.payload import PayloadSpec, Rational, RationalList

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


def spec(limits: Limits) -> PayloadSpec:
    """Return the payload spec {"P": [...], "Q": [...], "R": "..."} under the contract's limits."""
    rational = Rational(max_chars=limits.max_string_chars, max_numerator=limits.max_numerator,
                        max_denominator=limits.max_denominator, max_exponent=limits.max_exponent)
    coefficients = RationalList(rational, limits.max_degree + 1, noun="coefficients")
    return PayloadSpec((("P", coefficients), ("Q", coefficients), ("R", rational)))


def parse_rational(field: str, value: Any, limits: Limits) -> Fraction:
    """Return the exact rational spelled by `value` under the limits (the shared Rational rules).

    >>> parse_rational("R", "1.3", Limits())
    Fraction(13, 10)
    """
    return spec(limits).rational.parse(field, value)  # P, Q and R share one rational spec


def _poly(coeffs: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    out = list(coeffs)
    while len(out) > 1 and out[-1] == 0:
        out.pop()  # normalise: trailing zeros do not change the polynomial
    return tuple(out)


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
            payload = strict_loads(payload, numbers=False)
        except StrictJSONError as e:
            raise Malformed(f"payload: {e}" if e.refused else f"payload: not valid JSON: {e}") from None
    fields = spec(limits).parse(payload)
    P, Q, R = _poly(fields["P"]), _poly(fields["Q"]), fields["R"]
    if R > limits.r_max:
        raise Malformed(f"R: {fraction_str(R)} exceeds the limit R <= {fraction_str(limits.r_max)}")
    cand = Candidate(P, Q, R)
    size = len(json.dumps(cand.payload(), separators=(",", ":")))
    if size > limits.max_payload_bytes:
        raise Malformed(f"payload: larger than {limits.max_payload_bytes} bytes")
    return cand
