"""`mathloop export TARGET --certificates DIR`: each committed chunk's certificate as JSON, with a manifest."""

from __future__ import annotations

from pathlib import Path

from mathloop.cli.common import console, fail
from mathloop.contract import Contract
from mathloop.store.repository import Repository


def export_certificates(contract: Contract, repo: Repository, out_dir: Path) -> None:
    """Write the certificates of the lineage's commits (critical-line-zeros only)."""
    if contract.target != "critical-line-zeros":
        fail(f"--certificates: target {contract.name} has no chunk certificates (use --records or --lean)")
    from mathloop.targets.critical_line_zeros.export import export_certificates as write

    commits = repo.commits(contract.sha256)
    if not commits:
        fail(f"--certificates: no commits for {contract.name} in this store")
    evidences = [repo.candidate(c.candidate_id).evidence.to_json(with_timings=False) for c in commits]
    manifest = write(evidences, out_dir, [c.hash for c in commits])
    console.print(f"wrote {len(commits)} commit(s)' certificates and {manifest}")
