"""`mathloop export TARGET --lean DIR`: the committed certificates as a standalone Lake project."""

from __future__ import annotations

from pathlib import Path

from mathloop.cli.common import console, fail
from mathloop.contract import Contract
from mathloop.export.lean_project import ExportError, export_lean_project
from mathloop.export.lean_render import RenderError
from mathloop.store.repository import Repository


def export_lean(contract: Contract, repo: Repository, out: Path) -> None:
    """Write the lineage's commits (chain order) with their stored Lean status to `out`."""
    statuses = repo.lean_statuses(contract.sha256)
    commits = []
    for c in repo.commits(contract.sha256):
        cand = repo.candidate(c.candidate_id)
        if cand is None or cand.evidence is None:
            fail(f"commit {c.hash}: its evidence is missing from the store (run `mathloop audit`)", 1)
        commits.append({"hash": c.hash, "parent": c.to_json()["parent"], "seq": c.seq, "evidence": cand.evidence,
                        "lean_status": statuses.get(c.hash)})
    if not commits:
        fail(f"no commits for {contract.name} in this store: nothing to export")
    try:
        summary = export_lean_project(contract, commits, out)
    except (ExportError, RenderError) as e:
        fail(str(e))
    states = [e["lean"]["status"] for e in summary.manifest["commits"]]
    console.print(f"wrote a Lake project with {summary.rendered} certificate module(s) for {len(commits)} commit(s) "
                  f"to {out} (Lean: {states.count('checked')} checked, {states.count('pending')} pending, "
                  f"{states.count('not-applicable')} not applicable); check it with `lake build` (see README.md)")
