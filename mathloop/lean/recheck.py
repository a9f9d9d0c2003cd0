"""Re-check an exported Lean project against what mathloop ships and, given one, what the store holds.

Nothing in the export is trusted but its commit modules' own text: the support modules are compiled
from mathloop's own shared text and the target package's (never the export's copies), and any
difference between the export and its manifest, or between the manifest and what mathloop writes
for it, makes the export REFUSED, naming the file, before Lean runs. A manifest re-hashed after an
edit does not help: `Mathloop/Exact.lean` is compared with mathloop's own text, the derived files
with what mathloop derives, and (with a store) every commit module with the rendering of the
stored evidence and its Lean attestation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from mathloop.domain import Verdict, sha256_hex
from mathloop.lean.check import LeanResult, check_source
from mathloop.lean.export import FORMAT, ExportError, derived_files
from mathloop.lean.library import support_path
from mathloop.lean.names import declared_in
from mathloop.lean.names import theorems as declared_theorems
from mathloop.lean.render import RenderError, artifact_sha256, module_name, without_imports
from mathloop.lean.support_modules import imports, path_of
from mathloop.lean.toolchain import Toolchain

MAX_FILE_BYTES = 8_000_000
_IGNORED_DIRS = (".lake", "build", ".git")


@dataclass(frozen=True)
class StoredCommit:
    """What the store says about one commit: its evidence hash, its rendering today, its Lean attestation.

    Attributes:
        evidence_sha256: sha256 of the stored evidence's canonical bytes.
        files: {relative path: sha256} of the rendering of the stored evidence (None: it renders none).
        artifact_sha256: sha256 of that rendering (None: it renders none).
        attested_artifact: the artifact sha256 of the commit's latest `checked` attestation, if any.
    """

    evidence_sha256: str
    files: Mapping[str, str] | None
    artifact_sha256: str | None
    attested_artifact: str | None = None


def _read(root: Path, rel: str) -> str:
    p = (root / rel).resolve()
    if root.resolve() not in p.parents or not p.is_file():
        raise ExportError(f"{root}: {rel} is missing or outside the export")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise ExportError(f"{root}: {rel} is larger than 8 MB")
    return p.read_text(encoding="utf-8")


def read_manifest(root: Path | str) -> dict[str, Any]:
    """Return the export's manifest. Raises ExportError if it is not a mathloop Lean export."""
    root = Path(root)
    try:
        manifest = json.loads(_read(root, "manifest.json"))
        commits = manifest["commits"]
        if not str(manifest["format"]).startswith("mathloop-lean-export/") or not isinstance(manifest["files"], dict) \
                or not isinstance(commits, list) or not all(isinstance(e, dict) for e in commits):
            raise TypeError("unexpected layout")
    except (ValueError, KeyError, TypeError) as e:
        raise ExportError(f"{root}/manifest.json: not a mathloop Lean export ({e})") from None
    return manifest


def _lean_files(root: Path) -> list[str]:
    out = []
    for p in root.rglob("*.lean"):
        rel = p.relative_to(root)
        if not any(part in _IGNORED_DIRS for part in rel.parts[:-1]):
            out.append(rel.as_posix())
    return sorted(out)


def _bytes_sha(root: Path, rel: str) -> str | None:
    p = root / rel
    return sha256_hex(p.read_bytes()) if p.is_file() and p.stat().st_size <= MAX_FILE_BYTES else None


