"""Stores of older `critical-line-zeros` contracts still audit, against the contract stored with their lineage."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from mathloop.audit.report import audit_store
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.raw import contract_row
from mathloop.store.repository import Repository
from mathloop.targets import load_contract, load_stored
from tests.integration.cli import invoke

DATA = Path(__file__).resolve().parents[1] / "adversarial" / "data"
# Version 2 of the contract (point lists of 512 Gram intervals, the balls in the evidence), before it became
# the range contract: one store made by main at e10e52d, one by main at b9abaa2 (the last commit before the change).
V2_STORES = ("critical-line-zeros-v2.db", "critical-line-zeros-v2-b9abaa2.db")
V2_SHA = "b674dd7a68906d4b2643e4df00f7e1c3e1b91af8a7d146b3724948915875abb7"


def _copy(tmp_path: Path, name: str) -> Path:
    db = tmp_path / name
    shutil.copy(DATA / name, db)
    return db


@pytest.mark.slow  # ~4 s each: the seed's Arb checks below t = 1000
@pytest.mark.parametrize("name", V2_STORES)
def test_store_of_the_previous_contract_audits_against_its_stored_contract(tmp_path, name):
    repo = Repository(make_engine(str(_copy(tmp_path, name)), create=False))
    row = contract_row(repo.engine, V2_SHA)
    contract = load_stored(row.name, row.sha256, row.text)
    assert contract.sha256 != load_contract("critical-line-zeros").sha256  # the shipped contract moved on
    assert contract.source == "store" and "chunk_gram_intervals = 512" in contract.text
    report = audit_store(contract, repo, InProcessRunner())
    assert report.commits >= 3 and not report.findings, [str(f) for f in report.findings]


def test_audit_names_the_older_lineage_and_audits_it_by_hash(tmp_path):
    db = str(_copy(tmp_path, V2_STORES[1]))
    r = invoke("audit", "critical-line-zeros", "--db", db, "--hash-only")
    assert r.exit_code == 0 and f"older critical-line-zeros contract; audit each with --lineage HASH ({V2_SHA[:12]})" in r.output
    r = invoke("audit", "critical-line-zeros", "--lineage", V2_SHA[:8], "--db", db, "--hash-only")
    assert r.exit_code == 0 and "audit ok: 3 commit(s) of critical-line-zeros verified (hashes and rows)" in r.output


def test_audit_of_an_older_lineage_refuses_an_edited_stored_contract(tmp_path):
    db = str(_copy(tmp_path, V2_STORES[1]))
    with sqlite3.connect(db) as conn:  # a valid contract, but not the one the lineage key names
        conn.execute("UPDATE contracts SET text = replace(text, 'crosscheck_dps = 20', 'crosscheck_dps = 21')")
    r = invoke("audit", "--lineage", V2_SHA, "--db", db, "--hash-only")
    assert r.exit_code == 1 and "the stored contract text was edited" in r.output


@pytest.mark.parametrize("args, words", [(("--lineage", "b674"), "not a lineage hash"),
                                         (("--lineage", "0" * 12), "no lineage starts with 000000000000"),
                                         (("levinson-conrey", "--lineage", V2_SHA), "does not match --lineage")])
def test_audit_lineage_bad_input_exits_2_naming_it(tmp_path, args, words):
    r = invoke("audit", *args, "--db", str(_copy(tmp_path, V2_STORES[1])))
    assert r.exit_code == 2 and words in r.output


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
    r = ml("run", "critical-line-zeros", "--db", db, "--budget", "3", "--workers", "2", "--no-lean", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    status = json.loads(ml("status", "critical-line-zeros", "--db", db, "--json").stdout)
    assert int(status["head"]["state"]["count"]) >= 59998  # three ranges of 20000 Gram intervals
    assert ml("audit", "critical-line-zeros", "--db", db).returncode == 0
    target = build_target(load_contract("critical-line-zeros"))
    repo = Repository(make_engine(db, create=False))
    evidences = [repo.candidate(c.candidate_id).evidence.to_json() for c in repo.commits(target.contract.sha256)]
    assert all(len(json.dumps(e)) < 8000 for e in evidences)  # compact: the same few kB for any range
    manifest = export_certificates(evidences, tmp_path / "certs")
    r = ml("check", "critical-line-zeros", "--candidate", str(manifest), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["bounds"]["count"] == str(status["head"]["state"]["count"])
