"""The web view over a read-only store: huge ids and pages answer 404/400, and serving writes nothing anywhere."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from starlette.testclient import TestClient

from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import Repository
from mathloop.web.app import create_app
from tests.adversarial.store_fixture import build


def tree(directory: Path) -> dict[str, str]:
    """Return {file name: sha256 of its bytes} of everything in the directory."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


@pytest.fixture
def stored(tmp_path, toy_contract):
    """Return the path of a closed WAL store (its writer gone, as after `mathloop run`)."""
    directory = tmp_path / "store"
    directory.mkdir()
    db = directory / "s.db"
    writer = Repository(make_engine(str(db)))
    build(toy_contract, writer)
    writer.engine.dispose()
    return db


def client_of(db: Path) -> TestClient:
    return TestClient(create_app(Repository(make_engine(str(db), create=False, readonly=True)), str(db)))


def pages(client: TestClient, sha: str) -> list[str]:
    hashes = sorted(set(re.findall(r"/commit/([0-9a-f]{64})", client.get(f"/t/{sha}").text)))
    return (["/", f"/t/{sha}", f"/t/{sha}/graph", f"/t/{sha}/candidates", f"/t/{sha}/candidates?page=1",
             "/candidate/1", "/candidate/3"] + [f"/commit/{h}" for h in hashes])


def test_serving_every_page_leaves_the_store_and_its_directory_byte_identical(stored, toy_contract):
    before = tree(stored.parent)
    assert list(before) == ["s.db"]
    client = client_of(stored)
    paths = pages(client, toy_contract.sha256)
    assert len(paths) >= 10
    for path in paths:
        assert client.get(path).status_code == 200, path
    assert tree(stored.parent) == before


@pytest.mark.parametrize("path", ["/candidate/9223372036854775808", "/candidate/99999999999999999999999999",
                                  "/candidate/9223372036854775807"])
def test_huge_candidate_ids_answer_404(stored, path):
    r = client_of(stored).get(path)
    assert r.status_code == 404 and "no such candidate" in r.text


@pytest.mark.parametrize("page", ["1000000001", "9223372036854775808", "1" + "0" * 400])
def test_huge_page_numbers_answer_400(stored, toy_contract, page):
    r = client_of(stored).get(f"/t/{toy_contract.sha256}/candidates?page={page}")
    assert r.status_code == 400 and "page must be at most" in r.text


def test_readonly_engine_refuses_writes_and_creates_nothing(stored, tmp_path):
    before = tree(stored.parent)
    engine = make_engine(str(stored), create=False, readonly=True)
    with engine.connect() as c:
        assert c.execute(text("SELECT count(*) FROM commits")).scalar() == 3
        with pytest.raises(OperationalError, match="readonly"):
            c.execute(text("DELETE FROM commits"))
    engine.dispose()
    assert tree(stored.parent) == before
    for create in (False, True):  # read-only never creates, whatever `create` says
        with pytest.raises(StoreError, match="no store there"):
            make_engine(str(tmp_path / "none.db"), create=create, readonly=True)
    assert not (tmp_path / "none.db").exists()


def test_readonly_engine_reads_what_a_live_writer_has_not_yet_checkpointed(stored):
    writer = make_engine(str(stored))
    with writer.begin() as c:  # the writer's WAL holds a change the main file does not
        c.execute(text("UPDATE sessions SET outcome = 'live' WHERE id = 2"))
    reader = make_engine(str(stored), create=False, readonly=True)
    with reader.connect() as c:
        assert c.execute(text("SELECT outcome FROM sessions WHERE id = 2")).scalar() == "live"
    reader.dispose()
    writer.dispose()


@pytest.mark.parametrize("name", ["../../escaped", "<b>x</b>", "a/b", ""])
def test_stored_contract_name_never_becomes_a_path(stored, toy_contract, tmp_path, name):
    import sqlite3

    with sqlite3.connect(stored) as c:
        c.execute("UPDATE contracts SET name = ?", (name,))
    client = client_of(stored)
    assert client.get("/").status_code == 200
    r = client.get(f"/t/{toy_contract.sha256}")
    assert r.status_code == 200 and "cannot be loaded" not in r.text
    assert not list(Path("/tmp").glob("escaped.toml")) and not (tmp_path / "escaped.toml").exists()


def test_a_store_from_before_chain_format_3_is_served_without_being_changed(tmp_path, toy_contract):
    import shutil

    (tmp_path / "old").mkdir()
    db = tmp_path / "old" / "old.db"
    shutil.copy(Path(__file__).parents[1] / "adversarial" / "data" / "format2.db", db)
    before = tree(db.parent)
    client = client_of(db)
    for path in pages(client, toy_contract.sha256):
        assert client.get(path).status_code == 200, path
    assert tree(db.parent) == before
