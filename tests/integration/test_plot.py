"""`mathloop plot`: the certified bound history of a real store as PNG/SVG, with reference lines and sessions."""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathloop.targets import load_contract
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.view.history import history
from tests.integration.cli import invoke, mathloop

pytestmark = pytest.mark.slow  # a real session per module (~10 s): CI's second tier runs it


@pytest.fixture(scope="module")
def lc_store(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("lcp") / "lc.db")
    for budget in ("3", "1"):  # two sessions
        proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", budget, "--no-progress")
        assert proc.returncode == 0, proc.stderr
    return db


def test_history_has_every_commit_the_reference_lines_and_each_session(lc_store):
    contract = load_contract("levinson-conrey")
    repo = Repository(make_engine(lc_store))
    h = history(contract, repo)
    commits = repo.commits(contract.sha256)
    assert [p.seq for p in h.bounds["kappa"]] == [c.seq for c in commits]
    assert [p.value for p in h.bounds["kappa"]] == [c.bounds["kappa"] for c in commits]  # exact, not floats
    refs = {r.kind: r for r in h.references["kappa"]}
    assert refs["class maximum"].value == Fraction("0.408960") and "numerical optimum" in refs["class maximum"].label
    assert refs["goal"].value == Fraction("0.4088")
    assert len(h.sessions) == 2
    assert sum(sum(s.labels.values()) for s in h.sessions) == sum(repo.label_counts(contract.sha256).values())


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_plot_writes_a_picture(lc_store, tmp_path, suffix, magic):
    out = tmp_path / f"h{suffix}"
    res = invoke("plot", "levinson-conrey", "--db", lc_store, "-o", str(out))
    assert res.exit_code == 0, res.output
    assert out.read_bytes().startswith(magic)
    if suffix == ".svg":
        text = out.read_text()
        assert "labels per session" in text and "class maximum (numerical optimum)" in text


def test_plot_refuses_bad_output_and_missing_store(lc_store, tmp_path):
    res = invoke("plot", "levinson-conrey", "--db", lc_store, "-o", str(tmp_path / "h.pdf"))
    assert res.exit_code == 2 and "unknown picture format" in res.output
    res = invoke("plot", "levinson-conrey", "--db", str(tmp_path / "none.db"), "-o", str(tmp_path / "h.png"))
    assert res.exit_code == 2 and "no store there" in res.output
    assert not list(tmp_path.iterdir())


def test_text_from_the_store_is_drawn_literally_and_escaped(tmp_path):
    from mathloop.view.plots import history_svg

    contract = load_contract("levinson-conrey")
    repo = Repository(make_engine(str(tmp_path / "x.db")))
    repo.ensure_contract(contract)
    repo.start_session(contract.sha256, 'openai:$\\frac{1}{0}$<script>alert(1)</script>', 0, {})
    svg = history_svg(history(contract, repo))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
