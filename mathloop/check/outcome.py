"""What a check gives (CheckOutcome) and how it crosses a process boundary: canonical JSON bytes, never pickle.

A checker child, a dask worker or a store hands back bytes; `outcome_from_bytes` reads them with the one
strict JSON parser (bounded.strict_loads), size-capped, and rebuilds the evidence field by field with exact
types, so that nothing that comes back can run code in the session or smuggle a float, a bool rank or a
foreign object past the gate. Anything it cannot read becomes an `error` outcome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from mathloop.bounded import StrictJSONError, strict_loads
from mathloop.domain import Evidence, ObligationResult, Trust, Verdict, canonical_dumps

MAX_OUTCOME_BYTES = 64_000_000  # a zeros chunk's evidence is ~45 kB; a reply far beyond is refused, not parsed
_RATIONAL = re.compile(r"-?\d{1,20000}(/\d{1,20000})?")


@dataclass(frozen=True)
class CheckOutcome:
    """Exactly one of: evidence, malformed (the payload's fault), error (the checker's).

    Attributes:
        interrupted: the check was cut by the session's --time-limit (with `error` saying so): the candidate
            was not judged, so it gets no label.
        worker: who produced it ("session", "local pool", "dask tls://host:port worker tcp://…"); not part
            of the evidence's canonical bytes.
        unverified: a remote worker's answer taken on its word (not re-checked in the session: it does not move
            the head); set by the session's Checker, never read from the wire.
    """

    evidence: Evidence | None = None
    malformed: str | None = None
    error: str | None = None
    interrupted: bool = False
    worker: str | None = None
    unverified: bool = False

    def by(self, worker: str) -> "CheckOutcome":
        """Return this outcome marked as produced by `worker`."""
        return replace(self, worker=worker)


def outcome_to_bytes(out: CheckOutcome) -> bytes:
    """Return the canonical JSON bytes of an outcome (what a child or a worker sends back)."""
    if out.evidence is not None:
        return canonical_dumps({"evidence": out.evidence.to_json()})
    if out.malformed is not None:
        return canonical_dumps({"malformed": str(out.malformed)})
    return canonical_dumps({"error": str(out.error), "interrupted": bool(out.interrupted)})


def outcome_from_bytes(blob: Any, where: str) -> CheckOutcome:
    """Return the outcome in `blob` (bytes from `where`), or an error outcome saying why it cannot be read."""
    if not isinstance(blob, (bytes, bytearray)):
        return CheckOutcome(error=f"{where} sent {type(blob).__name__}, not outcome bytes")
    if len(blob) > MAX_OUTCOME_BYTES:
        return CheckOutcome(error=f"{where} sent {len(blob)} bytes, beyond the {MAX_OUTCOME_BYTES}-byte limit")
    try:
        data = strict_loads(bytes(blob).decode("utf-8"))
        return _outcome(data)
    except (StrictJSONError, UnicodeDecodeError, WireError) as e:
        return CheckOutcome(error=f"{where} sent an unreadable outcome: {str(e)[:300]}")
    except (ArithmeticError, RecursionError) as e:  # backstop: no number a worker sends may end the session
        return CheckOutcome(error=f"{where} sent an unreadable outcome: {type(e).__name__}: {str(e)[:200]}")


class WireError(ValueError):
    """Outcome JSON that does not have the shape of an outcome."""


def _outcome(data: Any) -> CheckOutcome:
    d = _obj(data, "outcome")
    if set(d) == {"evidence"}:
        return CheckOutcome(evidence=evidence_from_json(d["evidence"]))
    if set(d) == {"malformed"}:
        return CheckOutcome(malformed=_str(d["malformed"], "malformed"))
    if set(d) == {"error", "interrupted"} and type(d["interrupted"]) is bool:
        return CheckOutcome(error=_str(d["error"], "error"), interrupted=d["interrupted"])
    raise WireError(f"outcome keys {sorted(d)[:6]} are not one of evidence / malformed / error")


def evidence_from_json(data: Any) -> Evidence:
    """Return Evidence rebuilt from its JSON with exact types. Raises WireError naming the field."""
    d = _obj(data, "evidence")
    extra = set(d) - {"checker", "checker_version", "results", "bounds", "state", "artifacts", "precision", "timings"}
    if extra:
        raise WireError(f"evidence: unknown key {sorted(extra)[0][:40]!r}")
    results = d.get("results")
    if not isinstance(results, list):
        raise WireError("evidence.results: not a list")
    bounds = _obj(d.get("bounds"), "evidence.bounds")
    timings = _obj(d.get("timings", {}), "evidence.timings")
    try:
        return Evidence(
            checker=_str(d.get("checker"), "evidence.checker"),
            checker_version=_str(d.get("checker_version"), "evidence.checker_version"),
            results=tuple(_result(r, i) for i, r in enumerate(results)),
            bounds={_str(k, "bound name"): _rational(v, f"evidence.bounds.{k[:40]}") for k, v in bounds.items()},
            state=_obj(d.get("state"), "evidence.state"),
            artifacts=_obj(d.get("artifacts", {}), "evidence.artifacts"),
            precision=_obj(d.get("precision", {}), "evidence.precision"),
            timings={k: _float(v, f"evidence.timings.{k[:40]}") for k, v in timings.items()},
        )
    except ValueError as e:  # ObligationResult.__post_init__: a negative rank, rank 0 without PROVED
        if isinstance(e, WireError):
            raise
        raise WireError(f"evidence: {str(e)[:200]}") from None


def _result(data: Any, i: int) -> ObligationResult:
    d = _obj(data, f"evidence.results[{i}]")
    if set(d) != {"id", "verdict", "rank", "trust", "reasons"}:
        raise WireError(f"evidence.results[{i}]: keys {sorted(d)[:6]}")
    rank = d["rank"]
    if type(rank) is not int:
        raise WireError(f"evidence.results[{i}].rank: not an integer")
    try:
        verdict, trust = Verdict(d["verdict"]), Trust(d["trust"])
    except ValueError:
        raise WireError(f"evidence.results[{i}]: unknown verdict or trust") from None
    reasons = d["reasons"]
    if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
        raise WireError(f"evidence.results[{i}].reasons: not a list of strings")
    return ObligationResult(_str(d["id"], f"evidence.results[{i}].id"), verdict, rank, trust, tuple(reasons))


def _obj(v: Any, where: str) -> dict[str, Any]:
    if type(v) is not dict:
        raise WireError(f"{where}: not an object")
    return v


def _str(v: Any, where: str) -> str:
    if type(v) is not str:
        raise WireError(f"{where}: not a string")
    return v


def _rational(v: Any, where: str) -> Fraction:
    if type(v) is not str or not _RATIONAL.fullmatch(v):
        raise WireError(f"{where}: not an exact rational string")
    if re.fullmatch(r"-?\d+/0+", v):  # Fraction would raise ZeroDivisionError: a refusal naming the field
        raise WireError(f"{where}: zero denominator")
    q = Fraction(v)
    if str(q) != v.lstrip("+"):  # canonical p/q only: what fraction_str writes
        raise WireError(f"{where}: {v[:40]!r} is not in lowest terms")
    return q


def _number(v: Any, where: str) -> int | float:
    if type(v) is not int and type(v) is not float:
        raise WireError(f"{where}: not a number")
    return float(v) if type(v) is float else int(v)


def _float(v: Any, where: str) -> float:
    """Return `v` as a finite float. Raises WireError naming the field for a non-number or one beyond a float."""
    try:
        f = float(_number(v, where))
    except OverflowError:
        raise WireError(f"{where}: number too large for a float") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise WireError(f"{where}: not a finite number")
    return f
