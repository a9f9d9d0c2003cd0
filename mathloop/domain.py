"""Frozen value types shared by every layer: verdicts, labels, evidence and canonical bytes.

Everything that crosses a module boundary is one of these types. Rationals are `Fraction`
inside Python and the string "p/q" (or "p") in JSON; floats never enter evidence.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


class Verdict(enum.StrEnum):
    """What a checker says about one obligation. Only PROVED discharges it."""

    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"
    ERROR = "ERROR"


class Label(enum.StrEnum):
    """The single label every candidate gets (see docs/design.md, the commit rule)."""

    CORRECT = "correct"
    PROGRESS = "progress"
    NO_PROGRESS = "no_progress"
    REGRESSION = "regression"
    INCOMPARABLE = "incomparable"
    MALFORMED = "malformed"
    ERROR = "error"


class Trust(enum.StrEnum):
    """How a piece of evidence was established, weakest last."""

    LEAN = "lean"
    EXACT = "exact"
    RIGOROUS = "rigorous"
    HIGHPREC = "highprec"
    HYPOTHESIS = "hypothesis"


class Kind(enum.StrEnum):
    """The kinds of obligation node in a contract."""

    HYPOTHESIS = "hypothesis"
    INPUT = "input"
    CHECK = "check"
    LEMMA = "lemma"
    BOUND = "bound"


class Direction(enum.StrEnum):
    """Which way a bound improves."""

    MAXIMIZE = "maximize"
    MINIMIZE = "minimize"


def fraction_str(q: Fraction) -> str:
    """Return the exact JSON spelling of a rational.

    >>> fraction_str(Fraction(13, 10)), fraction_str(Fraction(-2))
    ('13/10', '-2')
    """
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def exact_decimal(q: Fraction, max_places: int = 30) -> str:
    """Return q as its shortest exact decimal ("0.417293963"), or as a fraction when it has none that short.

    >>> exact_decimal(Fraction("0.408960")), exact_decimal(Fraction(1, 3))
    ('0.40896', '1/3')
    """
    for places in range(max_places + 1):
        if (q * 10**places).denominator == 1:
            return decimal_str(q, places, round_down=True)
    return fraction_str(q)


def decimal_str(value: Fraction, digits: int, *, round_down: bool = True) -> str:
    """Return `value` with `digits` decimals, rounded down (or up): never claims more than is proved.

    >>> decimal_str(Fraction(2, 3), 5), decimal_str(Fraction(2, 3), 5, round_down=False), decimal_str(Fraction(-7, 2), 0)
    ('0.66666', '0.66667', '-4')
    """
    scaled = value * 10**digits
    n = scaled.numerator // scaled.denominator if round_down else -((-scaled.numerator) // scaled.denominator)
    sign = "-" if n < 0 else ""
    whole, frac = divmod(abs(n), 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}" if digits else f"{sign}{whole}"


_LEAVES = frozenset({str, int, bool, type(None)})


def _jsonable(obj: Any) -> Any:
    # Exact-type tests first: evidence holds ~10^4 leaves per zeros chunk, and an isinstance test
    # against an ABC costs ~20x a type lookup. Subclasses (a str-valued Enum) take the general path.
    t = type(obj)
    if t in _LEAVES:
        return obj
    if t is dict:
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if t is list or t is tuple:
        return [_jsonable(v) for v in obj]
    if isinstance(obj, Fraction):
        return fraction_str(obj)
    if isinstance(obj, enum.Enum):
        return _jsonable(obj.value)
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, float):
        raise TypeError(f"float {obj!r} in canonical data: use an exact rational or a decimal string")
    return obj


def canonical_json(obj: Any) -> bytes:
    """Return the canonical UTF-8 JSON bytes of `obj` (sorted keys, no spaces, no floats).

    >>> canonical_json({"b": Fraction(1, 3), "a": [1, "x"]})
    b'{"a":[1,"x"],"b":"1/3"}'
    """
    return canonical_dumps(_jsonable(obj))


def canonical_dumps(plain: Any) -> bytes:
    """Return canonical_json of data that is already plain (what `_jsonable` or `Evidence.to_json` returns).

    Skips the conversion pass: the commit path serialises each chunk's evidence more than once.
    """
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Return the lowercase hex sha256 of `data`."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ObligationResult:
    """A checker's answer for one obligation of the resulting state.

    Attributes:
        id: the obligation id from the contract.
        verdict: PROVED discharges; anything else leaves the obligation open.
        rank: 0 when discharged, larger when more violated (e.g. number of failing conditions).
        trust: how the verdict was established.
        reasons: human-readable reasons, especially for refusals (fed back to proposers).
    """

    id: str
    verdict: Verdict
    rank: int
    trust: Trust
    reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.rank < 0:
            raise ValueError(f"obligation {self.id}: rank must be >= 0, got {self.rank}")
        if self.verdict is not Verdict.PROVED and self.rank == 0:
            raise ValueError(f"obligation {self.id}: rank 0 requires a PROVED verdict ({self.verdict})")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "verdict": self.verdict.value,
            "rank": self.rank,
            "trust": self.trust.value,
            "reasons": list(self.reasons),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "ObligationResult":
        return cls(d["id"], Verdict(d["verdict"]), int(d["rank"]), Trust(d["trust"]), tuple(d["reasons"]))


@dataclass(frozen=True)
class Evidence:
    """What a checker returns for a candidate: the resulting state and everything needed to trust it.

    Attributes:
        checker: checker name (usually the target implementation).
        checker_version: bumps whenever the checker's output for some input could change.
        results: one result per non-hypothesis obligation of the contract.
        bounds: certified values, in the bound's own direction (not oriented); absent = not certified.
        state: compact JSON summary of the resulting state (what the next candidate builds on).
        artifacts: JSON certificates that were checked (stored content-addressed).
        precision: precisions and tolerances used, by checker.
        timings: seconds per phase; excluded from the canonical bytes (invariant 4).
    """

    checker: str
    checker_version: str
    results: tuple[ObligationResult, ...]
    bounds: Mapping[str, Fraction]
    state: Mapping[str, Any]
    artifacts: Mapping[str, Any] = field(default_factory=dict)
    precision: Mapping[str, Any] = field(default_factory=dict)
    timings: Mapping[str, float] = field(default_factory=dict)

    @property
    def ranks(self) -> dict[str, int]:
        return {r.id: r.rank for r in self.results}

    def result(self, obligation_id: str) -> ObligationResult | None:
        return next((r for r in self.results if r.id == obligation_id), None)

    def reasons(self) -> list[str]:
        """Return every reason of every obligation that is not PROVED, prefixed by its id."""
        return [f"{r.id}: {why}" for r in self.results if r.verdict is not Verdict.PROVED for why in r.reasons]

    def to_json(self, *, with_timings: bool = True) -> dict[str, Any]:
        """Return the evidence as plain JSON data (every field converted, so canonical_dumps applies to it)."""
        d: dict[str, Any] = {
            "checker": _jsonable(self.checker),
            "checker_version": _jsonable(self.checker_version),
            "results": _jsonable([r.to_json() for r in self.results]),
            "bounds": {k: fraction_str(v) for k, v in sorted(self.bounds.items())},
            "state": _jsonable(self.state),
            "artifacts": _jsonable(self.artifacts),
            "precision": _jsonable(self.precision),
        }
        if with_timings:
            d["timings"] = {k: round(float(v), 6) for k, v in self.timings.items()}
        return d

    def canonical_bytes(self) -> bytes:
        """Return the bytes that must be identical on every re-check (timings excluded)."""
        return canonical_dumps(self.to_json(with_timings=False))  # the store hashes these same bytes

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Evidence":
        return cls(
            checker=d["checker"],
            checker_version=d["checker_version"],
            results=tuple(ObligationResult.from_json(r) for r in d["results"]),
            bounds={k: Fraction(v) for k, v in d["bounds"].items()},
            state=d["state"],
            artifacts=d.get("artifacts", {}),
            precision=d.get("precision", {}),
            timings=d.get("timings", {}),
        )


@dataclass(frozen=True)
class Scores:
    """The part of a state the gate compares: ranks per obligation and certified bounds."""

    ranks: Mapping[str, int]
    bounds: Mapping[str, Fraction]

    @classmethod
    def of(cls, evidence: Evidence) -> "Scores":
        return cls(evidence.ranks, dict(evidence.bounds))


def payload_sha(payload: Any) -> str:
    """Return the sha256 that identifies a payload in the memory (canonical JSON)."""
    try:
        return sha256_hex(canonical_json(payload))
    except (TypeError, ValueError):
        return sha256_hex(repr(payload).encode("utf-8"))


@dataclass(frozen=True)
class Rejection:
    """A recent refused candidate, fed back to proposers as a negative example."""

    payload: Any
    label: Label
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Head:
    """The current head of a lineage as proposers see it."""

    commit: str
    seq: int
    state: Mapping[str, Any]
    ranks: Mapping[str, int]
    bounds: Mapping[str, Fraction]
