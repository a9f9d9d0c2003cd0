"""Contract loading: valid files load with a stable hash; every kind of bad file names file, key and reason."""

import pytest

from mathloop.contract import ContractError
from mathloop.targets import load_contract
from tests.support.toy_target import TOY_CONTRACT


def write(tmp_path, text, name="toy.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_valid_contract_loads_with_dag_and_hash(tmp_path, toy_registered):
    c = load_contract(write(tmp_path, TOY_CONTRACT))
    assert c.name == "toy" and c.target == "toy" and len(c.sha256) == 64
    assert [h.id for h in c.hypotheses] == ["axiom-of-toys"]
    assert c.graph().has_edge("in-range", "value-bound")
    assert [h.id for h in c.hypotheses_for("value-bound")] == ["axiom-of-toys"]


def test_hash_ignores_comments_and_layout_but_not_content(tmp_path, toy_registered):
    a = load_contract(write(tmp_path, TOY_CONTRACT, "a.toml")).sha256
    b = load_contract(write(tmp_path, "# a comment\n" + TOY_CONTRACT, "b.toml")).sha256
    c = load_contract(write(tmp_path, TOY_CONTRACT.replace('min_improvement = "1/100"', 'min_improvement = "1/1000"'), "c.toml")).sha256
    assert a == b and a != c


@pytest.mark.parametrize(
    "edit, key, reason",
    [
        (lambda t: t + "\n[surprise]\nx = 1\n", "surprise", "unknown top-level key"),
        (lambda t: t.replace('title = "0 <= x <= 1"', 'title = "0 <= x <= 1"\ncolour = "red"'), "obligations.in-range.colour", "unknown key"),
        (lambda t: t.replace('statement = "x lies in the unit interval."\n', ""), "obligations.in-range.statement", "non-empty string"),
        (lambda t: t.replace('depends_on = ["x-input"]', 'depends_on = ["value-bound"]'), "obligations", "dependency cycle"),
        (lambda t: t.replace('depends_on = ["x-input"]', 'depends_on = ["nowhere"]'), "obligations.in-range.depends_on", "unknown obligation"),
        (lambda t: t.replace('checker = "exact"\n\n[[obligations]]\nid = "value-bound"', 'checker = "oracle"\n\n[[obligations]]\nid = "value-bound"'), "obligations.in-range.checker", "unknown checker"),
        (lambda t: t.replace('citation = "Folklore (1900)"\n', ""), "obligations.axiom-of-toys.citation", "non-empty string"),
        (lambda t: t.replace('min_improvement = "1/100"', 'min_improvement = "zero"'), "obligations.value-bound.bound.min_improvement", "not a rational"),
        (lambda t: t.replace('min_improvement = "1/100"', 'min_improvement = "0"'), "obligations.value-bound.bound.min_improvement", "must be > 0"),
        (lambda t: t.replace('direction = "maximize"', 'direction = "up"'), "obligations.value-bound.bound.direction", "maximize"),
        (lambda t: t.replace('implementation = "toy"', 'implementation = "nonesuch"'), "target.implementation", "unknown implementation"),
        (lambda t: t.replace('[seed]\nx = "1/10"\n', ""), "seed", "missing"),
        (lambda t: t.replace("[[obligations]]", "[[obligations]]\n", 1).replace('id = "x-input"', 'id = "in-range"'), "obligations.in-range", "duplicate id"),
        (lambda t: t.replace("[target]", "[target", 1), "<toml>", "not valid TOML"),
    ],
)
def test_malformed_contract_is_refused_naming_file_key_and_reason(tmp_path, toy_registered, edit, key, reason):
    path = write(tmp_path, edit(TOY_CONTRACT))
    with pytest.raises(ContractError) as e:
        load_contract(path)
    assert e.value.key == key
    assert reason in e.value.reason
    assert str(path) in str(e.value)


def test_unknown_target_name_lists_the_shipped_ones():
    from mathloop.targets import shipped_contracts

    with pytest.raises(ContractError, match="unknown target 'nope' \\(known: ") as e:
        load_contract("nope")
    known = str(e.value).split("(known: ")[1].rstrip(")").split(", ")
    assert known == sorted({c.name for c in shipped_contracts()}) and "levinson-conrey" in known
