"""The Levinson–Conrey target through its two contracts: references, should-prove/should-reject pairs."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from mathloop.targets import load_contract
from mathloop.contract.model import ContractError
from mathloop.domain import Label, Verdict
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import CheckerCrash, Malformed
from mathloop.targets.levinson_conrey import crosscheck as crosscheck_mod
from mathloop.targets.levinson_conrey.certificate import verify_certificate
from mathloop.targets.levinson_conrey.closed_form import closed_form
from tests.support.contracts import shipped

CONREY_RANGE = F(4, 7)  # theta_sup of the levinson-conrey contract (Conrey 1989)

SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}
# The local optimiser's degree-(5, 5) optimum at θ = 4/7 − 10^-9: κ ≈ 0.40895308906 ≥ Conrey's 0.4088.
CONREY_GOAL_CANDIDATE = {
    "P": ["0", "17002193169/20000000000", "-97915907/500000000000", "28682321197/200000000000",
          "-377848693/250000000000", "8185962151/1000000000000"],
    "Q": ["1", "-91511739397/125000000000", "-44676819473/250000000000", "-263871915969/125000000000",
          "41814628369/12500000000", "-41814628369/31250000000"],
    "R": "1291293359/1000000000",
}
ADMISSIBILITY = ("p-at-zero", "p-at-one", "q-at-zero", "q-symmetric", "r-positive", "theta-admissible")


@pytest.fixture(scope="module")
def conrey():
    return build_target(load_contract(shipped("levinson-conrey")))


@pytest.fixture(scope="module")
def levinson():
    return build_target(load_contract(shipped("levinson")))


def check(target, payload):
    return target.check(None, target.parse(payload))


def contract_variant(tmp_path, old: str, new: str, name="levinson-conrey"):
    text = shipped(name).read_text()
    assert old in text
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace(old, new))
    return path


# --- references (issue 2) ---------------------------------------------------------------------

def test_levinson_contract_certifies_the_seed_reference(levinson):
    ev = check(levinson, SEED)
    assert ev.bounds == {"kappa": F(342735254170, 10**12)}
    assert ev.artifacts["highprec"]["kappa"].startswith("0.3427352541702084852")
    assert verify_certificate(ev.artifacts["certificate"], CONREY_RANGE)


def test_conrey_contract_certifies_the_seed_reference(conrey):
    ev = check(conrey, SEED)
    assert ev.bounds == {"kappa": F(386839251075, 10**12)}
    assert ev.artifacts["highprec"]["kappa"].startswith("0.3868392510752201381")
    assert len(ev.artifacts["highprec"]["c"].replace(".", "")) >= 40
    cert = ev.artifacts["certificate"]
    assert cert["theta"] == "3999999993/7000000000" and cert["k0"] == "15473570043/40000000000"
    assert verify_certificate(cert, CONREY_RANGE)


def test_every_checked_obligation_gets_exactly_one_result(conrey):
    ev = check(conrey, SEED)
    assert [r.id for r in ev.results] == [o.id for o in conrey.contract.checked]
    assert all(r.rank == 0 for r in ev.results if r.id != "kappa-bound")


def test_kappa_bound_is_open_below_the_goal_and_discharged_at_it(conrey):
    seed = check(conrey, SEED).result("kappa-bound")
    assert (seed.verdict, seed.rank) == (Verdict.UNKNOWN, 1) and "below the goal" in seed.reasons[0]
    ev = check(conrey, CONREY_GOAL_CANDIDATE)
    assert ev.bounds["kappa"] >= F(4088, 10**4)
    assert ev.result("kappa-bound").verdict is Verdict.PROVED and ev.result("kappa-bound").rank == 0
    assert ev.bounds["kappa"] <= conrey.contract.bound_spec("kappa").class_maximum


def test_evidence_state_is_the_canonical_candidate(conrey):
    ev = check(conrey, {"P": ["0", "1", "0"], "Q": ["1", "-1"], "R": "1.3"})
    assert ev.state == SEED


def test_evidence_is_byte_identical_on_recheck(conrey):
    first = check(conrey, CONREY_GOAL_CANDIDATE).canonical_bytes()
    again = build_target(load_contract(shipped("levinson-conrey")))
    assert check(again, CONREY_GOAL_CANDIDATE).canonical_bytes() == first
    assert check(conrey, CONREY_GOAL_CANDIDATE).canonical_bytes() == first


# --- should-prove / should-reject pairs --------------------------------------------------------

def refused(ev, obligation):
    r = ev.result(obligation)
    return r.verdict is Verdict.REFUTED and r.rank == 1


def not_certified(ev):
    return (ev.bounds == {} and "certificate" not in ev.artifacts
            and ev.result("closed-form").verdict is Verdict.UNKNOWN
            and ev.result("kappa-bound").rank == 1
            and "not admissible" in ev.result("kappa-bound").reasons[0])


def test_non_symmetric_q_would_give_kappa_near_one_but_is_refused(conrey):
    # A Q fitted (without the symmetry) to minimise c at R = 2: the formula alone "proves" κ ≈ 0.96.
    q = ["1", "-4.998", "12.105", "-17.849", "16.318", "-8.448", "1.879"]
    cf = closed_form((F(0), F(1)), tuple(F(x) for x in q), F(2), conrey.settings.theta)
    with mpmath.workdps(40):
        c = mpmath.mpf(cf.a.numerator) / cf.a.denominator + mpmath.mpf(cf.b.numerator) / cf.b.denominator * mpmath.exp(4)
        assert 1 - mpmath.log(c) / 2 > 0.95
    ev = check(conrey, {"P": ["0", "1"], "Q": q, "R": "2"})
    assert refused(ev, "q-symmetric") and not_certified(ev)
    assert any(r.startswith("q-symmetric: Q(x)+Q(1-x) is not constant") for r in ev.reasons())
    assert check(conrey, {**SEED, "R": "2"}).bounds  # a symmetric Q at the same R is certified


@pytest.mark.parametrize("good, bad, obligation", [
    ({"P": ["0", "1"]}, {"P": ["1/10", "9/10"]}, "p-at-zero"),
    ({"P": ["0", "1/2", "1/2"]}, {"P": ["0", "2"]}, "p-at-one"),
    ({"Q": ["1", "-1"]}, {"Q": ["2", "-1"]}, "q-at-zero"),
    ({"Q": ["1", "-3", "3", "-2"]}, {"Q": ["1", "-3", "3", "-1"]}, "q-symmetric"),
    ({"R": "1/1000"}, {"R": "0"}, "r-positive"),
    ({"R": "1/1000"}, {"R": "-13/10"}, "r-positive"),
])
def test_admissibility_pairs(conrey, good, bad, obligation):
    ok = check(conrey, {**SEED, **good})
    assert ok.result(obligation).verdict is Verdict.PROVED and ok.bounds
    ev = check(conrey, {**SEED, **bad})
    assert refused(ev, obligation) and not_certified(ev)
    assert all(ev.result(o).verdict is Verdict.PROVED for o in ADMISSIBILITY if o != obligation)


def test_each_failed_condition_is_its_own_refusal(conrey):
    ev = check(conrey, {"P": ["1", "1"], "Q": ["2", "0", "1"], "R": "-1"})
    failed = {r.id for r in ev.results if r.verdict is Verdict.REFUTED}
    assert failed == {"p-at-zero", "p-at-one", "q-at-zero", "q-symmetric", "r-positive"}
    assert sum(r.rank for r in ev.results) == 7  # five refusals + closed-form + kappa-bound


def test_theta_comes_from_the_contract_and_must_be_admissible(tmp_path):
    path = contract_variant(tmp_path, 'theta = "3999999993/7000000000"', 'theta = "4/7"')
    t = build_target(load_contract(path))
    ev = check(t, SEED)
    assert refused(ev, "theta-admissible") and not_certified(ev)
    with pytest.raises(Malformed, match="^theta: unknown key"):
        t.parse({**SEED, "theta": "1/2"})


@pytest.mark.parametrize("payload, match", [
    ({**SEED, "P": ["0"] * 13 + ["1"]}, r"^P: 14 coefficients"),
    ({**SEED, "R": "10.5"}, r"^R: .* exceeds"),
    ({**SEED, "Q": ["1", "-1e999"]}, r"^Q\[1\]: exponent"),
    ({**SEED, "R": 1.3}, r"^R: must be a string"),
    ({"P": ["0", "1"], "Q": ["1", "-1"]}, r"^R: missing"),
])
def test_refuses_payloads_over_the_limits_or_malformed(conrey, payload, match):
    with pytest.raises(Malformed, match=match):
        conrey.parse(payload)


# --- checker bugs become CheckerCrash, never a bound --------------------------------------------

def test_a_value_above_the_class_maximum_is_refused_by_the_gate(tmp_path):
    # a numerical optimum is a designed cap: refused as a value (tests/unit/test_gate_class_maximum.py), never a commit
    t = build_target(load_contract(contract_variant(tmp_path, 'class_maximum = "0.408960"', 'class_maximum = "0.38"')))
    decision = decide(t.contract, None, check(t, SEED))
    assert decision.capped and not decision.commits and decision.label is not Label.ERROR
    assert "above the contract's cap 0.38 (class maximum, a numerical optimum" in decision.reasons[0]


def test_disagreeing_precisions_are_a_checker_crash(conrey, monkeypatch):
    real = crosscheck_mod._eval

    def skewed(a, b, R, dps):
        c, k = real(a, b, R, dps)
        return (c * (1 + mpmath.mpf(10) ** -20), k) if dps < 40 else (c, k)

    monkeypatch.setattr(crosscheck_mod, "_eval", skewed)
    with pytest.raises(CheckerCrash, match="disagree"):
        check(conrey, SEED)


def test_a_certificate_above_the_high_precision_kappa_is_a_checker_crash(conrey, monkeypatch):
    real = crosscheck_mod.crosscheck

    def lying(a, b, R, grid):
        hp = real(a, b, R, grid)
        return crosscheck_mod.HighPrec(hp.c, "0.3", hp.grid_floor, hp.dps)

    monkeypatch.setattr(crosscheck_mod, "crosscheck", lying)
    with pytest.raises(CheckerCrash, match="exceeds high-precision"):
        check(conrey, SEED)


def test_a_grid_floor_far_above_kappa_is_a_checker_crash(conrey, monkeypatch):
    real = crosscheck_mod.crosscheck
    monkeypatch.setattr(crosscheck_mod, "crosscheck", lambda *a: crosscheck_mod.HighPrec(
        "0", "0.5", real(*a).grid_floor + 10, (33, 53)))
    with pytest.raises(CheckerCrash, match="no k0"):
        check(conrey, SEED)


# --- contract validation ------------------------------------------------------------------------

@pytest.mark.parametrize("old, new, key", [
    ('theta_sup = "4/7"', 'theta_sup = "3/5"', "parameters.theta_sup"),
    ("max_degree = 12\n", "", "limits.max_degree"),
    ("check_timeout_s = 10", "check_timeout_s = 10\nbogus = 1", "limits.bogus"),
    ('R = "13/10"', 'R = 1.3', "seed"),
    ('checker = "q-symmetric"', 'checker = "p-at-zero"', "obligations.q-symmetric.checker"),
    ('direction = "maximize"', 'direction = "minimize"', "obligations.kappa-bound.bound.direction"),
])
def test_rejects_invalid_contracts_naming_the_key(tmp_path, old, new, key):
    with pytest.raises(ContractError) as e:
        load_contract(contract_variant(tmp_path, old, new))
    assert e.value.key == key


def test_both_contracts_use_one_implementation(conrey, levinson):
    assert conrey.contract.target == levinson.contract.target == "levinson-conrey"
    assert type(conrey) is type(levinson)
    assert levinson.settings.theta == F(1, 2) - F(1, 10**9)
    assert conrey.settings.theta == F(4, 7) - F(1, 10**9)
