"""Contract validation (pydantic models in contract/schema.py) keeps every "file: key: reason" message."""

import re

import pytest

from mathloop.contract import ContractError
from mathloop.targets import load_contract
from tests.support.toy_target import TOY_CONTRACT


@pytest.mark.parametrize("edit, key, reason", [
    (lambda t: t.replace('kind = "check"', 'kind = "check"\nbound = 1', 1), "obligations.in-range.bound",
     "only bound obligations carry a bound (kind is check)"),
    (lambda t: re.sub(r'\n\[obligations\.bound\][^\[]*', '\n', t, count=1), "obligations.value-bound.bound",
     "a bound obligation needs a [bound] table"),
    (lambda t: t.replace("digits = 6", "digits = 99", 1),
     "obligations.value-bound.bound.digits", "must be an integer in [0, 60]"),
    (lambda t: t.replace("[obligations.bound]", '[obligations.bound]\nclass_maximum_basis = "because"', 1),
     "obligations.value-bound.bound.class_maximum_basis", "must start with 'theorem' or 'numerical optimum'"),
    (lambda t: t.replace('class_maximum = "1"', 'class_maximum_basis = "theorem: x"', 1),
     "obligations.value-bound.bound.class_maximum_basis", "given without a class_maximum"),
    (lambda t: re.sub(r"(?m)^name = .*$", "", t, count=1), "obligations.value-bound.bound.name", "missing"),
    (lambda t: t.replace("[obligations.bound]", "[obligations.bound]\nbogus = 1", 1),
     "obligations.value-bound.bound.bogus", "unknown key"),
    (lambda t: t.replace('[[obligations]]\nid = "x-input"', '[[obligations]]\nid = 4\nidx = "x-input"', 1),
     "obligations[1].idx", "unknown key (allowed: bound, checker, citation"),
    (lambda t: t.replace('kind = "hypothesis"', 'kind = "hypothesis"\nchecker = "x"', 1),
     "obligations.axiom-of-toys.checker", "a hypothesis is taken as given and has no checker"),
    (lambda t: t.replace('kind = "check"', 'kind = "check"\nprotected = "yes"', 1), "obligations.in-range.protected",
     "must be true or false"),
    (lambda t: t.replace('depends_on = ["x-input"]', 'depends_on = "x-input"', 1), "obligations.in-range.depends_on",
     "must be a list of obligation ids"),
    (lambda t: t.replace("check_timeout_s = 5", "check_timeout_s = 0", 1), "limits.check_timeout_s",
     "must be a positive integer (at most 86400)"),
    (lambda t: t.replace("[target]", "[target]\nextra = 1", 1), "target.extra", "unknown key (allowed: implementation"),
    (lambda t: "parameters = 3\n" + t, "parameters", "must be a table"),
])
def test_each_bad_value_is_refused_with_its_key_and_reason(tmp_path, toy_registered, edit, key, reason):
    path = tmp_path / "toy.toml"
    text = edit(TOY_CONTRACT)
    assert text != TOY_CONTRACT
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ContractError) as e:
        load_contract(path)
    assert (e.value.key, e.value.reason[: len(reason)]) == (key, reason)
    assert str(e.value) == f"{path}: {key}: {e.value.reason}"
