"""Strict parsing of untrusted candidates: a modulus m and a set of residues mod m.

Payload: {"modulus": 205, "residues": [0, 2, 8, ...]}: JSON integers, 2 ≤ m ≤ the limit, every residue in 0..m−1,
no residue twice, at most the limit of residues. Refused with Malformed("<field>: why"): unknown or missing keys, a
number that is not a JSON integer (2.0, true, "5"), a value out of range, a repeated residue, too many residues,
text over the byte limit. A residue set whose differences hit a square, or a modulus that is not squarefree, parses:
the checks refute them (they are mathematics, not syntax).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathloop.targets.base import Malformed
from mathloop.targets.payload import bounded_int, exact_keys
from mathloop.targets.payload_text import check_size, load_payload

KEYS = ("modulus", "residues")


@dataclass(frozen=True)
class Limits:
    """The contract's [limits] for this target.

    Attributes:
        max_modulus: largest m.
        max_residues: most residues.
        max_payload_bytes: largest payload.
    """

    max_modulus: int = 10_000_000
    max_residues: int = 5000
    max_payload_bytes: int = 200_000


@dataclass(frozen=True)
class Candidate:
    """A modulus and distinct residues below it (not yet known to avoid square differences)."""

    modulus: int
    residues: tuple[int, ...]

    def payload(self) -> dict[str, Any]:
        """Return the canonical payload/state: the residues sorted."""
        return {"modulus": self.modulus, "residues": sorted(self.residues)}


def parse_payload(payload: Any, limits: Limits) -> Candidate:
    """Return the Candidate for a JSON value (or its JSON text).

    Raises:
        Malformed: with the offending field and the reason.
    """
    payload = load_payload(payload, limits.max_payload_bytes)
    exact_keys(payload, KEYS)
    m = bounded_int("modulus", payload["modulus"], 2, limits.max_modulus)
    raw = payload["residues"]
    if not isinstance(raw, list) or not raw:
        raise Malformed("residues: must be a non-empty list of integers in 0..modulus-1")
    if len(raw) > limits.max_residues:
        raise Malformed(f"residues: {len(raw)} residues, more than the limit {limits.max_residues}")
    seen: dict[int, int] = {}
    for i, v in enumerate(raw):
        r = bounded_int(f"residues[{i}]", v, 0, m - 1)
        if r in seen:
            raise Malformed(f"residues[{i}]: {r} is listed twice (also residues[{seen[r]}])")
        seen[r] = i
    cand = Candidate(m, tuple(raw))
    check_size(cand.payload(), limits.max_payload_bytes)
    return cand


def schema(limits: Limits) -> dict[str, Any]:
    """Return the JSON schema offered to models (a guide only: `parse_payload` is the judge)."""
    return {
        "type": "object",
        "properties": {
            "modulus": {"type": "integer", "minimum": 2, "maximum": limits.max_modulus,
                        "description": "a squarefree modulus m"},
            "residues": {"type": "array", "minItems": 1, "maxItems": limits.max_residues,
                         "items": {"type": "integer", "minimum": 0, "maximum": limits.max_modulus - 1},
                         "description": "distinct residues mod m, no two differing by a square mod m"},
        },
        "required": list(KEYS),
        "additionalProperties": False,
    }
