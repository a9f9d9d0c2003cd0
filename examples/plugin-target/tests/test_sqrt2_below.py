"""The example plug-in target, tested as any target should be: should-prove / should-refute pairs."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from mathloop.cli.app import app
from mathloop.contract import ContractError
from mathloop.targets import load_contract
from mathloop.domain import Verdict
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import Malformed


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract("sqrt2-below"))


def certify(target, x: str):
    return target.check(None, target.parse({"x": x}))


@pytest.mark.parametrize("below, above", [("7/5", "3/2"), ("1.41421356", "1.41421357"), ("0", "2")])
def test_certifies_below_sqrt2_and_refutes_just_above(target, below, above):
    good, bad = certify(target, below), certify(target, above)
    assert good.bounds == {"x": Fraction(below)} and good.result("square-below-two").verdict is Verdict.PROVED
    assert bad.bounds == {} and bad.result("square-below-two").verdict is Verdict.REFUTED


def test_a_negative_x_is_refuted_even_though_its_square_is_small(target):
    ev = certify(target, "-1")
    assert ev.result("nonnegative").verdict is Verdict.REFUTED and ev.bounds == {}


@pytest.mark.parametrize("payload, field", [({"x": 1.4}, "x"), ({"x": "1/0"}, "x"), ({}, "x"), ({"x": "1", "y": "2"}, "y")])
def test_refuses_malformed_payloads_naming_the_field(target, payload, field):
    with pytest.raises(Malformed, match=f"^{field}: "):
        target.parse(payload)


def test_schema_offered_to_models_comes_from_the_same_spec(target):
    schema = target.candidate_schema()
    assert schema["required"] == ["x"] and schema["additionalProperties"] is False


def test_class_maximum_is_a_theorem_and_the_gate_holds_it(target):
    cmax = target.contract.bound_spec("x").class_maximum
    assert cmax * cmax > 2  # no rational with x^2 <= 2 exceeds it
    assert decide(target.contract, None, certify(target, "1.4142135")).commits


def test_a_contract_without_the_square_check_is_refused(tmp_path):
    text = load_contract("sqrt2-below").text
    weak = text.replace('checker = "square"', 'checker = "nonnegative"')
    path = tmp_path / "weak.toml"
    path.write_text(weak, encoding="utf-8")
    with pytest.raises(ContractError, match="square-below-two"):
        load_contract(path)


def test_a_run_reaches_the_goal_through_mathloop(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "s.db")
    result = runner.invoke(app, ["run", "sqrt2-below", "--db", db, "--no-progress", "--no-lean"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    status = json.loads(runner.invoke(app, ["status", "sqrt2-below", "--db", db, "--json"]).output)
    x = Fraction(status["head"]["bounds_exact"]["x"])
    assert x * x <= 2 and x >= Fraction(141421356237, 10**11)
    assert runner.invoke(app, ["audit", "sqrt2-below", "--db", db]).exit_code == 0
