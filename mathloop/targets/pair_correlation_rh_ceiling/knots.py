"""The knot form of a ceiling dual (lineage `pair-correlation-rh-ceiling-wide`): k given only where it bends.

A payload {"h", "A", "L", "knots": [{"at", "k"}, ...], "masses": [...]} says: k(alpha) = |alpha| - L on
[-1, 1], k(at_i) = k_i at the knots (1 < at_1 < at_2 < ... < A, each on hZ), k(A) = 0, and k is linear
between consecutive points of {1, knots, A} (and 0 beyond A). Parsing expands it exactly into the node
form (`DualCandidate`, every node k(j h)), so conditions (i), (ii), support and the range reduction are
the same exact checks as for the node form; the second differences of the nodes vanish except at 0, 1/h,
the knots and A/h, which is what lets the positivity check cost follow the number of knots
(`kink_positivity`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate, Limits, parse_masses, schema
from mathloop.targets.payload import exact_keys, parse_rational

KEYS = {"h", "A", "L", "knots"}
KNOT_KEYS = {"at", "k"}


@dataclass(frozen=True)
class KnotLimits(Limits):
    """The wide contract's size limits: the node form's (the expanded nodes, masses, digits) and the knots'."""

    max_knots: int


@dataclass(frozen=True)
class KnotDual(DualCandidate):
    """A dual in knot form: `nodes` is the exact expansion, `knots` the (grid index, value) pairs it came from."""

    knots: tuple[tuple[int, Fraction], ...] = ()

    def payload(self) -> dict[str, Any]:
        p: dict[str, Any] = {"h": fraction_str(self.h), "A": fraction_str(self.A), "L": fraction_str(self.L),
                             "knots": [{"at": fraction_str(j * self.h), "k": fraction_str(v)} for j, v in self.knots]}
        if self.masses:
            p["masses"] = [{"at": fraction_str(m.at), "weight": fraction_str(m.weight)} for m in self.masses]
        return p


def expand(N: int, M: int, L: Fraction, knots: tuple[tuple[int, Fraction], ...]) -> tuple[Fraction, ...]:
    """Return the nodes k_0 .. k_M: j/N - L for j <= N, the knots' values, linear in between, k_M = 0."""
    nodes = [Fraction(j, N) - L for j in range(N + 1)]
    anchors = [(N, 1 - L), *knots, (M, Fraction(0))]
    for (a, va), (b, vb) in zip(anchors, anchors[1:]):
        step = (vb - va) / (b - a)
        nodes.extend(va + step * (j - a) for j in range(a + 1, b + 1))
    return tuple(nodes)


def knot_schema(lim: KnotLimits) -> dict[str, Any]:
    """Return the JSON schema offered to models (it guides; `parse_knot_candidate` is the judge): the node form's,
    with the knots in place of the nodes."""
    out = schema(lim)
    props = dict(out["properties"])
    rational = props.pop("nodes")["items"]
    props["knots"] = {"type": "array", "maxItems": lim.max_knots, "items": {
        "type": "object", "additionalProperties": False, "required": ["at", "k"],
        "properties": {"at": rational, "k": rational}},
        "description": "k at 1 < at < A (increasing, on hZ), each >= -L; linear between 1, the knots and A (k(A) = 0)"}
    return {**out, "required": sorted(KEYS), "properties": props}


def parse_knot_candidate(payload: Any, lim: KnotLimits) -> KnotDual:
    """Return the typed knot-form candidate (nodes expanded exactly). Raises Malformed naming the field."""
    keys = KEYS | {"masses"} if isinstance(payload, Mapping) and "masses" in payload else KEYS
    p = exact_keys(payload, keys)
    h = parse_rational("h", p["h"], 30)
    A = parse_rational("A", p["A"], 30)
    L = parse_rational("L", p["L"], lim.max_digits)
    if h <= 0 or (1 / h).denominator != 1:
        raise Malformed("h: must be > 0 with 1/h an integer (alpha = 1 must be a node)")
    N = int(1 / h)
    if N > lim.max_inv_h:
        raise Malformed(f"h: 1/h = {N} exceeds the limit {lim.max_inv_h}")
    if A < 1 or A > lim.A_max:
        raise Malformed(f"A: must lie in [1, {fraction_str(lim.A_max)}]")
    if (A / h).denominator != 1:
        raise Malformed("A: A/h must be an integer")
    M = int(A / h)
    if M + 1 > lim.max_nodes:
        raise Malformed(f"A: A/h + 1 = {M + 1} nodes exceeds the limit {lim.max_nodes}")
    raw = p["knots"]
    if not isinstance(raw, list) or len(raw) > lim.max_knots:
        raise Malformed(f"knots: must be a list of at most {lim.max_knots} {{at, k}} objects")
    knots: list[tuple[int, Fraction]] = []
    for i, item in enumerate(raw):
        q = exact_keys(item, KNOT_KEYS, f"knots[{i}]")
        at = parse_rational(f"knots[{i}].at", q["at"], 30)
        j = at / h
        if j.denominator != 1 or not N < j < M:
            raise Malformed(f"knots[{i}].at: {fraction_str(at)} must lie on hZ strictly between 1 and A")
        if knots and int(j) <= knots[-1][0]:
            raise Malformed(f"knots[{i}].at: the knots must be strictly increasing")
        knots.append((int(j), parse_rational(f"knots[{i}].k", q["k"], lim.max_digits)))
    masses = parse_masses(p["masses"], lim) if "masses" in p else ()
    kt = tuple(knots)
    return KnotDual(h, A, L, expand(N, M, L, kt), masses, kt)
