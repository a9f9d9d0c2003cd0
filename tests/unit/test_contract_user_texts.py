"""A user contract cannot rename what a target rests on: required obligations keep the target's texts,
theorem class maxima stay, and every other text the user wrote is shown marked as the user's."""

from __future__ import annotations

import json
import re

import pytest

from mathloop.contract import ContractError
from mathloop.targets import load_contract
from mathloop.targets.catalogue import USER_MARK
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.cli import invoke
from tests.support.contracts import shipped

RH_TITLE = 'title = "ASSUMED: the Riemann Hypothesis"'


def _user(tmp_path, name: str, edit) -> str:
    path = tmp_path / f"{name}-mine.toml"
    text = shipped(name).read_text(encoding="utf-8")
    edited = edit(text)
    assert edited != text, "the edit changed nothing"
    path.write_text(edited, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("name", ["pair-correlation-rh", "pair-correlation-rh-ceiling"])
def test_retitling_the_rh_hypothesis_as_proved_is_overridden_by_the_targets_title(tmp_path, name):
    path = _user(tmp_path, name, lambda t: t.replace(RH_TITLE, 'title = "PROVED: the Riemann Hypothesis"', 1))
    c = load_contract(path)
    assert c.obligation("riemann-hypothesis").title == "ASSUMED: the Riemann Hypothesis"
    assert c.sha256 != load_contract(name).sha256  # still the user's own lineage
    db = str(tmp_path / "s.db")
    Repository(make_engine(db))
    graph = invoke("graph", "--contract", path, "--db", db)
    assert graph.exit_code == 0 and "PROVED: the Riemann" not in graph.output and "ASSUMED: the Riemann" in graph.output


def test_a_required_obligations_statement_and_citation_come_from_the_target(tmp_path):
    shipped_rh = load_contract("pair-correlation-rh").obligation("riemann-hypothesis")
    statement = "ASSUMED, unproven: every nontrivial zero of zeta has real part 1/2."
    path = _user(tmp_path, "pair-correlation-rh", lambda t: t.replace(statement, "PROVED in 2026.", 1))
    assert load_contract(path).obligation("riemann-hypothesis") == shipped_rh
    path = _user(tmp_path, "pair-correlation-rh", lambda t: t.replace('citation = "B. Riemann', 'citation = "Me', 1))
    assert load_contract(path).obligation("riemann-hypothesis") == shipped_rh


def test_a_theorems_basis_text_is_the_targets(tmp_path):
    path = _user(tmp_path, "pair-correlation-rh-ceiling", lambda t: t.replace(
        'class_maximum_basis = "theorem:', 'class_maximum_basis = "numerical optimum: mine;', 1))
    spec = load_contract(path).bound_spec("ceiling")
    assert spec == load_contract("pair-correlation-rh-ceiling").bound_spec("ceiling") and spec.class_maximum_is_theorem


@pytest.mark.parametrize("edit", [
    lambda t: t.replace('class_maximum = "2/3"', 'class_maximum = "0"', 1),
    lambda t: t.replace('class_maximum = "2/3"', 'class_maximum = "2"', 1),
    lambda t: re.sub(r'(?m)^class_maximum(_basis)? = .*\n', "", t),
], ids=["zero", "two", "removed"])
def test_the_ceilings_theorem_class_maximum_cannot_be_changed(tmp_path, edit):
    path = _user(tmp_path, "pair-correlation-rh-ceiling", edit)
    with pytest.raises(ContractError) as e:
        load_contract(path)
    assert e.value.key == "obligations.ceiling-bound.bound.class_maximum"
    assert e.value.reason == "the class maximum of bound 'ceiling' is a theorem: it stays 2/3"


def test_a_numerical_optimum_class_maximum_may_move_within_its_floor(tmp_path):
    lowered = _user(tmp_path, "levinson-conrey", lambda t: t.replace('class_maximum = "0.408960"', 'class_maximum = "0.5"', 1))
    assert str(load_contract(lowered).bound_spec("kappa").class_maximum) == "1/2"
    beyond = _user(tmp_path, "levinson-conrey", lambda t: t.replace('class_maximum = "0.408960"', 'class_maximum = "3/2"', 1))
    with pytest.raises(ContractError, match="above the target's ceiling 1"):
        load_contract(beyond)


def test_every_text_the_user_wrote_is_marked_and_the_targets_texts_are_not(tmp_path):
    extra = '\n[[obligations]]\nid = "my-check"\nkind = "check"\ntitle = "PROVED: everything"\n' \
            'statement = "Mine."\ndepends_on = ["mass-positive"]\nchecker = "mass"\n'

    def edit(t: str) -> str:
        t = t.replace('title = "Pair correlation ASSUMING RH', 'title = "My pair correlation ASSUMING RH', 1)
        return t.replace("\n[seed]", extra + "\n[seed]", 1)

    c = load_contract(_user(tmp_path, "pair-correlation-rh", edit))
    assert c.title.startswith(USER_MARK + "My pair correlation") and c.statement.startswith(USER_MARK)
    mine = c.obligation("my-check")
    assert mine.title == USER_MARK + "PROVED: everything" and mine.statement == USER_MARK + "Mine."
    assert c.obligation("riemann-hypothesis").title == "ASSUMED: the Riemann Hypothesis"
    make_engine(str(tmp_path / "g.db")).dispose()  # graph reads an existing store, never creates one
    graph = invoke("graph", "--contract", str(c.path), "--db", str(tmp_path / "g.db"))
    assert graph.exit_code == 0 and USER_MARK.strip() in graph.output


def test_an_unchanged_copy_of_a_shipped_contract_has_no_user_marks(tmp_path):
    path = _user(tmp_path, "pair-correlation-rh", lambda t: t + "\n# my comment\n")
    c = load_contract(path)
    assert c.source == "file" and c.sha256 == load_contract("pair-correlation-rh").sha256
    assert USER_MARK not in json.dumps([c.title, c.statement, *[(o.title, o.statement) for o in c.obligations]])
