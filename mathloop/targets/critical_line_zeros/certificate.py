"""The chunk candidate: its strict schema, its limits, and the compact prefix state it extends.

Candidate payload (JSON):
    {"start": -1,                                  # Gram index where the chunk begins
     "blocks": [{"end": 0, "points": []},           # block [g_start, g_0), no extra points
                {"end": 127, "points": ["282.46"]}, # block [g_prev, g_127) with rational points
                {"end": 140, "points": [...], "merged": true},  # a union of Gram blocks (Rosser-rule
                ...],                                            #   violations): good points inside allowed
     "parent_state": {...}}                         # optional: the prefix it was made for
Points are exact rationals as strings ("282.46" or "56492/200"), strictly increasing inside a
block. An exported certificate file is accepted too: its "candidate" key holds this payload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import canonical_json, sha256_hex
from mathloop.targets.base import Malformed

CERTIFICATE_FORMAT = "mathloop/critical-line-zeros/certificate/1"
EXPORT_KEY = "candidate"
_PAYLOAD_KEYS = {"start", "blocks", "parent_state"}
_BLOCK_KEYS = {"end", "points"}
_BLOCK_OPTIONAL = {"merged"}
_EXPORT_KEYS = {"mathloop_certificate", "target", "seq", "commit", "checker", "checker_version", "chunk", EXPORT_KEY,
                "parent_state", "state", "bounds", "precision"}
_STATE_KEYS = {"last_gram_index", "blocks_verified", "tail", "bad_gram_points", "first_bad_gram", "longest_block"}
_DECIMAL = re.compile(r"[1-9][0-9]{0,11}(\.[0-9]{1,40})?|0\.[0-9]{1,40}")  # fullmatch: no stray newline
_RATIO = re.compile(r"[1-9][0-9]{0,59}/[1-9][0-9]{0,59}")
TAIL = 8


@dataclass(frozen=True)
class Limits:
    """Size limits from the contract's [limits] table.

    Attributes:
        max_gram_index: the cap: the family of Gram intervals ends at g_cap.
        max_blocks_per_chunk: blocks in one candidate.
        max_block_length: Gram intervals in one block.
        max_points_per_block: rational sample points in one block.
        max_point_chars: characters in one point string.
        max_range_gram_intervals: Gram intervals in one range candidate (0: none accepted).
    """

    max_gram_index: int
    max_blocks_per_chunk: int
    max_block_length: int
    max_points_per_block: int
    max_point_chars: int
    max_range_gram_intervals: int = 0  # 0: range candidates (Recipe) are not part of this contract


@dataclass(frozen=True)
class Block:
    """One Gram block of a candidate: it ends at g_end; `points` are its extra rational samples."""

    end: int
    points: tuple[Fraction, ...]
    texts: tuple[str, ...]
    merged: bool = False  # a union of consecutive Gram blocks, counted as one (Rosser-rule violations)


@dataclass(frozen=True)
class Prefix:
    """The compact verified prefix a chunk extends (what Evidence.state keeps).

    Attributes:
        last_gram_index: p; blocks cover [g_{-1}, g_p).
        blocks_verified: number of verified blocks.
        tail: the last block boundaries (ascending, ending with p), enough for Turing's window.
        bad_gram_points: bad Gram points met so far (Gram's law failures).
        first_bad_gram: the first bad Gram point, None while Gram's law has held.
        longest_block: the longest block so far, in Gram intervals.
    """

    last_gram_index: int = -1
    blocks_verified: int = 0
    tail: tuple[int, ...] = (-1,)
    bad_gram_points: int = 0
    first_bad_gram: int | None = None
    longest_block: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "last_gram_index": self.last_gram_index,
            "blocks_verified": self.blocks_verified,
            "tail": list(self.tail),
            "bad_gram_points": self.bad_gram_points,
            "first_bad_gram": self.first_bad_gram,
            "longest_block": self.longest_block,
        }

    def sha(self) -> str:
        return sha256_hex(canonical_json(self.to_json()))


@dataclass(frozen=True)
class Chunk:
    """A parsed candidate: consecutive blocks from g_start, and the prefix it claims to extend."""

    start: int
    blocks: tuple[Block, ...]
    parent: Prefix | None

    @property
    def end(self) -> int:
        return self.blocks[-1].end if self.blocks else self.start

    def payload(self) -> dict[str, Any]:
        """Return the candidate payload (point strings exactly as given)."""
        d: dict[str, Any] = {"start": self.start, "blocks": [dict({"end": b.end, "points": list(b.texts)}, **({"merged": True} if b.merged else {}))
                                                            for b in self.blocks]}
        if self.parent is not None:
            d["parent_state"] = self.parent.to_json()
        return d


MAX_REFINE = 6  # refinement levels of the sampling recipe a range candidate may ask for


@dataclass(frozen=True)
class Recipe:
    """A range candidate: all Gram blocks from g_start to g_end, sample points re-derived by the checker.

    {"start": p, "end": q, "refine": r}: the blocks end at the good Gram points in (g_p, g_q] and the
    points are those sampling.py's recipe finds at refinement level r; the checker derives them
    (derive.py) and checks them like given points, so the candidate stays a few bytes for any range.
    """

    start: int
    end: int
    refine: int
    parent: Prefix | None

    def payload(self) -> dict[str, Any]:
        """Return the candidate payload."""
        d: dict[str, Any] = {"start": self.start, "end": self.end, "refine": self.refine}
        if self.parent is not None:
            d["parent_state"] = self.parent.to_json()
        return d


def _int(where: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise Malformed(f"{where}: must be an integer")
    if not lo <= v <= hi:  # a huge value is described by its size: str() of it may exceed Python's digit limit
        shown = v if v.bit_length() <= 64 else f"a {v.bit_length()}-bit integer"
        raise Malformed(f"{where}: {shown} outside [{lo}, {hi}]")
    return v


def _keys(where: str, d: Any, allowed: set[str], required: set[str]) -> Mapping[str, Any]:
    if type(d) is not dict and not isinstance(d, Mapping):  # dict first: typing.Mapping's check is slow
        raise Malformed(f"{where}: must be an object")
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise Malformed(f"{where}.{unknown[0]}: unknown key")
    missing = sorted(required - set(d))
    if missing:
        raise Malformed(f"{where}.{missing[0]}: missing")
    return d


def parse_point(where: str, v: Any, limits: Limits) -> Fraction:
    """Return the exact rational of a point string. Raises Malformed (non-string, format, size)."""
    if not isinstance(v, str):
        raise Malformed(f"{where}: must be a string (an exact rational such as \"282.46\" or \"14127/50\")")
    if len(v) > limits.max_point_chars:
        raise Malformed(f"{where}: longer than {limits.max_point_chars} characters")
    if not (_DECIMAL.fullmatch(v) or _RATIO.fullmatch(v)):
        raise Malformed(f"{where}: not a positive decimal or p/q: {v[:40]!r}")
    q = Fraction(v)
    if q <= 0:
        raise Malformed(f"{where}: must be > 0")
    return q


def parse_prefix(where: str, d: Any, limits: Limits) -> Prefix:
    """Return the typed prefix state. Raises Malformed on any schema violation."""
    d = _keys(where, d, _STATE_KEYS | {"height", "count", "turing", "conditional_on_parent"}, _STATE_KEYS)
    p = _int(f"{where}.last_gram_index", d["last_gram_index"], -1, limits.max_gram_index + limits.max_block_length)
    n = _int(f"{where}.blocks_verified", d["blocks_verified"], 0, p + 1)
    tail = d["tail"]
    if not isinstance(tail, list) or not 1 <= len(tail) <= TAIL + 1:
        raise Malformed(f"{where}.tail: must be a list of 1..{TAIL + 1} Gram indices")
    ints = tuple(_int(f"{where}.tail[{i}]", x, -1, p) for i, x in enumerate(tail))
    if any(a >= b for a, b in zip(ints, ints[1:])) or ints[-1] != p:
        raise Malformed(f"{where}.tail: must be strictly increasing and end at last_gram_index")
    if len(ints) - 1 > n:
        raise Malformed(f"{where}.tail: more boundaries than verified blocks")
    bad = _int(f"{where}.bad_gram_points", d["bad_gram_points"], 0, p + 2)
    fb = d["first_bad_gram"]
    first = None if fb is None else _int(f"{where}.first_bad_gram", fb, -1, p)
    longest = _int(f"{where}.longest_block", d["longest_block"], 0, limits.max_block_length)
    return Prefix(p, n, ints, bad, first, longest)


def parse_chunk(payload: Any, limits: Limits) -> Chunk | Recipe:
    """Return the typed chunk. Raises Malformed with the field and reason.

    Structural rules: known keys only; block ends strictly increasing with at most
    max_block_length Gram intervals per block; points strictly increasing positive rationals.
    """
    if isinstance(payload, Mapping) and EXPORT_KEY in payload:
        env = _keys("certificate", payload, _EXPORT_KEYS, {EXPORT_KEY})
        payload = env[EXPORT_KEY]
        if isinstance(payload, Mapping) and env.get("parent_state") is not None and "parent_state" not in payload:
            payload = dict(payload, parent_state=env["parent_state"])
    if limits.max_range_gram_intervals and isinstance(payload, Mapping) and "blocks" not in payload and "end" in payload:
        return parse_recipe(payload, limits)
    d = _keys("payload", payload, _PAYLOAD_KEYS, {"start", "blocks"})
    start = _int("start", d["start"], -1, limits.max_gram_index - 1)
    raw_blocks = d["blocks"]
    if not isinstance(raw_blocks, list):
        raise Malformed("blocks: must be a list")
    if len(raw_blocks) > limits.max_blocks_per_chunk:
        raise Malformed(f"blocks: {len(raw_blocks)} blocks, limit {limits.max_blocks_per_chunk}")
    blocks, prev = [], start
    for i, rb in enumerate(raw_blocks):
        where = f"blocks[{i}]"
        rb = _keys(where, rb, _BLOCK_KEYS | _BLOCK_OPTIONAL, _BLOCK_KEYS)
        merged = rb.get("merged", False)
        if merged is not True and merged is not False:
            raise Malformed(f"{where}.merged: must be true or false")
        if prev >= limits.max_gram_index:
            raise Malformed(f"{where}: starts at g_{prev}, at or beyond the cap g_{limits.max_gram_index}")
        end = _int(f"{where}.end", rb["end"], prev + 1, prev + limits.max_block_length)
        pts = rb["points"]
        if not isinstance(pts, list):
            raise Malformed(f"{where}.points: must be a list")
        if len(pts) > limits.max_points_per_block:
            raise Malformed(f"{where}.points: {len(pts)} points, limit {limits.max_points_per_block}")
        qs = tuple(parse_point(f"{where}.points[{k}]", v, limits) for k, v in enumerate(pts))
        if any(a >= b for a, b in zip(qs, qs[1:])):
            raise Malformed(f"{where}.points: must be strictly increasing")
        blocks.append(Block(end, qs, tuple(pts), merged))
        prev = end
    parent = parse_prefix("parent_state", _prefix_part(d["parent_state"]), limits) if "parent_state" in d else None
    return Chunk(start, tuple(blocks), parent)


def parse_recipe(payload: Mapping[str, Any], limits: Limits) -> Recipe:
    """Return the typed range candidate. Raises Malformed with the field and reason."""
    d = _keys("payload", payload, {"start", "end", "refine", "parent_state"}, {"start", "end", "refine"})
    start = _int("start", d["start"], -1, limits.max_gram_index - 1)
    end = _int("end", d["end"], start + 1, min(start + limits.max_range_gram_intervals, limits.max_gram_index + limits.max_block_length))
    refine = _int("refine", d["refine"], 0, MAX_REFINE)
    parent = parse_prefix("parent_state", _prefix_part(d["parent_state"]), limits) if "parent_state" in d else None
    return Recipe(start, end, refine, parent)


def _prefix_part(state: Any) -> Any:
    """Return the prefix keys of a full state (height/count/turing are re-derived by the checker)."""
    if not isinstance(state, Mapping):
        return state
    return {k: v for k, v in state.items() if k not in ("height", "count", "turing", "conditional_on_parent")}
