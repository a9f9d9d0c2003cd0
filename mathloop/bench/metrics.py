"""Per-run figures of a bench and the paired differences per seed (pure functions of the records)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Any, Mapping, Sequence

from mathloop.contract import Contract
from mathloop.domain import Label, canonical_json, decimal_str, fraction_str, sha256_hex
from mathloop.order import oriented
from mathloop.propose.origin import LOCAL, REPLAY, credit
from mathloop.store.repository import CandidateRecord

LABELS = tuple(label.value for label in Label)


def evidence_sha256(records: Sequence[CandidateRecord]) -> str:
    """Return the sha256 over a run's records: per candidate its payload, label, reasons and evidence hashes.

    Timestamps and commit hashes (which include them) are left out, so that a deterministic proposer
    gives the same hash on every machine.
    """
    return sha256_hex(canonical_json([{"payload_sha256": r.payload_sha, "label": r.label, "reasons": list(r.reasons),
                                       "evidence_sha256": r.evidence_sha} for r in records]))


def _tokens(records: Sequence[CandidateRecord]) -> float | None:
    counted = [r for r in records if credit(r.meta, r.proposer) not in (LOCAL, REPLAY)
               and ("prompt_tokens" in r.meta or "completion_tokens" in r.meta)]
    if not counted:
        return None
    total = sum(int(r.meta.get("prompt_tokens") or 0) + int(r.meta.get("completion_tokens") or 0) for r in counted)
    return round(total / len(records), 1)


def _by_origin(records: Sequence[CandidateRecord]) -> dict[str, dict[str, int]]:
    """Return, per credit class (model, model+local, local), its candidates and the commits they made."""
    out: dict[str, dict[str, int]] = {}
    for r in records:
        row = out.setdefault(credit(r.meta, r.proposer), {"candidates": 0, "commits": 0})
        row["candidates"] += 1
        row["commits"] += r.commit_hash is not None
    return dict(sorted(out.items()))


def run_row(*, proposer: Mapping[str, Any], contract: Contract, seed: int, records: Sequence[CandidateRecord],
            head_bounds: Mapping[str, Fraction], commits: int, seconds: float, outcome: str) -> dict[str, Any]:
    """Return one result row: candidates, share per label, malformed share, tokens, best bound, time, hash."""
    n = len(records)
    labels = Counter(r.label for r in records)
    specs = {b.name: b for b in contract.bounds}
    return {
        "proposer": proposer["name"], "kind": proposer["proposer"], "model": proposer.get("model"),
        "target": contract.name, "contract_sha256": contract.sha256, "seed": seed,
        "candidates": n,
        "labels": {k: labels.get(k, 0) for k in LABELS},
        "share": {k: round(labels.get(k, 0) / n, 4) if n else 0.0 for k in LABELS},
        "malformed_share": round(labels.get("malformed", 0) / n, 4) if n else 0.0,
        "tokens_per_candidate": _tokens(records),
        "best_bound": {k: decimal_str(v, specs[k].digits if k in specs else 12,
                                      round_down=k not in specs or specs[k].direction.value == "maximize")
                       for k, v in sorted(head_bounds.items())},
        "best_bound_exact": {k: fraction_str(v) for k, v in sorted(head_bounds.items())},
        "commits": commits,
        "by_origin": _by_origin(records),
        "wall_time_s": round(seconds, 3), "outcome": outcome,
        "evidence_sha256": evidence_sha256(records),
    }


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 4)


def pairs(results: Sequence[Mapping[str, Any]], contracts: Sequence[Contract]) -> list[dict[str, Any]]:
    """Return, per target and seed, the differences b − a for every pair of proposers (spec order).

    Bound differences are oriented (positive = b certified a better bound) and exact.
    """
    by_name = {c.name: c for c in contracts}
    keyed: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for r in results:
        keyed.setdefault((r["target"], r["seed"]), []).append(r)
    out = []
    for (target, seed), rows in keyed.items():
        specs = {b.name: b for b in by_name[target].bounds}
        for a, b in combinations(rows, 2):
            bound_diff = {}
            for name, spec in sorted(specs.items()):
                va, vb = a["best_bound_exact"].get(name), b["best_bound_exact"].get(name)
                if va is not None and vb is not None:
                    d = oriented(Fraction(vb), spec) - oriented(Fraction(va), spec)
                    bound_diff[name] = {"exact": fraction_str(d), "decimal": decimal_str(d, spec.digits)}
            out.append({
                "target": target, "seed": seed, "a": a["proposer"], "b": b["proposer"],
                "best_bound_gain": bound_diff,
                "progress_share": _diff(a["share"]["progress"] + a["share"]["correct"],
                                        b["share"]["progress"] + b["share"]["correct"]),
                "malformed_share": _diff(a["malformed_share"], b["malformed_share"]),
                "tokens_per_candidate": _diff(a["tokens_per_candidate"], b["tokens_per_candidate"]),
                "wall_time_s": _diff(a["wall_time_s"], b["wall_time_s"]),
            })
    return out
