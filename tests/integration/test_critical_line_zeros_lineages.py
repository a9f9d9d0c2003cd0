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
