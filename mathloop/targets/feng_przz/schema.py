"""Strict parsing of feng-przz payloads into a frozen Candidate of exact rationals.

Payload: {"P1": [...], ..., "PK": [...], "Q": [...], "R": "..."}, K = the number of pieces in the
contract (parameter `pieces`, the prime-logarithm count of each piece: PRZZ's K = 3 is [0, 2, 3]).
Coefficient lists are lowest degree first; every number is a string spelling an exact rational
(the shared rules of targets/payload.py). A piece whose polynomial is ["0"] is absent, so one
contract covers K = 1, 2, 3. Trailing zeros are normalised away.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey.schema import Limits  # same [limits] table as levinson-conrey
from mathloop.targets.levinson_conrey.schema import spec as levinson_conrey_spec
from mathloop.targets.payload import PayloadSpec
from mathloop.targets.payload_text import check_size, load_payload
from mathloop.targets.polynomial import trim

__all__ = ["Candidate", "Limits", "keys", "parse_payload", "spec"]


def keys(n_pieces: int) -> tuple[str, ...]:
    """Return the payload keys for a contract with `n_pieces` pieces: P1..PK, Q, R."""
    return (*(f"P{i + 1}" for i in range(n_pieces)), "Q", "R")


@dataclass(frozen=True)
class Candidate:
    """An exact candidate: one polynomial per contract piece (P[0] is the μ piece), Q and R.

    Attributes:
        P: coefficient tuples, lowest degree first, trailing zeros removed (("0",) is an absent piece).
        Q, R: as in levinson-conrey.
    """

    P: tuple[tuple[Fraction, ...], ...]
    Q: tuple[Fraction, ...]
    R: Fraction

    def payload(self) -> dict[str, Any]:
        """Return the canonical payload/state."""
        out: dict[str, Any] = {f"P{i + 1}": [fraction_str(x) for x in p] for i, p in enumerate(self.P)}
        out["Q"] = [fraction_str(x) for x in self.Q]
        out["R"] = fraction_str(self.R)
        return out


def spec(limits: Limits, n_pieces: int) -> PayloadSpec:
    """Return the payload spec under the contract's limits."""
    one = levinson_conrey_spec(limits)  # the same rational and coefficient-list specs as levinson-conrey's
    coefficients, rational = dict(one.fields)["P"], one.rational
    names = keys(n_pieces)
    return PayloadSpec(tuple((k, coefficients) for k in names[:-1]) + (("R", rational),))


def _poly(coeffs: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    return trim(coeffs) or (Fraction(0),)  # a payload's zero polynomial is ["0"], not []


def parse_payload(payload: Any, limits: Limits, n_pieces: int) -> Candidate:
    """Return the Candidate for a JSON value (or its JSON text).

    Raises:
        Malformed: with the offending field and the reason.
    """
    payload = load_payload(payload, limits.max_payload_bytes, numbers=False)
    fields = spec(limits, n_pieces).parse(payload)
    R = fields["R"]
    if R > limits.r_max:
        raise Malformed(f"R: {fraction_str(R)} exceeds the limit R <= {fraction_str(limits.r_max)}")
    cand = Candidate(tuple(_poly(fields[f"P{i + 1}"]) for i in range(n_pieces)), _poly(fields["Q"]), R)
    check_size(cand.payload(), limits.max_payload_bytes)
    return cand
