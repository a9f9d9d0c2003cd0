"""The hash chain: what a commit hash covers, computed the same way at commit and at audit."""

from __future__ import annotations

from typing import Any, Mapping

from mathloop.domain import canonical_json, sha256_hex


def commit_body(
    *,
    contract_sha: str,
    seq: int,
    payload_sha: str,
    state: Mapping[str, Any],
    ranks: Mapping[str, int],
    bounds: Mapping[str, Any],
    evidence_sha: str,
    label: str,
    created_at: str,
) -> dict[str, Any]:
    """Return the dict whose canonical bytes (after the parent hash) a commit hash covers."""
    return {
        "contract_sha": contract_sha,
        "seq": seq,
        "payload_sha": payload_sha,
        "state": state,
        "ranks": ranks,
        "bounds": bounds,
        "evidence_sha": evidence_sha,
        "label": label,
        "created_at": created_at,
    }


def commit_hash(parent: str, body: Mapping[str, Any]) -> str:
    """Return sha256(parent hash + canonical body): any edit of a row or of its past changes it.

    >>> len(commit_hash("0" * 64, {"seq": 0}))
    64
    """
    return sha256_hex(parent.encode("ascii") + b"\n" + canonical_json(body))
