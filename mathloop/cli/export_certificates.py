"""`mathloop export TARGET --certificates DIR`: each commit's certificate as JSON, with a manifest."""

from __future__ import annotations

import json
from pathlib import Path

from mathloop.cli.common import console, fail
from mathloop.contract import Contract
from mathloop.outputs import OutputError, building_dir
from mathloop.store.repository import Repository
from mathloop.targets import build_target


def export_certificates(contract: Contract, repo: Repository, out_dir: Path) -> None:
    """Write the certificates of the lineage's commits through the target's own exporter, all or nothing.

    The exporter writes into a fresh directory beside `out_dir`, renamed into place when it is done; a previous
    certificate export there is replaced, anything else refused.
    """
    commits = repo.commits(contract.sha256)
    if not commits:
        fail(f"--certificates: no commits for {contract.name} in this store")
    chain = [(c.hash, repo.candidate(c.candidate_id).evidence) for c in commits]
    target = build_target(contract)
    try:
        with building_dir(out_dir, may_replace=_previous_export) as tmp:
            manifest = target.export_certificates(chain, tmp)
            if manifest is None:
                raise _NoCertificates
    except _NoCertificates:
        fail(f"--certificates: target {contract.name} has no certificate files (use --records or --lean)")
    except OutputError as e:
        fail(f"--certificates {e}")
    console.print(f"wrote {len(commits)} commit(s)' certificates and {Path(out_dir) / manifest.relative_to(tmp)}",
                  highlight=False)


class _NoCertificates(Exception):
    """The target writes no certificate files: nothing is put in place."""


def _previous_export(path: Path) -> bool:
    """Return True when `path` holds a certificate export (its manifest's format ends in `/manifest`)."""
    try:
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and str(manifest.get("format", "")).endswith("/manifest") \
        and isinstance(manifest.get("files"), list)
