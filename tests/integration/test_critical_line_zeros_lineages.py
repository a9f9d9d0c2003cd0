"""A store made by the `critical-line-zeros` contract before issue 25 still audits with today's checker."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mathloop.search.audit import audit_store
from mathloop.search.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract

V2_STORE = Path(__file__).resolve().parents[1] / "adversarial" / "data" / "critical-line-zeros-v2.db"  # made by main at e10e52d


@pytest.mark.slow  # ~4 s: the seed's Arb checks below t = 1000
def test_store_made_by_the_previous_checker_audits_with_every_evidence_rechecked(tmp_path):
    db = tmp_path / "v2.db"
    shutil.copy(V2_STORE, db)
    contract = load_contract("critical-line-zeros")  # unchanged: the stored lineage's own contract
    report = audit_store(contract, Repository(make_engine(str(db), create=False)), InProcessRunner())
    assert report.commits == 4 and not report.findings, [str(f) for f in report.findings]


@pytest.mark.slow  # a real `mathloop run --workers 2`, audit, export and re-check: ~30 s
def test_compact_lineage_runs_audits_exports_and_rechecks_through_the_cli(tmp_path):
    import json
    import subprocess
    import sys

    from mathloop.targets import build_target
    from mathloop.targets.critical_line_zeros.export import export_certificates

    root = Path(__file__).resolve().parents[2]

    def ml(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mathloop", *args], cwd=root, capture_output=True, text=True, timeout=900)

    db = str(tmp_path / "c.db")
    r = ml("run", "critical-line-zeros-compact", "--db", db, "--budget", "3", "--workers", "2", "--no-lean", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    status = json.loads(ml("status", "critical-line-zeros-compact", "--db", db, "--json").stdout)
    assert int(status["head"]["state"]["count"]) >= 59998  # three ranges of 20000 Gram intervals
    assert ml("audit", "critical-line-zeros-compact", "--db", db).returncode == 0
    target = build_target(load_contract("critical-line-zeros-compact"))
    repo = Repository(make_engine(db, create=False))
    evidences = [repo.candidate(c.candidate_id).evidence.to_json() for c in repo.commits(target.contract.sha256)]
    assert all(len(json.dumps(e)) < 8000 for e in evidences)  # compact: the same few kB for any range
    manifest = export_certificates(evidences, tmp_path / "certs")
    r = ml("check", "critical-line-zeros-compact", "--candidate", str(manifest), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["bounds"]["count"] == str(status["head"]["state"]["count"])
