"""Compact evidence for a verified chunk: counts, the merged blocks, and per group of blocks the sha256 of its balls.

A chunk's full artifact lists every Gram point's and sample point's ball (verify.py): ~100 bytes per
Gram interval. With `evidence_digest_blocks = n` the evidence keeps instead, per n consecutive blocks,
their range, counts and sha256(canonical JSON of {"blocks": the blocks' entries, "gram": the Gram
balls g_start..g_end of the group}); with the candidate (a few bytes for a range) the audit re-runs
the check, which re-derives every point and ball, and the evidence must be equal byte for byte, so
every hash is re-checked. `full_artifact` (the check's own output) gives the lists back on demand.
"""

from __future__ import annotations

from typing import Any, Mapping

from mathloop.domain import canonical_dumps, sha256_hex

DIGEST_FORMAT = "mathloop/critical-line-zeros/certificate/2"


def digest_artifact(full: Mapping[str, Any], candidate: Mapping[str, Any], group: int) -> dict[str, Any]:
    """Return the compact artifact of a full chunk artifact ({"start", "end", "blocks", "gram"})."""
    blocks, gram, start = full["blocks"], full["gram"], full["start"]
    groups = []
    for a in range(0, len(blocks), group):
        part = blocks[a : a + group]
        j, k = part[0]["start"], part[-1]["end"]
        body = canonical_dumps({"blocks": part, "gram": gram[j - start : k - start + 1]})
        groups.append({"first_block": part[0]["block"], "blocks": len(part), "start": j, "end": k,
                       "sign_changes": sum(b["sign_changes"] for b in part),
                       "points": sum(len(b["points"]) for b in part), "sha256": sha256_hex(body)})
    return {"candidate": dict(candidate), "start": start, "end": full["end"], "blocks": len(blocks),
            "sign_changes": sum(g["sign_changes"] for g in groups), "points": sum(g["points"] for g in groups),
            "merged": [[b["block"], b["start"], b["end"]] for b in blocks if b.get("merged")], "groups": groups}
