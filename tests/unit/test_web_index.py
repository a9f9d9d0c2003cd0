"""The web index counts a lineage exactly as `status` does (view.counts) and names what every conditional row rests on."""

from __future__ import annotations

import html
import re

from starlette.testclient import TestClient

from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract
from mathloop.view.counts import lineage_counts
from mathloop.web.app import create_app
from tests.adversarial.store_fixture import build


def _index(db) -> str:
    repo = Repository(make_engine(str(db), create=False, readonly=True))
    return TestClient(create_app(repo, str(db))).get("/").text


def _row(page: str, sha: str) -> str:
    return next(r for r in page.split("<tr>") if f'href="/t/{sha}"' in r)


def test_index_counts_are_the_counts_status_prints(tmp_path, toy_contract):
    db = tmp_path / "s.db"
    writer = Repository(make_engine(str(db)))
    build(toy_contract, writer)
    counts = lineage_counts(writer.engine, toy_contract.sha256)
    writer.engine.dispose()
    cells = re.findall(r"<td>(.*?)</td>", _row(_index(db), toy_contract.sha256))
    assert str(counts.commits) in cells
    assert ", ".join(f"{k} {v}" for k, v in sorted(counts.labels.items())) in cells
    assert counts.commits == 3 and counts.candidates >= 7  # the fixture's two commits, the root, every candidate


def test_a_conditional_lineage_names_its_hypotheses_on_its_row(tmp_path, toy_contract):
    rh = load_contract("pair-correlation-rh")
    db = tmp_path / "s.db"
    writer = Repository(make_engine(str(db)))
    writer.ensure_contract(rh)
    writer.ensure_contract(toy_contract)
    writer.engine.dispose()
    page = _index(db)
    row = html.unescape(_row(page, rh.sha256))
    assert "rests on (taken as given): " in row and "ASSUMED: the Riemann Hypothesis" in row
    for h in rh.hypotheses:
        assert h.title in row
    toy = html.unescape(_row(page, toy_contract.sha256))
    assert f"rests on (taken as given): {toy_contract.rests_on()}" in toy  # "nothing beyond the definitions" if none
    assert all(h.title in toy for h in toy_contract.hypotheses)