def problems(root: Path | str, support: Mapping[str, str],
             store: Mapping[str, StoredCommit] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Return (manifest, every reason to refuse the export, each naming the file it is about)."""
    root = Path(root)
    manifest = read_manifest(root)
    out: list[str] = []
    listed: Mapping[str, Any] = manifest["files"]
    if manifest["format"] != FORMAT:
        out.append(f"manifest.json: format {manifest['format']!r} is not {FORMAT!r} (re-export with this mathloop)")
    for rel, sha in sorted(listed.items()):
        actual = _bytes_sha(root, rel)
        if actual is None:
            out.append(f"file listed in the manifest is missing: {rel}")
        elif actual != sha:
            out.append(f"file differs from the manifest: {rel}")
    out += [f"a Lean file the manifest does not list: {rel}" for rel in _lean_files(root) if rel not in listed]
    try:
        derived = derived_files({k: v for k, v in manifest.items() if k != "files"})
    except (KeyError, TypeError) as e:
        return manifest, [*out, f"manifest.json: commit entries unreadable ({e})"]
    expected = set(derived)
    for rel, text in derived.items():
        if (root / rel).is_file() and _bytes_sha(root, rel) != sha256_hex(text.encode("utf-8")):
            out.append(f"{rel} differs from what mathloop writes for this manifest")
    needed: dict[str, str] = {}
    for e in manifest["commits"]:
        if not e.get("module"):
            continue
        out += _entry_problems(root, e, support, needed, store)
        base = str(e.get("module", "")).replace(".", "/")
        expected |= {f"{base}/Statement.lean", f"{base}/Proof.lean"}
    for m, text in needed.items():
        rel = path_of(m)
        expected.add(rel)
        if (root / rel).is_file() and _bytes_sha(root, rel) != sha256_hex(text.encode("utf-8")):
            out.append(f"{rel} differs from mathloop's own text of {m} (the check uses mathloop's)")
    out += [f"manifest.json lists {rel}, a file mathloop's export of these commits does not have"
            for rel in sorted(set(listed) - expected)]
    out += [f"manifest.json does not list {rel}" for rel in sorted(expected - set(listed))]
    return manifest, out


def _entry_problems(root: Path, e: Mapping[str, Any], support: Mapping[str, str], needed: dict[str, str],
                    store: Mapping[str, StoredCommit] | None) -> list[str]:
    h, module = str(e.get("hash", "")), str(e.get("module", ""))
    try:
        if module != module_name(h):
            return [f"manifest.json: commit {h[:16]}: module {module!r} is not {module_name(h)}"]
    except RenderError as err:
        return [f"manifest.json: commit {h[:16]}: {err}"]
    base = module.replace(".", "/")
    st_rel, pr_rel = f"{base}/Statement.lean", f"{base}/Proof.lean"
    try:
        statement, proof = _read(root, st_rel), _read(root, pr_rel)
    except ExportError as err:
        return [str(err)]
    out = []
    for m in imports(statement):
        if m not in support:
            out.append(f"{st_rel}: imports {m}, which neither mathloop nor the target ships")
        else:
            needed[m] = support[m]
    if imports(proof) != [f"{module}.Statement"]:
        out.append(f"{pr_rel}: imports something other than its Statement")
    if declared_theorems(proof) != list(e.get("theorems") or ()):
        out.append(f"{pr_rel}: declares theorems {declared_theorems(proof)} but the manifest lists {e.get('theorems')}")
    if store is not None:
        out += _store_problems(h, e, st_rel, pr_rel, statement, proof, {m: support[m] for m in imports(statement)
                                                                       if m in support}, store)
    return out


def _store_problems(h: str, e: Mapping[str, Any], st_rel: str, pr_rel: str, statement: str, proof: str,
                    support: Mapping[str, str], store: Mapping[str, StoredCommit]) -> list[str]:
    got = store.get(h)
    if got is None:
        return [f"manifest.json: commit {h[:16]} is not a commit of this contract in the store"]
    out = []
    if e.get("evidence_sha256") != got.evidence_sha256:
        out.append(f"manifest.json: commit {h[:16]}: evidence_sha256 differs from the store's evidence")
    if got.files is None:
        return [*out, f"{st_rel}: the store's evidence of commit {h[:16]} renders no Lean"]
    for rel, text in ((st_rel, statement), (pr_rel, proof)):
        if sha256_hex(text.encode("utf-8")) != got.files.get(rel):
            out.append(f"{rel} differs from the rendering of commit {h[:16]}'s evidence in the store")
    art = artifact_sha256(str(e["module"]), statement, proof, support)
    if got.attested_artifact is not None and art != got.attested_artifact:
        out.append(f"{st_rel}: not the file the store's `checked` Lean attestation of {h[:16]} is about")
    return out


def check_project(root: Path | str, toolchain: Toolchain, support: Mapping[str, str], timeout_s: float = 600,
                  store: Mapping[str, StoredCommit] | None = None) -> tuple[LeanResult, list[dict]]:
    """Return (overall result, one row per commit module) for re-checking an exported project with Lean.

    `support` is {module: text} of mathloop's shared modules and the export's target's own (never the
    export's copies). REFUSED (before Lean runs) on any difference `problems` finds; PROVED only if
    every commit module is PROVED.

    Raises:
        ExportError: the directory is not a mathloop Lean export.
    """
    root = Path(root)
    manifest, found = problems(root, support, store)
    tc = toolchain
    entries = [e for e in manifest["commits"] if e.get("module")]
    if found:
        return LeanResult(Verdict.REFUTED, f"refused before running Lean: {found[0]}", refused=True,
                          messages=tuple(found), kind=tc.kind, version=tc.version, commit=tc.commit,
                          prelude_sha256=tc.prelude_sha256), []
    if not entries:
        return LeanResult(Verdict.UNKNOWN, "the export has no rendered commit", kind=tc.kind, version=tc.version,
                          commit=tc.commit, prelude_sha256=tc.prelude_sha256), []
    if not tc.available:
        return LeanResult(Verdict.UNKNOWN, tc.reason), []
    rows, axioms, verdict = [], set(), Verdict.PROVED
    for e in entries:
        base = e["module"].replace(".", "/")
        statement, proof = _read(root, f"{base}/Statement.lean"), _read(root, f"{base}/Proof.lean")
        used = {m: support[m] for m in imports(statement)}
        source = "".join(f"import {m}\n" for m in used) + "\n".join(without_imports(t) for t in (statement, proof))
        res = check_source(source, e["theorems"], toolchain=tc, timeout_s=timeout_s,
                           lean_path=(support_path(tc, used),), protected=declared_in(used.values()))
        rows.append({"commit": e["hash"], "module": e["module"], **res.to_json()})
        axioms |= set(res.all_axioms())
        if res.verdict is not Verdict.PROVED and verdict is Verdict.PROVED:
            verdict = res.verdict
    refused = any(r["verdict"] == "REFUSED" for r in rows)
    reason = f"{len(rows)} commit module(s): " + ", ".join(f"{r['module'][6:18]} {r['verdict']}" for r in rows)
    return LeanResult(verdict, reason, refused=refused and verdict is not Verdict.PROVED,
                      axioms=(("*", tuple(sorted(axioms))),), kind=tc.kind, version=tc.version, commit=tc.commit,
                      prelude_sha256=tc.prelude_sha256), rows
