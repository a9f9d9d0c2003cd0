"""Write each committed chunk's certificate as a JSON file, plus a manifest of sha256 hashes.

A certificate file is an envelope that `mathloop check critical-line-zeros --candidate FILE`
re-verifies: key "candidate" holds the chunk payload exactly as committed and "parent_state"
the state it was checked against, so the re-check reproduces the committed evidence byte for
byte. Key "chunk" holds what was verified: every Gram point's and every rational point's Z ball
(mid/rad decimal strings, Arb precision), per-block sign changes, and the Turing data.
No Lean is rendered for this target: numeric evaluation of zeta is not kernel-checkable today.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from mathloop.domain import canonical_json, sha256_hex
from mathloop.targets.critical_line_zeros.certificate import CERTIFICATE_FORMAT, EXPORT_KEY


def candidate_of(chunk: Mapping[str, Any]) -> dict[str, Any]:
    """Return the candidate payload that produced a chunk artifact (point strings as committed).

    A compact artifact (digest.py) holds the candidate itself; a full one lists every block and point.
    """
    if "candidate" in chunk:
        return dict(chunk["candidate"])
    return {"start": chunk["start"], "blocks": [{"end": b["end"], "points": [p[0] for p in b["points"]]}
                                                | ({"merged": True} if b.get("merged") else {}) for b in chunk["blocks"]]}


def certificate_of(evidence: Mapping[str, Any], parent_state: Mapping[str, Any] | None, seq: int, commit: str | None = None) -> dict[str, Any] | None:
    """Return the certificate envelope of one committed evidence JSON, or None if it holds no chunk."""
    chunk = evidence.get("artifacts", {}).get("chunk")
    if chunk is None:
        return None
    env = {
        "mathloop_certificate": CERTIFICATE_FORMAT,
        "target": "critical-line-zeros",
        "seq": seq,
        "checker": evidence["checker"],
        "checker_version": evidence["checker_version"],
        EXPORT_KEY: candidate_of(chunk),
        "parent_state": parent_state,
        "chunk": chunk,
        "state": evidence["state"],
        "bounds": evidence["bounds"],
        "precision": evidence.get("precision", {}),
    }
    if commit is not None:
        env["commit"] = commit
    return env


def export_certificates(evidences: Sequence[Mapping[str, Any]], out_dir: Path | str, commits: Sequence[str] | None = None) -> Path:
    """Write one certificate file per chunk (evidence JSON in chain order, root first) and manifest.json.

    Returns the manifest path. Each file's parent_state is the previous evidence's state (None
    for the root). Files are canonical JSON, so their hashes are reproducible.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files, parent = [], None
    for seq, ev in enumerate(evidences):
        env = certificate_of(ev, parent, seq, commits[seq] if commits else None)
        parent = ev["state"]
        if env is None or env["chunk"]["start"] == env["chunk"]["end"]:  # the seed: no blocks
            continue
        c = env["chunk"]
        name = f"chunk-{seq:06d}-g{c['start']}-g{c['end']}.json"
        data = canonical_json(env)
        (out / name).write_bytes(data)
        files.append({"file": name, "sha256": sha256_hex(data), "start": c["start"], "end": c["end"],
                      "height": env["state"].get("height"), "count": env["state"].get("count")})
    manifest = {"format": CERTIFICATE_FORMAT + "/manifest", "target": "critical-line-zeros", "files": files}
    path = out / "manifest.json"
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path
