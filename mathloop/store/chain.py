"""The hash chains: what a commit hash and a memory row hash cover, computed the same way at write and audit.

Chain format 1 (stores written before the memory was chained): a commit hash covers its own row.
Chain format 2: every memory row (candidate) is chained per session, starting from a hash of the
session's opening fields, and a commit hash also covers its candidate's row hash, so the memory up
to each commit (labels, reasons, payloads, proposer and its meta: the training data) is sealed into
the commit chain. A session's end (count, last row, outcome) is sealed in the session row.
Chain format 3: the lineage has an anchor, a hash of its contract row as stored (exact text, name,
target, created_at); every commit covers it, and a session's chain starts from the anchor, the head
commit the session opened on and the format, so a session copied from another store does not verify.
A format-3 memory row's hash also covers its own id.
"""

from __future__ import annotations

from typing import Any, Mapping

from mathloop.domain import canonical_json, sha256_hex

CHAIN_FORMAT = 3
MEMORY_FORMAT = 2  # the first chain format with chained memory rows
LEGACY_FORMAT = 1
GENESIS = "0" * 64

# The stored columns each row hash covers (their exact stored text/values, in this order).
CANDIDATE_FIELDS = ("contract_sha", "session_id", "chain_seq", "head_commit", "payload", "payload_sha", "proposer",
                    "proposer_meta", "label", "reasons", "evidence", "evidence_sha", "timings", "created_at")
SESSION_FIELDS = ("id", "contract_sha", "proposer", "seed", "options", "started_at")
SESSION_END_FIELDS = ("ended_at", "outcome")
CANDIDATE_FIELDS_V3 = ("id", *CANDIDATE_FIELDS)
CONTRACT_FIELDS = ("sha256", "name", "target", "text", "created_at")
SESSION_OPEN_FIELDS = ("opened_on", "format")
COMMIT_FIELDS = ("format", "contract_sha", "parent", "seq", "candidate_id", "payload_sha", "state", "ranks", "bounds",
                 "evidence_sha", "label", "created_at")


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
    format: int = LEGACY_FORMAT,
    candidate_id: int | None = None,
    candidate_hash: str | None = None,
    lineage: str | None = None,
) -> dict[str, Any]:
    """Return the dict whose canonical bytes (after the parent hash) a commit hash covers.

    Format 1 is the original body; format 2 adds the format itself and the candidate's id and row hash;
    format 3 adds the lineage anchor (the hash of the contract row as stored).
    """
    body: dict[str, Any] = {
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
    if format != LEGACY_FORMAT:
        body.update(format=format, candidate_id=candidate_id, candidate=candidate_hash)
    if format >= 3:
        body["lineage"] = lineage
    return body


def commit_hash(parent: str, body: Mapping[str, Any]) -> str:
    """Return sha256(parent hash + canonical body): any edit of a row or of its past changes it.

    >>> len(commit_hash("0" * 64, {"seq": 0}))
    64
    """
    return sha256_hex(parent.encode("ascii") + b"\n" + canonical_json(body))


def field_digests(fields: Mapping[str, Any]) -> dict[str, str]:
    """Return {column: sha256 of its canonical stored value}: what a row hash is built from.

    >>> field_digests({"a": 1})["a"][:12]
    '6b86b273ff34'
    """
    return {k: sha256_hex(canonical_json(v)) for k, v in fields.items()}


def row_hash(prev: str, fields: Mapping[str, Any]) -> str:
    """Return sha256(previous row hash + canonical field digests): a memory/session chain link."""
    return sha256_hex(prev.encode("ascii") + b"\n" + canonical_json(field_digests(fields)))


def locator(fields: Mapping[str, Any]) -> str:
    """Return the short per-column digests stored next to a row hash, so that audit can name the edited column.

    The locator is not part of any hash: it only points at the column once a hash has failed.
    """
    return canonical_json({k: d[:12] for k, d in field_digests(fields).items()}).decode("ascii")


def edited_columns(stored_locator: str | None, fields: Mapping[str, Any]) -> list[str]:
    """Return the columns whose current value no longer matches the stored locator ([] if unknown)."""
    import json

    try:
        old = json.loads(stored_locator) if stored_locator else {}
    except ValueError:
        return []
    if not isinstance(old, dict):
        return []
    now = {k: d[:12] for k, d in field_digests(fields).items()}
    return [k for k in fields if k in old and old[k] != now[k]]


def lineage_anchor(contract_fields: Mapping[str, Any]) -> str:
    """Return the lineage anchor: the hash of the contract row as stored (CONTRACT_FIELDS, exact text)."""
    return row_hash(GENESIS, contract_fields)


def session_genesis(fields: Mapping[str, Any], anchor: str | None = None) -> str:
    """Return the hash a session's memory chain starts from: its opening fields (proposer, seed, options...).

    Format 3 passes the lineage anchor and adds SESSION_OPEN_FIELDS (the head it opened on) to `fields`,
    so the chain starts from this store's lineage; format 2 starts from zeros.
    """
    return row_hash(anchor or GENESIS, fields)


def no_session_genesis(contract_sha: str) -> str:
    """Return the chain start of memory rows recorded outside any session (one chain per lineage)."""
    return row_hash("0" * 64, {"contract_sha": contract_sha, "session_id": None})


def session_seal(tip: str, count: int, end_fields: Mapping[str, Any]) -> str:
    """Return the stored seal of an ended session: `count:hash` over its last row hash, row count and end fields.

    >>> session_seal("0" * 64, 0, {"ended_at": "t", "outcome": "budget spent"}).startswith("0:")
    True
    """
    return f"{count}:{row_hash(tip, {'count': count, **end_fields})}"
