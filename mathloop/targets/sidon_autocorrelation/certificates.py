"""Certificate files of the step-function targets: one JSON envelope per commit, and a manifest.

Each commit's candidate is a full replacement (the value depends on the heights only), so every file
re-verifies on its own: `mathloop check TARGET --candidate FILE` reads the envelope's "candidate"
with parent_state null, and `--candidate manifest.json` re-verifies every file (sha256 from the
manifest, then the exact check) and confirms the bound each file states.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from mathloop.domain import Evidence, canonical_json, fraction_str, sha256_hex
from mathloop.targets.base import CertificateError, ChainCheck, Malformed

FORMAT = "mathloop-step-function-certificate/1"


def export_certificates(target: Any, chain: Sequence[tuple[str, Evidence]], out_dir: Path) -> Path:
    """Write cert-<seq>-<hash>.json per commit with a certified bound (root first) and manifest.json."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for seq, (commit, ev) in enumerate(chain):
        if target.bound_name not in ev.bounds:
            continue
        env = {"mathloop_certificate": FORMAT, "target": target.name, "contract_sha256": target.contract.sha256,
               "seq": seq, "commit": commit, "checker": ev.checker, "checker_version": ev.checker_version,
               "candidate": dict(ev.state), "parent_state": None,
               "bounds": {k: fraction_str(v) for k, v in ev.bounds.items()},
               "value": ev.artifacts.get("value", {})}
        data = canonical_json(env)
        name = f"cert-{seq:06d}-{commit[:12]}.json"
        (out / name).write_bytes(data)
        files.append({"file": name, "sha256": sha256_hex(data), "commit": commit,
                      target.bound_name: fraction_str(ev.bounds[target.bound_name])})
    manifest = {"format": FORMAT + "/manifest", "target": target.name, "files": files}
    path = out / "manifest.json"
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def verify_chain(target: Any, manifest: Path, read_json: Callable[[Path], Any]) -> ChainCheck:
    """Return the re-verification of every file the manifest lists (each stands alone).

    Raises:
        CertificateError: the manifest is unusable (not this target's, a file outside the export).
    """
    m = read_json(manifest)
    if not isinstance(m, dict) or m.get("format") != FORMAT + "/manifest" or m.get("target") != target.name \
            or not isinstance(m.get("files"), list):
        raise CertificateError(f"{manifest}: not a {target.name} certificate manifest")
    evidences: list[Evidence] = []
    reasons: list[str] = []
    root = manifest.resolve().parent
    for entry in m["files"]:
        name = entry.get("file") if isinstance(entry, dict) else None
        if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
            raise CertificateError(f"{manifest}: bad file entry {str(entry)[:80]!r}")
        path = root / name
        raw = path.read_bytes() if path.is_file() else None
        if raw is None or sha256_hex(raw) != entry.get("sha256"):
            reasons.append(f"{name}: missing or its sha256 differs from the manifest")
            break
        env = read_json(path)
        try:
            ev = target.check(None, target.parse(env.get("candidate") if isinstance(env, dict) else None))
        except Malformed as e:
            reasons.append(f"{name}: malformed candidate: {e}")
            break
        stated = env.get("bounds", {}).get(target.bound_name)
        got = ev.bounds.get(target.bound_name)
        if got is None or stated is None or Fraction(stated) != got:
            reasons.append(f"{name}: states {target.bound_name} = {stated}, re-verified {got}")
            break
        evidences.append(ev)
    return ChainCheck(tuple(evidences), tuple(reasons), len(m["files"]))
