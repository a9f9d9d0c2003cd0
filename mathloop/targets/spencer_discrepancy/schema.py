"""Strict parsing of untrusted candidates: a square matrix A with exact rational entries in [−1, 1].

Payload: {"matrix": [["1", "-1", "0"], ["1/2", "1", "-0.25"], ...]}: n rows of n entries, every entry an exact
rational written as a string (an integer, p/q or a decimal; the shared rules of targets/payload.py), |a_ij| ≤ 1.
Refused with Malformed("<field>: why"): unknown or missing keys, a matrix that is not square or larger than the
limit, an entry that is a JSON number, not exact, outside [−1, 1], or whose denominator (or the matrix's common
denominator) exceeds the limit, text over the byte limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed
from mathloop.targets.payload import Rational, exact_keys
from mathloop.targets.payload_text import check_size, load_payload

KEYS = ("matrix",)


@dataclass(frozen=True)
class Limits:
    """The contract's [limits] for this target.

    Attributes:
        max_n: largest n (the check enumerates 2^(n−1) sign vectors).
        max_denominator: largest denominator of an entry and of the matrix's common denominator.
        max_payload_bytes: largest payload (raw text, or compact JSON of a parsed value).
    """

    max_n: int = 24
    max_denominator: int = 1_000_000
    max_payload_bytes: int = 200_000

    def entry(self) -> Rational:
        """Return the rational spec of one entry (|numerator| ≤ denominator ≤ the limit)."""
        return Rational(max_chars=40, max_numerator=self.max_denominator, max_denominator=self.max_denominator)


@dataclass(frozen=True)
class Candidate:
    """A square matrix with exact entries in [−1, 1] (its discrepancy not yet computed)."""

    rows: tuple[tuple[Fraction, ...], ...]

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def denominator(self) -> int:
        """Return the least common denominator D of the entries (D·A is an integer matrix)."""
        return math.lcm(*(q.denominator for row in self.rows for q in row))

    def integers(self) -> list[list[int]]:
        """Return D·A as integers."""
        d = self.denominator
        return [[int(q * d) for q in row] for row in self.rows]

    def payload(self) -> dict[str, Any]:
        """Return the canonical payload/state: every entry in lowest terms ("1", "-1/2")."""
        return {"matrix": [[fraction_str(q) for q in row] for row in self.rows]}


def parse_payload(payload: Any, limits: Limits) -> Candidate:
    """Return the Candidate for a JSON value (or its JSON text).

    Raises:
        Malformed: with the offending field and the reason.
    """
    payload = load_payload(payload, limits.max_payload_bytes)
    exact_keys(payload, KEYS)
    raw = payload["matrix"]
    if not isinstance(raw, list) or not raw:
        raise Malformed("matrix: must be a non-empty list of rows (lists of exact rational strings)")
    n = len(raw)
    if n > limits.max_n:
        raise Malformed(f"matrix: {n} rows, more than the limit n = {limits.max_n}")
    spec = limits.entry()
    rows = []
    for i, row in enumerate(raw):
        if not isinstance(row, list) or len(row) != n:
            got = len(row) if isinstance(row, list) else type(row).__name__
            raise Malformed(f"matrix[{i}]: must be a row of n = {n} entries (the matrix is square), got {got}")
        parsed = []
        for j, v in enumerate(row):
            q = spec.parse(f"matrix[{i}][{j}]", v)
            if abs(q) > 1:
                raise Malformed(f"matrix[{i}][{j}]: {v} is not in [-1, 1]")
            parsed.append(q)
        rows.append(tuple(parsed))
    cand = Candidate(tuple(rows))
    if cand.denominator > limits.max_denominator:
        raise Malformed(f"matrix: the common denominator {cand.denominator} of the entries exceeds "
                        f"{limits.max_denominator}")
    check_size(cand.payload(), limits.max_payload_bytes)
    return cand


def schema(limits: Limits) -> dict[str, Any]:
    """Return the JSON schema offered to models (a guide only: `parse_payload` is the judge)."""
    entry = limits.entry().schema()
    return {
        "type": "object",
        "properties": {"matrix": {"type": "array", "minItems": 1, "maxItems": limits.max_n,
                                  "description": "n rows of n exact entries in [-1, 1] ('1', '-1', '0', '1/2')",
                                  "items": {"type": "array", "items": entry, "minItems": 1, "maxItems": limits.max_n}}},
        "required": list(KEYS),
        "additionalProperties": False,
    }
