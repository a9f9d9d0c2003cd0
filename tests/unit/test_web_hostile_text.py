"""Hostile text from the store (a program, a refusal reason, a name) is shown escaped on every kind of page."""

from __future__ import annotations

import pytest
from markupsafe import escape
from starlette.testclient import TestClient

from mathloop.domain import Evidence, Label, ObligationResult, Trust, Verdict
from mathloop.export.graph import node_statuses
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.view.graph_data import GraphView
from mathloop.view.graph_page import graph_html
from mathloop.view.leaderboard import Row
from mathloop.web import pages
from mathloop.web.app import create_app
from mathloop.web.queries import Lineage
from mathloop.web.records_page import records_page
from tests.adversarial.store_fixture import build

HOSTILE = '<script>alert(1)</script>"\'><img onerror=alert(2) src=x>'
KINDS = ["index", "target", "candidates", "candidate", "commit", "error", "records", "graph"]


@pytest.fixture
def hostile_store(tmp_path, toy_contract):
    repo = Repository(make_engine(str(tmp_path / "s.db")))
    build(toy_contract, repo)
    cid = repo.record(contract_sha=toy_contract.sha256, session_id=None, head_commit=None, payload={"x": HOSTILE},
                      proposer=HOSTILE, meta={"program": {"text": HOSTILE, "sha256": "ab" * 32}},
                      label=Label.MALFORMED, reasons=[HOSTILE], evidence=None)
    return repo, cid


def _page(kind: str, repo: Repository, cid: int, contract) -> str:
    sha = contract.sha256
    lin = Lineage(sha, HOSTILE, HOSTILE, "now", 0, None, {"malformed": 1}, (HOSTILE,))
    if kind in ("candidates", "candidate"):
        client = TestClient(create_app(repo, HOSTILE))
        return client.get(f"/t/{sha}/candidates" if kind == "candidates" else f"/candidate/{cid}").text
    if kind == "index":
        return pages.index_page([(lin, None)], HOSTILE)
    if kind == "target":
        return pages.target_page(lin, None, repo.commits(sha), {}, HOSTILE, HOSTILE, (HOSTILE,))
    if kind == "commit":
        return pages.commit_page(repo.commits(sha)[-1], None, HOSTILE, HOSTILE)
    if kind == "error":
        return pages.error_page(404, HOSTILE, [(HOSTILE, HOSTILE)])
    if kind == "records":
        row = Row("1a", HOSTILE, HOSTILE, "lower", "#", "", (), (), HOSTILE, HOSTILE, HOSTILE, "", 1, 0, None, False,
                  ((HOSTILE, HOSTILE),))
        return records_page([row], HOSTILE)
    ev = Evidence("toy", "1", (ObligationResult("in-range", Verdict.REFUTED, 1, Trust.EXACT, (HOSTILE,)),), {}, {})
    view = GraphView(contract, "ab" * 32, 3, "now", None, tuple(node_statuses(contract, ev, {"in-range": HOSTILE})), 4)
    return graph_html(view, nav=pages.nav_bar(styled=True, lineage=(sha, HOSTILE)))


@pytest.mark.parametrize("kind", KINDS)
def test_hostile_text_is_shown_escaped_on_every_page_kind(hostile_store, toy_contract, kind):
    repo, cid = hostile_store
    html = _page(kind, repo, cid, toy_contract)
    assert "<script>alert" not in html and "<img onerror" not in html and "'><img" not in html
    assert str(escape(HOSTILE)) in html, kind  # shown, as text
