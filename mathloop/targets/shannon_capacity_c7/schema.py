"""Strict parsing of untrusted candidates: an exponent n and a list of vertices of C7^⊠n.

Payload: {"n": 5, "vertices": [[0, 0, 0, 0, 5], [0, 0, 1, 0, 0], ...]} — every coordinate a JSON
integer in 0..6 (a residue mod 7, written in its least non-negative form), every vertex of length n.
Refused with Malformed("<field>: why"): unknown or missing keys, n outside 1..max_n, more vertices
than the limit, a vertex of the wrong length, a coordinate that is not an integer in 0..6 (7, -1,
3.0, true, "3"), text over the byte limit. Duplicates and adjacent pairs parse: the independence
check refutes them (they are mathematics, not syntax).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathloop.targets.base import Malformed
from mathloop.targets.payload import bounded_int, exact_keys
from mathloop.targets.payload_text import check_size, load_payload
from mathloop.targets.shannon_capacity_c7.graph import Q

KEYS = ("n", "vertices")


@dataclass(frozen=True)
class Limits:
    """The contract's [limits] for this target.

    Attributes:
        max_n: largest exponent n of the strong power C7^⊠n.
        max_vertices: most vertices in one candidate.
        max_payload_bytes: largest payload (raw text, or compact JSON of a parsed value).
    """

    max_n: int = 6
    max_vertices: int = 2000
    max_payload_bytes: int = 200_000


@dataclass(frozen=True)
class Candidate:
    """A finite set of vertices of C7^⊠n, in the order given (not yet known to be independent)."""

    n: int
    vertices: tuple[tuple[int, ...], ...]

    def payload(self) -> dict[str, Any]:
        """Return the canonical payload/state: the vertices sorted (the set, not the order given)."""
        return {"n": self.n, "vertices": [list(v) for v in sorted(self.vertices)]}


def parse_payload(payload: Any, limits: Limits) -> Candidate:
    """Return the Candidate for a JSON value (or its JSON text).

    Raises:
        Malformed: with the offending field and the reason.
    """
    payload = load_payload(payload, limits.max_payload_bytes)
    exact_keys(payload, KEYS)
    n = bounded_int("n", payload["n"], 1, limits.max_n)
    raw = payload["vertices"]
    if not isinstance(raw, list):
        raise Malformed("vertices: must be a list of vertices (lists of n integers in 0..6)")
    if not raw:
        raise Malformed("vertices: empty list")
    if len(raw) > limits.max_vertices:
        raise Malformed(f"vertices: {len(raw)} vertices, more than the limit {limits.max_vertices}")
    vertices = []
    for i, v in enumerate(raw):
        if not isinstance(v, list) or len(v) != n:
            raise Malformed(f"vertices[{i}]: must be a list of n = {n} integers in 0..6")
        vertices.append(tuple(bounded_int(f"vertices[{i}][{c}]", x, 0, Q - 1) for c, x in enumerate(v)))
    cand = Candidate(n, tuple(vertices))
    check_size(cand.payload(), limits.max_payload_bytes)
    return cand


def schema(limits: Limits) -> dict[str, Any]:
    """Return the JSON schema offered to models (a guide only: `parse_payload` is the judge)."""
    coordinate = {"type": "integer", "minimum": 0, "maximum": Q - 1}
    return {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1, "maximum": limits.max_n,
                  "description": "the exponent: vertices are n-tuples over Z/7 (C7 strong-product power n)"},
            "vertices": {"type": "array", "minItems": 1, "maxItems": limits.max_vertices,
                         "description": "pairwise non-adjacent vertices: every two differ by 2..5 mod 7 "
                                        "in at least one coordinate",
                         "items": {"type": "array", "items": coordinate, "minItems": 1, "maxItems": limits.max_n}},
        },
        "required": list(KEYS),
        "additionalProperties": False,
    }
