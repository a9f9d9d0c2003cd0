"""Strict parsing of untrusted candidates: a finite law on Z², as points with exact positive weights.

Payload: {"points": [[x, y, "w"], ...]}: x and y JSON integers (|x|, |y| ≤ the limit), w an exact positive rational
written as a string (an integer, p/q or a decimal; the shared rules of targets/payload.py, with a digit limit large
enough for the published certificates' 10^320 denominators). The law is the weights divided by their sum (exactly:
the published certificates already sum to 1, and normalising changes nothing for them). Refused with
Malformed("<field>: why"): unknown or missing keys, too many points, a coordinate that is not an integer within the
limit, a weight that is not an exact positive rational within the digit limit, a point listed twice, text over the
byte limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed
from mathloop.targets.payload import Rational, exact_keys, short_int
from mathloop.targets.payload_text import check_size, load_payload

KEYS = ("points",)


@dataclass(frozen=True)
class Limits:
    """The contract's [limits] for these targets.

    Attributes:
        max_points: most support points.
        max_coordinate: largest |x| and |y|.
        max_weight_digits: most digits in one weight string.
        max_payload_bytes: largest payload (raw text, or compact JSON of a parsed value).
    """

    max_points: int = 1000
    max_coordinate: int = 10**6
    max_weight_digits: int = 1500
    max_payload_bytes: int = 2_000_000

    def weight(self) -> Rational:
        """Return the spec of one weight string."""
        return Rational(max_chars=self.max_weight_digits + 8, max_digits=self.max_weight_digits)


@dataclass(frozen=True)
class Law:
    """A finite law on Z²: distinct points with exact probabilities summing to 1."""

    points: tuple[tuple[int, int], ...]
    probabilities: tuple[Fraction, ...]

    def payload(self) -> dict[str, Any]:
        """Return the canonical payload/state: the points sorted, each with its probability in lowest terms."""
        return {"points": [[x, y, fraction_str(p)] for (x, y), p in sorted(zip(self.points, self.probabilities))]}


def _coordinate(field: str, value: Any, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Malformed(f"{field}: must be an integer, got {type(value).__name__}")
    if abs(value) > limit:
        raise Malformed(f"{field}: {short_int(value)} is beyond ±{limit}")
    return value


def parse_payload(payload: Any, limits: Limits) -> Law:
    """Return the Law of a JSON value (or its JSON text); the weights normalised to sum to 1.

    Raises:
        Malformed: with the offending field and the reason.
    """
    payload = load_payload(payload, limits.max_payload_bytes)
    exact_keys(payload, KEYS)
    raw = payload["points"]
    if not isinstance(raw, list) or not raw:
        raise Malformed("points: must be a non-empty list of [x, y, \"weight\"]")
    if len(raw) > limits.max_points:
        raise Malformed(f"points: {len(raw)} points, more than the limit {limits.max_points}")
    spec = limits.weight()
    seen: dict[tuple[int, int], int] = {}
    points, weights = [], []
    for i, item in enumerate(raw):
        if not isinstance(item, list) or len(item) != 3:
            raise Malformed(f"points[{i}]: must be [x, y, \"weight\"]")
        x = _coordinate(f"points[{i}][0]", item[0], limits.max_coordinate)
        y = _coordinate(f"points[{i}][1]", item[1], limits.max_coordinate)
        w = spec.parse(f"points[{i}][2]", item[2])
        if w <= 0:
            raise Malformed(f"points[{i}][2]: the weight must be positive, got {item[2]}")
        if (x, y) in seen:
            raise Malformed(f"points[{i}]: the point ({x}, {y}) is listed twice (also points[{seen[(x, y)]}])")
        seen[(x, y)] = i
        points.append((x, y))
        weights.append(w)
    total = sum(weights, Fraction(0))
    law = Law(tuple(points), tuple(w / total for w in weights))
    check_size(law.payload(), limits.max_payload_bytes)
    return law


def schema(limits: Limits) -> dict[str, Any]:
    """Return the JSON schema offered to models (a guide only: `parse_payload` is the judge)."""
    coordinate = {"type": "integer", "minimum": -limits.max_coordinate, "maximum": limits.max_coordinate}
    return {
        "type": "object",
        "properties": {"points": {"type": "array", "minItems": 1, "maxItems": limits.max_points,
                                  "description": "support points [x, y, weight] of the law of (X, Y); weights are "
                                                 "exact positive rationals, normalised to sum to 1",
                                  "items": {"type": "array", "minItems": 3, "maxItems": 3,
                                            "prefixItems": [coordinate, coordinate, limits.weight().schema()]}}},
        "required": list(KEYS),
        "additionalProperties": False,
    }
