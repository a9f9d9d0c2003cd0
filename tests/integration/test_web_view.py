"""`mathloop serve` as a real server on a real store: read-only in every way, escaped, every page answers."""

from __future__ import annotations

import re
import sqlite3

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from mathloop.targets import load_contract
from mathloop.domain import Label
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.web.readonly import readonly_engine
from tests.integration.cli import invoke, mathloop
from tests.integration.web_server import serving

pytestmark = pytest.mark.slow  # a real session and a served store per module (~8 s): CI's second tier runs it

EVIL = '<script>alert("payload")</script><img src=x onerror=alert(1)>'


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("web") / "web.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "3", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    repo = Repository(make_engine(db))
    contract = load_contract("levinson-conrey")
    head = repo.head(contract.sha256)
    # what a hostile model could leave in the memory: markup in the payload and in the reasons
    repo.record(contract_sha=contract.sha256, session_id=None, head_commit=head.hash, payload={"P": [EVIL]},
                proposer="openai", meta={"model": EVIL}, label=Label.MALFORMED, reasons=[f"bad coefficient {EVIL}"],
                evidence=None)
    return db


@pytest.fixture(scope="module")
def server(store):
    with serving(store) as (url, line):
        yield url, line


def _snapshot(db: str):
    with sqlite3.connect(db) as c:
        return [c.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("contracts", "commits", "candidates", "sessions")]


def test_serve_binds_localhost_and_says_so(server):
    url, line = server
    assert url.startswith("http://127.0.0.1:")
    assert "read-only" in line and "bound to 127.0.0.1" in line and "this machine only" in line


def test_every_page_of_the_lineage_answers(server, store):
    url, _ = server
    sha = load_contract("levinson-conrey").sha256
    index = httpx.get(url + "/")
    assert index.status_code == 200 and f"/t/{sha}" in index.text and "kappa ≥ 0.4" in index.text
    target = httpx.get(f"{url}/t/{sha}")
    assert target.status_code == 200 and 'id="commits"' in target.text
    commits = re.findall(r'href="/commit/([0-9a-f]{64})"', target.text)
    assert len(commits) == len(Repository(make_engine(store)).commits(sha))
    graph = httpx.get(f"{url}/t/{sha}/graph", params={"commit": commits[-1]})  # the root
    assert graph.status_code == 200 and "kappa-bound" in graph.text
    plot = httpx.get(f"{url}/t/{sha}/plot.svg")
    assert plot.status_code == 200 and plot.headers["content-type"].startswith("image/svg+xml")
    assert httpx.get(f"{url}/commit/{commits[0]}").status_code == 200
    assert httpx.get(f"{url}/t/{'0' * 64}").status_code == 404
    assert httpx.get(f"{url}/t/{sha}/graph", params={"commit": "x"}).status_code == 404


def test_pages_answer_to_a_unique_hash_prefix_and_say_why_not_otherwise(server, store):
    url, _ = server
    sha = load_contract("levinson-conrey").sha256
    head = Repository(make_engine(store)).head(sha).hash
    page = httpx.get(f"{url}/commit/{head[:8]}")
    assert page.status_code == 200 and head in page.text
    assert httpx.get(f"{url}/t/{sha[:12]}").status_code == 200
    assert httpx.get(f"{url}/t/{sha[:12]}/graph", params={"commit": head[:10]}).status_code == 200
    short = httpx.get(f"{url}/commit/{head[:6]}")
    assert short.status_code == 404 and "at least 8 hex digits" in short.text


def test_candidates_filter_by_label(server):
    url, _ = server
    sha = load_contract("levinson-conrey").sha256
    page = httpx.get(f"{url}/t/{sha}/candidates", params={"label": "malformed"}).text
    labels = re.findall(r'<span class="lbl [a-z_]*">([a-z_]+)</span>', page)
    assert labels == ["malformed"]
    allp = httpx.get(f"{url}/t/{sha}/candidates").text
    assert len(re.findall(r'<span class="lbl', allp)) > 1


def test_model_text_is_escaped_on_every_page(server):
    url, _ = server
    sha = load_contract("levinson-conrey").sha256
    listing = httpx.get(f"{url}/t/{sha}/candidates", params={"label": "malformed"}).text
    cid = re.search(r'href="/candidate/(\d+)"', listing).group(1)
    detail = httpx.get(f"{url}/candidate/{cid}").text
    for page in (listing, detail):
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(&#34;payload&#34;)&lt;/script&gt;" in page or "\\u003cscript" in page


def test_writes_answer_405_and_change_nothing(server, store):
    url, _ = server
    sha = load_contract("levinson-conrey").sha256
    before = _snapshot(store)
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        for path in ("/", f"/t/{sha}", f"/t/{sha}/candidates", "/candidate/1", "/no/such/page"):
            r = httpx.request(method, url + path, content=b'{"x": 1}')
            assert r.status_code == 405, (method, path)
            assert r.headers["allow"] == "GET, HEAD"
    assert _snapshot(store) == before


def test_pages_forbid_foreign_scripts_and_framing(server):
    url, _ = server
    csp = httpx.get(url + "/").headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp and "frame-ancestors 'none'" in csp


def test_readonly_engine_refuses_writes_at_the_database(store):
    engine = readonly_engine(store)
    with engine.connect() as c:
        assert c.execute(text("SELECT count(*) FROM commits")).scalar() > 0
        with pytest.raises(OperationalError, match="readonly"):
            c.execute(text("DELETE FROM commits"))


def test_serve_refuses_a_missing_or_foreign_store(tmp_path):
    res = invoke("serve", "--db", str(tmp_path / "none.db"))
    assert res.exit_code == 2 and "no store there" in res.output
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE t (x)")
    res = invoke("serve", "--db", str(other))
    assert res.exit_code == 2 and "not a mathloop store" in res.output
    assert not (tmp_path / "none.db").exists()  # nothing created


@pytest.mark.slow
@pytest.mark.postgres_live
def test_serve_on_postgresql_reads_and_refuses_writes():
    from tests.integration.postgres import private_cluster, unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    from sqlalchemy.exc import InternalError, ProgrammingError

    with private_cluster() as url:
        proc = mathloop("run", "levinson-conrey", "--db", url, "--budget", "2", "--no-progress")
        assert proc.returncode == 0, proc.stderr
        engine = readonly_engine(url)
        try:
            with engine.connect() as c:
                n = c.execute(text("SELECT count(*) FROM commits")).scalar()
                assert n >= 1
                with pytest.raises((InternalError, ProgrammingError, OperationalError), match="read-only"):
                    c.execute(text("DELETE FROM commits"))
        finally:
            engine.dispose()
        with serving(url) as (base, line):
            assert "postgres@" not in line  # no user name or password printed
            sha = load_contract("levinson-conrey").sha256
            assert httpx.get(f"{base}/t/{sha}").status_code == 200
            assert httpx.get(f"{base}/t/{sha}/graph").status_code == 200
            assert httpx.post(f"{base}/t/{sha}").status_code == 405
