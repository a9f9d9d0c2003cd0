"""The bracket's history in one store: every commit that moved a side, the bracket and its width after it."""

import json
from fractions import Fraction as F

import pytest

from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.targets import load_contract
from mathloop.view.bracket_history import bracket_history
from tests.unit.test_bracket import Scripted

PRIMAL_SEED = F(101248, 149997)
CEILING_SEED = F(759, 1000)


def test_history_lists_each_move_with_the_bracket_after_it(repo):
    primal, ceiling = load_contract("pair-correlation-rh"), load_contract("pair-correlation-rh-ceiling")
    assert bracket_history(repo, primal) == ()
    Session(primal, repo, InProcessRunner()).ensure_root()
    Session(ceiling, repo, InProcessRunner()).ensure_root()
    lower = dict(ceiling.seed) | {"L": "1242/1000"}  # the seed's L raised by 1/1000: the ceiling moves down
    lower["nodes"] = [str(F(v) - F(1, 1000)) if i <= 5 else v for i, v in enumerate(ceiling.seed["nodes"])]
    Session(ceiling, repo, InProcessRunner()).run(Scripted([lower]), SessionLimits(1))
    steps = bracket_history(repo, ceiling)
    assert sorted(s.side for s in steps[:2]) == ["ceiling", "primal"] and steps[2].side == "ceiling"
    assert steps[-1].primal == PRIMAL_SEED and steps[-1].ceiling == F(758, 1000) and len(steps) == 3
    assert steps[-1].width == steps[-1].ceiling - PRIMAL_SEED
    assert all(a.ceiling is None or b.ceiling <= a.ceiling for a, b in zip(steps, steps[1:]))  # sides only improve
    assert bracket_history(repo, primal) == steps  # the same history from either lineage
    assert "width 0.08" in steps[-1].text() and "pair-correlation-rh-ceiling" in steps[-1].text()


def test_status_prints_the_history_and_json_carries_it(repo):
    from typer.testing import CliRunner

    from mathloop.cli.app import app
    from mathloop.lean import attest

    attest.ensure_table(repo.engine)  # status opens the store read-only (a run would have made this table)
    for name in ("pair-correlation-rh", "pair-correlation-rh-ceiling"):
        Session(load_contract(name), repo, InProcessRunner()).ensure_root()
    db = str(repo.engine.url.database)
    res = CliRunner().invoke(app, ["status", "pair-correlation-rh-ceiling", "--db", db, "--json"])
    hist = json.loads(res.output)["bracket_history"]
    assert len(hist) == 2 and hist[-1]["width"] == str(CEILING_SEED - PRIMAL_SEED)
    res = CliRunner().invoke(app, ["status", "pair-correlation-rh", "--db", db], env={"COLUMNS": "200"})
    assert "bracket history" in res.output and "width 0.0839998334" in res.output


@pytest.mark.slow
def test_the_plot_draws_the_bracket_width_over_time(repo):
    pytest.importorskip("matplotlib")
    from mathloop.view.history import history
    from mathloop.view.plots import history_svg

    for name in ("pair-correlation-rh", "pair-correlation-rh-ceiling"):
        Session(load_contract(name), repo, InProcessRunner()).ensure_root()
    h = history(load_contract("pair-correlation-rh-ceiling"), repo)
    assert len(h.bracket) == 2 and h.bracket[-1].width == CEILING_SEED - PRIMAL_SEED
    svg = history_svg(h)
    assert "bracket width" in svg and "width 8.4000e-02" in svg


def test_the_web_target_page_lists_the_bracket_history(repo):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from mathloop.lean import attest
    from mathloop.web.app import create_app

    attest.ensure_table(repo.engine)
    for name in ("pair-correlation-rh", "pair-correlation-rh-ceiling"):
        Session(load_contract(name), repo, InProcessRunner()).ensure_root()
    page = TestClient(create_app(repo, "test")).get(f"/t/{load_contract('pair-correlation-rh').sha256}").text
    assert 'id="bracket-history"' in page and "bracket history (2 moves)" in page and "width 0.0839998334" in page
