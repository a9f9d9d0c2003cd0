"""`mathloop graph --format html|svg|png|dot` on real stores: self-contained, escaped, statuses from evidence."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from mathloop.targets import load_contract
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.cli import invoke, mathloop
from tests.support.clz import small_contract

pytestmark = pytest.mark.slow  # real sessions and graphviz renders (~11 s); CI's second tier runs them


@pytest.fixture(scope="module")
def lc_store(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("lcg") / "lc.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "4", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return db


@pytest.fixture(scope="module")
def zeros_store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("zg")
    contract = small_contract(tmp)
    db = str(tmp / "z.db")
    proc = mathloop("run", str(contract), "--db", db, "--budget", "1", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return str(contract), db


def _attest(repo: Repository, contract_sha: str, commit: str, status: str) -> None:
    """Append a Lean attestation for a commit (as the Lean worker does after running a kernel)."""
    from mathloop.lean import attest

    attest.record(repo.engine, contract_sha, attest.Attestation(commit, status, kind="bundled"))


def _embedded(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_html_graph_is_one_self_contained_file_with_every_obligation(lc_store, tmp_path):
    out = tmp_path / "g.html"
    res = invoke("graph", "levinson-conrey", "--db", lc_store, "--format", "html", "-o", str(out))
    assert res.exit_code == 0, res.stdout
    html = out.read_text()
    # nothing is fetched: no scripts, styles, images or fonts from anywhere
    assert not re.search(r'\b(src|href)\s*=', html)
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    data = _embedded(html)
    contract = load_contract("levinson-conrey")
    assert {n["id"] for n in data["nodes"]} == {o.id for o in contract.obligations}
    by_id = {n["id"]: n for n in data["nodes"]}
    assert by_id["conrey-mean-value"]["status"] == "taken as given"
    assert "Conrey" in by_id["conrey-mean-value"]["citation"]
    assert by_id["q-symmetric"]["status"] == "discharged" and by_id["q-symmetric"]["trust"] == "exact"
    bound = by_id["kappa-bound"]["bound"]
    assert bound["value"].startswith("0.4") and bound["class_maximum"] == "0.408960000000"
    assert bound["class_maximum_basis"] == "numerical optimum"
    assert bound["lean_checked"] is (data["lean"] == "checked")  # only what a real kernel accepted (lean extra)
    assert data["commit"] and data["bounds"].startswith("kappa ≥ 0.4")
    assert not list(tmp_path.glob("*.partial"))


def test_lean_checked_only_when_the_store_says_a_real_lean_accepted_the_head(lc_store, tmp_path):
    repo = Repository(make_engine(lc_store))
    contract = load_contract("levinson-conrey")
    head = repo.head(contract.sha256)
    out = tmp_path / "g.html"
    reached_goal = head.ranks["kappa-bound"] == 0
    for status in (None, "checked", "refuted"):  # None: whatever `mathloop run`'s Lean worker recorded
        if status is not None:
            _attest(repo, contract.sha256, head.hash, status)
        assert invoke("graph", "levinson-conrey", "--db", lc_store, "-o", str(out)).exit_code == 0
        data = _embedded(out.read_text())
        lean = data["lean"]
        assert lean == status if status else lean in ("checked", "pending", "unavailable", "not_rendered")
        by_id = {n["id"]: n for n in data["nodes"]}
        expect = "Lean-checked" if lean == "checked" and reached_goal else ("discharged" if reached_goal else "open")
        assert by_id["kappa-bound"]["status"] == expect, lean
        assert by_id["kappa-bound"]["bound"]["lean_checked"] is (lean == "checked")
        assert by_id["closed-form"]["status"] == "discharged"  # the Lean file certifies the bound, not every check


def test_zeros_block_family_is_one_node_with_its_discharged_range(zeros_store, tmp_path):
    contract, db = zeros_store
    out = tmp_path / "z.html"
    assert invoke("graph", contract, "--db", db, "-o", str(out)).exit_code == 0
    blocks = {n["id"]: n for n in _embedded(out.read_text())["nodes"]}["blocks"]
    assert blocks["detail"].startswith("discharged: Gram intervals [g_-1, g_")
    assert 0 < blocks["covered"] <= 1


@pytest.mark.parametrize("fmt,magic", [("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_svg_and_png_are_drawn_without_graphviz(lc_store, tmp_path, monkeypatch, fmt, magic):
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "dot" else real_which(name, *a, **k))
    out = tmp_path / f"g.{fmt}"
    res = invoke("graph", "levinson-conrey", "--db", lc_store, "-o", str(out))
    assert res.exit_code == 0, res.stdout
    head = out.read_bytes()[:200]
    assert head.startswith(magic) or (fmt == "svg" and b"<svg" in head)
    if fmt == "svg":
        assert "kappa-bound" in out.read_text()


def test_dot_output_is_unchanged_and_bad_format_is_refused(lc_store, tmp_path):
    dot = tmp_path / "g.dot"
    assert invoke("graph", "levinson-conrey", "--db", lc_store, "-o", str(dot)).exit_code == 0
    assert dot.read_text().startswith('digraph "levinson-conrey"')
    res = invoke("graph", "levinson-conrey", "--db", lc_store, "--format", "pdf", "-o", str(tmp_path / "g.pdf"))
    assert res.exit_code == 2 and "unknown format" in res.output
    res = invoke("graph", "levinson-conrey", "--db", lc_store, "-o", str(tmp_path / "missing" / "g.html"))
    assert res.exit_code == 2 and "does not exist" in res.output
    assert not (tmp_path / "g.pdf").exists()


def test_graph_at_an_older_commit_shows_that_commits_state(lc_store, tmp_path):
    contract = load_contract("levinson-conrey")
    root = Repository(make_engine(lc_store)).commits(contract.sha256)[0]
    out = tmp_path / "root.html"
    assert invoke("graph", "levinson-conrey", "--db", lc_store, "--commit", root.hash, "-o", str(out)).exit_code == 0
    data = _embedded(out.read_text())
    assert data["commit"] == root.hash and data["seq"] == 0
    assert {n["id"]: n for n in data["nodes"]}["kappa-bound"]["bound"]["value"] == "0.386839251075"  # the seed
    res = invoke("graph", "levinson-conrey", "--db", lc_store, "--commit", "f" * 64)
    assert res.exit_code == 2 and "no such commit" in res.output


def test_a_paired_lineage_shows_the_certified_bracket_and_its_partner_line(tmp_path):
    from mathloop.search.loop import Session, SessionLimits
    from mathloop.check.runner import InProcessRunner
    from mathloop.targets import build_target
    from mathloop.view.history import history

    db = str(tmp_path / "pair.db")
    repo = Repository(make_engine(db))
    for name in ("pair-correlation-rh", "pair-correlation-rh-ceiling"):
        c = load_contract(name)
        Session(c, repo, InProcessRunner()).run(build_target(c).local_proposer(seed=0), SessionLimits(budget=1))
    out = tmp_path / "p.html"
    assert invoke("graph", "pair-correlation-rh", "--db", db, "-o", str(out)).exit_code == 0
    data = _embedded(out.read_text())
    assert data["bracket"].startswith("[0.67") and "width" in data["bracket"]
    assert 'id="bracket"' in out.read_text()
    primal = load_contract("pair-correlation-rh")
    partner = [r for r in history(primal, repo).references["proportion"] if r.kind == "partner"]
    ceiling = repo.head(load_contract("pair-correlation-rh-ceiling").sha256).bounds["ceiling"]
    assert [r.value for r in partner] == [ceiling] and "pair-correlation-rh-ceiling" in partner[0].label
