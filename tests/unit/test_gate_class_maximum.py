"""A certified bound beyond a class maximum never commits; the label says which kind of maximum it passed.

A class maximum stated as a theorem (or not stated) is a value no valid certificate can exceed: passing it is a
checker bug, label `error`. A class maximum that is a numerical optimum is a designed cap (feng-przz holds its
bound at PRZZ's record while PRZZ's mean-value theorem is unread): a certificate above it is refused by the
contract, a value and not a crash — the bound is not counted, so the label is `regression` (or `incomparable`),
and the reason names the cap and its basis, never "a checker bug".
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from mathloop.check.gate import decide
from mathloop.domain import Label, Scores
from mathloop.targets import build_target, load_contract
from tests.support.contracts import shipped

SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}
BETTER = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}  # kappa 0.389858306972 against the seed's 0.386839251075
SHIPPED_BASIS = 'class_maximum_basis = "numerical optimum: the local optimiser'


def _variant(tmp_path, basis: str | None):
    """levinson-conrey with its class maximum lowered to 0.388 (between the seed's kappa and BETTER's)."""
    text = shipped("levinson-conrey").read_text(encoding="utf-8").replace('class_maximum = "0.408960"',
                                                                            'class_maximum = "0.388"')
    if basis is not None:
        assert SHIPPED_BASIS in text
        text = text.replace(SHIPPED_BASIS, f'class_maximum_basis = "{basis}; was: the local optimiser')
    path = tmp_path / "levinson-conrey.toml"
    path.write_text(text, encoding="utf-8")
    return load_contract(path)


def _judge(contract, payload, head=None):
    t = build_target(contract)
    return decide(contract, head, t.check(None, t.parse(payload)))


def test_a_certificate_above_a_numerical_optimum_cap_is_refused_as_a_value_not_an_error(tmp_path):
    contract = _variant(tmp_path, None)  # the shipped basis: a numerical optimum
    seed_ev = build_target(contract).check(None, build_target(contract).parse(SEED))
    d = _judge(contract, BETTER, Scores.of(seed_ev))
    assert d.label is Label.REGRESSION and not d.commits and d.capped
    assert d.reasons[0] == ("kappa: certified 0.389858306972 is above the contract's cap 0.388 (class maximum, a "
                            "numerical optimum, not a theorem: the local optimiser's supremum of this functional at "
                            "θ = 4/7 (degrees ≤ 12/11)): not counted — refused by the contract, not a checker fault; "
                            "raising the cap is a contract change (a new lineage)")
    assert "checker bug" not in " ".join(d.reasons) and "worse than the head" not in " ".join(d.reasons)


def test_above_a_cap_at_the_root_never_commits(tmp_path):
    d = _judge(_variant(tmp_path, None), BETTER)
    assert not d.commits and d.label is Label.INCOMPARABLE and d.capped


def test_a_certificate_above_a_theorem_class_maximum_is_a_checker_error(tmp_path):
    d = _judge(_variant(tmp_path, "theorem: stand-in for a proved maximum"), BETTER)
    assert d.label is Label.ERROR and not d.commits and not d.capped
    assert "is beyond the class maximum 0.388000000000, a theorem" in d.reasons[0] and "checker bug" in d.reasons[0]


def test_a_certificate_at_or_below_the_cap_commits(tmp_path):
    d = _judge(_variant(tmp_path, None), SEED)
    assert d.commits and not d.capped


# --- feng-przz: the shipped cap is 0.417293963 (should prove at it / should refuse above it) ---------------

def _przz(R: str) -> dict:
    from mathloop.domain import fraction_str
    from mathloop.targets.feng_przz.printed import KAPPA

    p = KAPPA.with_q0_one()
    out = {f"P{i + 1}": [fraction_str(x) for x in P] for i, (_, P) in enumerate(p.pieces)}
    return {**out, "Q": [fraction_str(x) for x in p.Q], "R": R}


@pytest.mark.slow
def test_przz_polynomials_at_r_1_3035965_certify_0_417293962764_and_commit_under_the_cap():
    contract = load_contract("feng-przz")
    assert contract.bound_spec("kappa").class_maximum == F("0.417293963")
    t = build_target(contract)
    ev = t.check(None, t.parse(_przz("13035965/10000000")))
    assert ev.bounds["kappa"] == F("0.417293962764")  # above PRZZ's printed 0.417293962, at the cap's 9 digits
    d = decide(contract, None, ev)
    assert d.commits and not d.capped


@pytest.mark.slow
def test_przz_polynomials_above_the_cap_are_refused_naming_the_cap_and_przz_record():
    contract = load_contract("feng-przz")
    t = build_target(contract)
    ev = t.check(None, t.parse(_przz("13020/10000")))
    assert ev.bounds["kappa"] == F("0.41729423233")
    d = decide(contract, None, ev)
    assert d.label is not Label.ERROR and not d.commits and d.capped
    assert "above the contract's cap 0.417293963" in d.reasons[0] and "PRZZ's record" in d.reasons[0]
    assert "checker bug" not in " ".join(d.reasons)
