"""Re-verify an exported certificate chain (manifest.json) from the contract's seed.

Each file's parent must be the state the previous file's re-check produced (never the state the
file claims), and each file's bytes must match the manifest's sha256.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from mathloop.bounded import MAX_CANDIDATE_BYTES, InputError, read_bytes
from mathloop.domain import Evidence, Verdict, canonical_json, sha256_hex
from mathloop.targets.base import CertificateError as ChainError
from mathloop.targets.base import ChainCheck, CheckerCrash, Malformed, Target


def verify_chain(target: Target, manifest_path: Path, read_json: Callable[[Path], Any]) -> ChainCheck:
    """Return the chain's re-verification: one evidence per file until the first refusal.

    Raises:
        ChainError: no files, a file missing or outside the export, or not a certificate envelope.
        CheckerCrash: the contract's seed does not check.
    """
    manifest = read_json(manifest_path)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, list) or not files:
        raise ChainError(f"{manifest_path}: manifest has no files")
    for i, entry in enumerate(files):  # every entry well-formed before any check runs
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or not isinstance(entry.get("sha256"), str):
            raise ChainError(f"{manifest_path}: files[{i}]: must be an object with string keys file and sha256")
    parent = _checked(target, None, dict(target.contract.seed)).state  # the chain starts at the seed
    evidences: list[Evidence] = []
    for i, entry in enumerate(files):
        path = manifest_path.parent / str(entry.get("file", "") if isinstance(entry, dict) else "")
        if path.parent != manifest_path.parent or not path.is_file():
            raise ChainError(f"{manifest_path}: files[{i}]: {path.name} missing or outside the export")
        try:  # capped like every user file (a manifest may name a 2 GB file)
            data = read_bytes(path, MAX_CANDIDATE_BYTES, "file")
        except InputError as e:
            raise ChainError(str(e).removeprefix("file ")) from None
        if sha256_hex(data) != entry.get("sha256"):
            return ChainCheck(tuple(evidences), (f"{path.name}: sha256 does not match the manifest",), len(files))
        env = read_json(path)
        if not isinstance(env, dict) or "candidate" not in env:
            raise ChainError(f"{path}: not a certificate file")
        if canonical_json(env.get("parent_state")) != canonical_json(parent):
            return ChainCheck(tuple(evidences), (f"{path.name}: parent_state differs from the state re-verified "
                                                 "from the previous file",), len(files))
        try:
            ev = _checked(target, parent, env["candidate"])
        except (Malformed, CheckerCrash) as e:
            return ChainCheck(tuple(evidences), (f"{path.name}: {e}",), len(files))
        except Exception as e:  # a checker bug refuses the chain; it never certifies anything
            return ChainCheck(tuple(evidences), (f"{path.name}: checker crashed: {type(e).__name__}: {e}",), len(files))
        evidences.append(ev)
        if any(r.verdict in (Verdict.REFUTED, Verdict.ERROR) for r in ev.results):
            return ChainCheck(tuple(evidences), tuple(f"{path.name}: {r}" for r in ev.reasons()) or
                              (f"{path.name}: refused",), len(files))
        parent = ev.state
    return ChainCheck(tuple(evidences), (), len(files))


def _checked(target: Target, parent: Any, payload: Any) -> Evidence:
    return target.check(parent, target.parse(payload))
