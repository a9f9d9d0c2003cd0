"""The dual candidate (h, A, L, nodes, masses): strict parsing of untrusted payloads with limits."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed
from mathloop.targets.payload import exact_keys, parse_list, parse_rational

KEYS = {"h", "A", "L", "nodes"}
MASS_KEYS = {"at", "weight"}


@dataclass(frozen=True)
class Mass:
    """A point mass weight * (delta_at + delta_-at) of k."""

    at: Fraction
    weight: Fraction


@dataclass(frozen=True)
class DualCandidate:
    """A parsed dual: k(j h) = nodes[j] for j = 0 .. A/h (the last one should be 0), plus masses."""

    h: Fraction
    A: Fraction
    L: Fraction
    nodes: tuple[Fraction, ...]
    masses: tuple[Mass, ...] = ()

    @property
    def N(self) -> int:
        """Return 1/h (alpha = 1 is the node j = N)."""
        return int(1 / self.h)

    @property
    def ceiling(self) -> Fraction:
        return 2 - self.L

    def payload(self) -> dict[str, Any]:
        p: dict[str, Any] = {"h": fraction_str(self.h), "A": fraction_str(self.A), "L": fraction_str(self.L),
                             "nodes": [fraction_str(c) for c in self.nodes]}
        if self.masses:
            p["masses"] = [{"at": fraction_str(m.at), "weight": fraction_str(m.weight)} for m in self.masses]
        return p


@dataclass(frozen=True)
class Limits:
    """The contract's size limits for a candidate."""

    max_inv_h: int
    A_max: Fraction
    max_nodes: int
    max_digits: int
    max_masses: int


def schema(lim: Limits) -> dict[str, Any]:
    """Return the JSON schema offered to models (it guides; `parse_candidate` is the judge)."""
    rational = {"type": "string", "pattern": r"^[+-]?[0-9]+(/[0-9]+)?$", "maxLength": lim.max_digits + 8}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": sorted(KEYS),
        "properties": {
            "h": {**rational, "description": "grid step, 1/h an integer"},
            "A": {**rational, "description": "support [-A, A], A/h an integer, A >= 1"},
            "L": {**rational, "description": "ceiling = 2 - L"},
            "nodes": {"type": "array", "items": rational, "minItems": 2, "maxItems": lim.max_nodes,
                      "description": "k(j h) for j = 0 .. A/h: j h - L for j h <= 1, >= -L beyond, last 0"},
            "masses": {"type": "array", "maxItems": lim.max_masses, "items": {
                "type": "object", "additionalProperties": False, "required": ["at", "weight"],
                "properties": {"at": rational, "weight": rational}},
                "description": "point masses at >= 1, weights >= 0 summing to < 1/2"},
        },
    }


def parse_candidate(payload: Any, lim: Limits) -> DualCandidate:
    """Return the typed candidate. Raises Malformed naming the field and the reason."""
    if isinstance(payload, Mapping) and "masses" in payload:
        p = exact_keys(payload, KEYS | {"masses"})
    else:
        p = exact_keys(payload, KEYS)
    h = parse_rational("h", p["h"], 30)
    A = parse_rational("A", p["A"], 30)
    L = parse_rational("L", p["L"], lim.max_digits)
    if h <= 0:
        raise Malformed("h: must be > 0")
    inv = 1 / h
    if inv.denominator != 1:
        raise Malformed("h: 1/h must be an integer (alpha = 1 must be a node)")
    if inv > lim.max_inv_h:
        raise Malformed(f"h: 1/h = {inv} exceeds the limit {lim.max_inv_h}")
    if A < 1:
        raise Malformed("A: must be >= 1 (k = |alpha| - L on [-1, 1] lies inside the support)")
    if A > lim.A_max:
        raise Malformed(f"A: above the limit {fraction_str(lim.A_max)}")
    m = A / h
    if m.denominator != 1:
        raise Malformed("A: A/h must be an integer")
    if m + 1 > lim.max_nodes:
        raise Malformed(f"nodes: A/h + 1 = {m + 1} exceeds the limit {lim.max_nodes}")
    nodes = parse_list("nodes", p["nodes"], lim.max_nodes, lim.max_digits)
    if len(nodes) != m + 1:
        raise Malformed(f"nodes: expected A/h + 1 = {m + 1} values (j = 0 .. A/h), got {len(nodes)}")
    masses = parse_masses(p["masses"], lim) if "masses" in p else ()
    return DualCandidate(h, A, L, nodes, masses)


def parse_masses(raw: Any, lim: Limits) -> tuple[Mass, ...]:
    """Return the typed point masses (at <= 4 A_max, at most max_masses). Raises Malformed naming the field."""
    if not isinstance(raw, list):
        raise Malformed("masses: must be a list of {at, weight} objects")
    if len(raw) > lim.max_masses:
        raise Malformed(f"masses: {len(raw)} entries exceeds the limit {lim.max_masses}")
    masses = []
    for i, item in enumerate(raw):
        q = exact_keys(item, MASS_KEYS, f"masses[{i}]")
        at = parse_rational(f"masses[{i}].at", q["at"], 30)
        if at > lim.A_max * 4:
            raise Malformed(f"masses[{i}].at: above the limit {fraction_str(lim.A_max * 4)}")
        masses.append(Mass(at, parse_rational(f"masses[{i}].weight", q["weight"], lim.max_digits)))
    return tuple(masses)
