"""The README tour as a new user meets it: every line ends in something to read or something to do next.

(a) a session that ends because the proposer has nothing left says why (the head at its class maximum) and what
to try; (b) `check --example` gives a candidate file, so the tour's `check --candidate c.json` works as written;
(c) the counts are explained where they are shown; (d) `--db` naming a directory says so; (e) a read-only store
audits; (h) the web view takes a unique hash prefix and says when one is unknown or ambiguous.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathloop.cli.app import app
from mathloop.targets import load_contract

ENV = {"COLUMNS": "200", "NO_COLOR": "1"}


def _cli(*args: str, cwd: Path | None = None):
    old = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return CliRunner().invoke(app, list(args), env=ENV, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    db = str(tmp_path_factory.mktemp("tour") / "mathloop.db")
    res = _cli("run", "levinson-conrey", "--db", db, "--budget", "4", "--no-lean", "--no-progress")
    assert res.exit_code == 0, res.output
    return db


# (b) ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["levinson-conrey", "pair-correlation-rh", "shannon-capacity-c7", "feng-przz"])
def test_check_example_prints_a_candidate_that_check_certifies(name, tmp_path):
    res = _cli("check", name, "--example")
    assert res.exit_code == 0, res.output
    (tmp_path / "c.json").write_text(res.stdout, encoding="utf-8")
    assert json.loads(res.stdout) == dict(load_contract(name).seed)  # the contract's own verified seed
    checked = _cli("check", name, "--candidate", "c.json", cwd=tmp_path)
    assert checked.exit_code == 0 and "certified" in checked.output, checked.output


def test_check_needs_a_candidate_or_example():
    res = _cli("check", "levinson-conrey")
    assert res.exit_code == 2 and "--candidate" in res.output and "--example" in res.output


# (c) ------------------------------------------------------------------------------------------------------------

def test_run_and_status_explain_their_counts(store):
    out = " ".join(_cli("status", "levinson-conrey", "--db", store).output.split())
    for words in ("root included", "progress: committed, something still open"):  # each label shown is explained
        assert words in out, out
    run = " ".join(_cli("run", "levinson-conrey", "--db", store, "--budget", "1", "--no-lean",
                        "--no-progress").output.split())
    assert "this session's commits; the lineage's count includes its root" in run, run
    assert "progress: committed, something still open" in run


# (d) ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [("status",), ("log",), ("audit",), ("run", "--budget", "1", "--no-lean"),
                                     ("graph",), ("export", "--records", "r.jsonl")])
def test_db_naming_a_directory_says_it_is_a_directory(tmp_path, command):
    res = _cli(command[0], "levinson-conrey", "--db", str(tmp_path), *command[1:], cwd=tmp_path)
    assert res.exit_code == 2, res.output
    assert f"--db {tmp_path}: is a directory, not a store file" in " ".join(res.output.split())


# (e) ------------------------------------------------------------------------------------------------------------

def _copy(store: str, to: Path) -> None:
    """Copy a (WAL) store into one consistent file, as a user copies a store they were given."""
    import sqlite3

    with sqlite3.connect(store) as src, sqlite3.connect(to) as dst:
        src.backup(dst)
    sqlite3.connect(to).close()

@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files anyway; the engine's read-only mode is "
                    "tested below by making every write fail")
def test_a_read_only_store_audits(store, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    db = ro / "m.db"
    _copy(store, db)
    db.chmod(stat.S_IRUSR)
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        res = _cli("audit", "levinson-conrey", "--db", str(db))
        assert res.exit_code == 0 and "audit ok" in res.output, res.output
    finally:
        ro.chmod(stat.S_IRWXU)


def test_audit_opens_the_store_read_only_and_writes_nothing(store, tmp_path):
    copy = tmp_path / "m.db"
    _copy(store, copy)
    before = copy.read_bytes()
    res = _cli("audit", "levinson-conrey", "--db", str(copy))
    assert res.exit_code == 0 and "audit ok" in res.output, res.output
    assert copy.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["m.db"]


# (a) ------------------------------------------------------------------------------------------------------------

def test_an_exhausted_proposer_at_the_class_maximum_says_so_and_what_to_try():
    from fractions import Fraction

    from mathloop.cli.session_notes import exhausted_hint

    contract = load_contract("levinson-conrey")
    near = exhausted_hint(contract, {"kappa": Fraction("0.408959323553")})
    assert "kappa 0.408959323553 is 6.8·10⁻⁷ below its class maximum 0.40896 (a numerical optimum)" in near
    assert "mathloop run feng-przz" in near and "--proposer openai" in near
    far = exhausted_hint(contract, {"kappa": Fraction("0.39")})
    assert "nothing more to try from this head" in far and "--seed" in far


@pytest.mark.slow  # a levinson-conrey session to its end (~10 s), then a second one
def test_a_second_run_at_the_class_maximum_ends_with_the_hint(tmp_path):
    db = str(tmp_path / "m.db")
    first = _cli("run", "levinson-conrey", "--db", db, "--no-lean", "--no-progress", "--time-limit", "120")
    assert first.exit_code == 0 and "proposer exhausted" in first.output
    second = " ".join(_cli("run", "levinson-conrey", "--db", db, "--no-lean", "--no-progress", "--time-limit",
                           "120").output.split())
    assert "proposer exhausted" in second and "below its class maximum 0.40896" in second, second


# (h) ------------------------------------------------------------------------------------------------------------

def _client(db: str):
    from starlette.testclient import TestClient

    from mathloop.store.repository import Repository
    from mathloop.web.app import create_app
    from mathloop.web.readonly import readonly_engine

    return TestClient(create_app(Repository(readonly_engine(db)), db))


def test_serve_takes_a_unique_hash_prefix_and_says_what_is_wrong_with_others(store):
    pytest.importorskip("starlette")
    sha = load_contract("levinson-conrey").sha256
    commits = json.loads(_cli("log", "levinson-conrey", "--db", store, "--json").output)
    full = commits[-1]["commit"]
    with _client(store) as web:
        assert web.get(f"/commit/{full[:8]}").status_code == 200
        assert full in web.get(f"/commit/{full[:10]}").text
        page = web.get(f"/t/{sha[:12]}")
        assert page.status_code == 200 and sha in page.text
        assert web.get(f"/t/{sha[:12]}/graph?commit={full[:12]}").status_code == 200
        short = web.get(f"/commit/{full[:6]}")
        assert short.status_code == 404 and "at least 8 hex digits" in short.text
        unknown = web.get("/commit/" + ("0" * 8 if not full.startswith("0" * 8) else "f" * 8))
        assert unknown.status_code == 404 and "no commit starts with" in unknown.text
        first = {c["commit"][:1] for c in commits}
        assert first  # an ambiguous prefix needs two commits sharing 8 digits: made up by the resolver's test below


def test_an_ambiguous_prefix_lists_the_matches(store, tmp_path):
    from mathloop.store.engine import make_engine
    from mathloop.store.prefixes import resolve
    from mathloop.store.models import CommitRow
    from mathloop.store.repository import Repository

    repo = Repository(make_engine(store, create=False))
    hashes = [c.hash for c in repo.commits(load_contract("levinson-conrey").sha256)]
    got = resolve(repo.engine, CommitRow.hash, hashes[0][:8])
    assert got.full == hashes[0] and got.problem is None
    amb = resolve(repo.engine, CommitRow.hash, "", min_digits=0)  # every commit matches the empty prefix
    assert amb.full is None and "ambiguous" in amb.problem and len(amb.matches) >= 2
