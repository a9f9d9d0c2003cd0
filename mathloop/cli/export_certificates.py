"""`mathloop export TARGET --certificates DIR`: each commit's certificate as JSON, with a manifest."""

from __future__ import annotations

from pathlib import Path


from mathloop.cli.common import console, fail
from mathloop.contract import Contract
from mathloop.store.repository import Repository
from mathloop.targets import build_target


def export_certificates(contract: Contract, repo: Repository, out_dir: Path) -> None:
    """Write the certificates of the lineage's commits through the target's own exporter."""
    commits = repo.commits(contract.sha256)
    if not commits:
        fail(f"--certificates: no commits for {contract.name} in this store")
    chain = [(c.hash, repo.candidate(c.candidate_id).evidence) for c in commits]
    manifest = build_target(contract).export_certificates(chain, out_dir)
    if manifest is None:
        fail(f"--certificates: target {contract.name} has no certificate files (use --records or --lean)")
    console.print(f"wrote {len(commits)} commit(s)' certificates and {manifest}", highlight=False)
