"""What every bound rests on is said one way on every surface: "rests on (taken as given): ..." from one formatter.

A contract without hypotheses (shannon-capacity-c7) says "nothing beyond the definitions" everywhere — not an
empty field in one view, "none" in another and nothing at all in a third.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mathloop.cli.app import app
from mathloop.targets import load_contract

PREFIX = "rests on (taken as given): "


def _cli(*args: str) -> str:
    res = CliRunner().invoke(app, list(args), env={"COLUMNS": "400", "NO_COLOR": "1"}, catch_exceptions=False)
    assert res.exit_code in (0, 3), res.output
    return " ".join(res.output.split())  # one line: wrapping is not wording


def test_a_contract_without_hypotheses_rests_on_the_definitions_only():
    assert load_contract("shannon-capacity-c7").rests_on() == "nothing beyond the definitions"
    c = load_contract("levinson-conrey")
    assert c.rests_on() == "; ".join(h.title for h in c.hypotheses)


@pytest.fixture(scope="module", params=["shannon-capacity-c7", "levinson-conrey"])
def store(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("given")
    db = str(tmp / "m.db")
    out = _cli("run", request.param, "--db", db, "--budget", "1", "--no-lean", "--no-progress")
    return request.param, db, tmp, out


def test_every_cli_surface_says_it_the_same_way(store):
    name, db, tmp, run_out = store
    text = PREFIX + load_contract(name).rests_on()
    candidate = tmp / "c.json"
    candidate.write_text(json.dumps(dict(load_contract(name).seed)), encoding="utf-8")
    surfaces = {"run": run_out, "status": _cli("status", name, "--db", db), "log": _cli("log", name, "--db", db),
                "check": _cli("check", name, "--candidate", str(candidate)), "targets": _cli("targets")}
    for surface, out in surfaces.items():
        assert text in out, f"{surface}: {out[-600:]}"
        assert text + "yellow" not in out, f"{surface} prints a style name as text"  # Text.assemble(str, "yellow")


def test_the_web_pages_and_graph_page_say_it_the_same_way(store):
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository
    from mathloop.view.graph_data import graph_view
    from mathloop.view.graph_page import graph_body
    from markupsafe import escape as esc
    from mathloop.web import pages

    name, db, _, _ = store
    contract = load_contract(name)
    assert esc(PREFIX + contract.rests_on()) in str(pages.rests_on(contract))
    body = str(graph_body(graph_view(contract, Repository(make_engine(db, create=False)))))
    assert esc(PREFIX + contract.rests_on(cite=True)) in body
