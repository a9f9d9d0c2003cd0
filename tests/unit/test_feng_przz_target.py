"""The feng-przz target: should-prove / should-refuse pairs for the checker, the contract and the payload."""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from mathloop.contract.model import ContractError
from mathloop.domain import Label, Verdict, fraction_str
from mathloop.check.gate import decide
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.feng_przz.certificate import build_certificate, verify_certificate
from mathloop.targets.feng_przz.evaluate import certifies
from mathloop.targets.feng_przz.main_term import main_term
from mathloop.targets.feng_przz.printed import KAPPA
from tests.support.contracts import shipped

CONDITIONS = ("p-at-zero", "p1-at-one", "q-at-zero", "q-symmetric", "r-positive", "theta-admissible")
SEED_KAPPA = F(20447654453, 50000000000)  # 0.40895308906: levinson-conrey's degree-(5, 5) optimum


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract(shipped("feng-przz")))


@pytest.fixture(scope="module")
def seed(target):
    return dict(target.contract.seed)


@pytest.fixture(scope="module")
def seed_evidence(target, seed):
    return target.check(None, target.parse(seed))


def printed_payload() -> dict:
    p = KAPPA.with_q0_one()
    out = {f"P{i + 1}": [fraction_str(x) for x in P] for i, (_, P) in enumerate(p.pieces)}
    return {**out, "Q": [fraction_str(x) for x in p.Q], "R": fraction_str(p.R)}


def verdict(ev, oid: str) -> Verdict:
    return next(r.verdict for r in ev.results if r.id == oid)


def variant(tmp_path, old: str, new: str):
    text = shipped("feng-przz").read_text()
    assert old in text
    path = tmp_path / "feng-przz.toml"
    path.write_text(text.replace(old, new))
    return load_contract(path)


# --- should prove ----------------------------------------------------------------------------

def test_seed_is_certified_at_the_one_piece_optimum(seed_evidence):
    assert seed_evidence.bounds == {"kappa": SEED_KAPPA}
    assert all(verdict(seed_evidence, c) is Verdict.PROVED for c in CONDITIONS + ("main-term",))
    assert verdict(seed_evidence, "kappa-bound") is Verdict.UNKNOWN  # below the goal 5/12


def test_seed_certificate_reverifies_and_commits(target, seed_evidence):
    assert verify_certificate(seed_evidence.artifacts["certificate"], F(4, 7))
    assert decide(target.contract, None, seed_evidence).commits


@pytest.mark.slow
def test_printed_przz_polynomials_are_certified_above_0_41729(target):
    ev = target.check(None, target.parse(printed_payload()))
    k0 = ev.bounds["kappa"]
    assert F(417293961, 10**9) <= k0 < F(417293962, 10**9)  # at θ = 4/7 − 10^-9, just below the printed value
    assert verdict(ev, "kappa-bound") is Verdict.PROVED  # above 5/12
    assert target.verify_certificate(ev.artifacts["certificate"])


# --- should refuse: κ above the true value -----------------------------------------------------

def test_kappa_above_the_true_value_is_not_certified(target, seed):
    cand = target.parse(seed)
    s = target.settings
    c = main_term(list(zip(s.pieces, cand.P)), cand.Q, cand.R, s.theta)
    above = SEED_KAPPA + F(1, 10**11)  # the true κ is 0.408953089063…
    assert certifies(c, cand.R, SEED_KAPPA) and not certifies(c, cand.R, above)
    assert build_certificate(cand, s.pieces, s.theta, c, SEED_KAPPA) is not None
    assert build_certificate(cand, s.pieces, s.theta, c, above) is None


@pytest.mark.parametrize("edit", [
    lambda c: c.update(k0=fraction_str(F(c["k0"]) + F(1, 10**12))),
    lambda c: c["terms"][0].update(w=fraction_str(F(c["terms"][0]["w"]) - 1)),
    lambda c: c["terms"][-1].update(n=1),  # terms[0] is e^0 = 1, exact at any order
    lambda c: c.update(theta="4/7"),
    lambda c: c.update(Q=["1", "-1", "1"]),
], ids=["k0-raised", "weight-changed", "order-too-small", "theta-at-supremum", "q-asymmetric"])
def test_tampered_certificate_is_refused(seed_evidence, edit):
    cert = copy.deepcopy(seed_evidence.artifacts["certificate"])
    edit(cert)
    assert not verify_certificate(cert, F(4, 7))


def test_certificate_outside_a_narrower_range_is_refused(seed_evidence):
    assert not verify_certificate(seed_evidence.artifacts["certificate"], F(1, 2))


# --- should refuse: side conditions ----------------------------------------------------------

@pytest.mark.parametrize("field,value,condition", [
    ("P1", ["1/100", "1"], "p-at-zero"),
    ("P2", ["1/100", "1"], "p-at-zero"),
    ("P3", ["-1", "1"], "p-at-zero"),
    ("P1", ["0", "1", "1/10"], "p1-at-one"),
    ("Q", ["99/100", "-99/100"], "q-at-zero"),
    ("Q", ["1", "-1", "1"], "q-symmetric"),
    ("R", "0", "r-positive"),
    ("R", "-13/10", "r-positive"),
])
def test_side_condition_violated_is_refused_and_nothing_certified(target, seed, field, value, condition):
    ev = target.check(None, target.parse({**seed, field: value}))
    assert verdict(ev, condition) is Verdict.REFUTED
    assert verdict(ev, "main-term") is Verdict.UNKNOWN and verdict(ev, "kappa-bound") is Verdict.UNKNOWN
    assert ev.bounds == {} and "certificate" not in ev.artifacts


# --- should refuse: malformed payloads -------------------------------------------------------

@pytest.mark.parametrize("edit,match", [
    (lambda p: p.pop("P3"), "P3"),
    (lambda p: p.update(P4=["0"]), "P4"),
    (lambda p: p.update(R=1.3), "^R:"),
    (lambda p: p.update(R="11"), "^R: 11 exceeds"),
    (lambda p: p.update(P2=["0"] * 10), "^P2: 10 coefficients"),
    (lambda p: p.update(Q=[]), "^Q: empty"),
    (lambda p: p.update(P1=["0", "nan"]), r"^P1\[1\]"),
])
def test_malformed_payload_is_refused_naming_the_field(target, seed, edit, match):
    bad = copy.deepcopy(seed)
    edit(bad)
    with pytest.raises(Malformed, match=match):
        target.parse(bad)


def test_payload_text_that_is_not_json_is_refused(target):
    with pytest.raises(Malformed, match="^payload"):
        target.parse("{'P1': }")


# --- the contract ----------------------------------------------------------------------------

@pytest.mark.parametrize("old,new,key", [
    ("pieces = [0, 2, 3]", "pieces = [0, 1, 2]", "parameters.pieces"),
    ("pieces = [0, 2, 3]", "pieces = [0, 2, 3, 4]", "parameters.pieces"),
    ("pieces = [0, 2, 3]", "pieces = [2, 3]", "parameters.pieces"),
    ('theta = "3999999993/7000000000"', 'theta = "4/7"', "parameters.theta"),
    ('theta_sup = "4/7"', 'theta_sup = "3/5"', "parameters.theta_sup"),
    ('id = "przz-mean-value"', 'id = "some-other-theorem"', "obligations"),
])
def test_contract_outside_the_sourced_hypotheses_is_refused(tmp_path, old, new, key):
    with pytest.raises(ContractError) as e:
        variant(tmp_path, old, new)
    assert e.value.key.startswith(key)


def test_two_piece_contract_is_accepted_and_certifies_its_seed(tmp_path):
    text = shipped("feng-przz").read_text().replace("pieces = [0, 2, 3]", "pieces = [0, 2]").replace('P3 = ["0"]\n', "")
    path = tmp_path / "feng-przz-2.toml"
    path.write_text(text)
    t = build_target(load_contract(path))
    assert t.check(None, t.parse(dict(t.contract.seed))).bounds == {"kappa": SEED_KAPPA}


def test_certificate_above_the_cap_is_refused_by_the_contract_not_an_error(tmp_path, seed):
    t = build_target(variant(tmp_path, 'class_maximum = "0.417293963"', 'class_maximum = "0.4"'))
    d = decide(t.contract, None, t.check(None, t.parse(seed)))
    assert d.capped and not d.commits and d.label is Label.INCOMPARABLE
    assert d.reasons[0].startswith("kappa: certified 0.408953089060 is above the contract's cap 0.4 (class maximum, "
                                   "a numerical optimum, not a theorem: held at PRZZ's record 0.417293962")


# --- Lean: the rational part of the certificate -----------------------------------------------

def test_rendering_passes_the_refusal_scan_and_names_what_lean_does_not_prove(target, seed_evidence):
    from mathloop.lean.source import scan

    r = target.lean_render("ab" * 32, seed_evidence)
    assert scan(r.statement) == () and scan(r.proof) == ()
    assert all(scan(r.support_text(m)) == () for m in r.support)
    assert "not derived from P, Q, R and theta in Lean" in r.statement


def test_tampered_certificate_is_not_rendered(target, seed_evidence):
    from mathloop.lean.render import RenderError

    ev = copy.deepcopy(seed_evidence)
    ev.artifacts["certificate"]["terms"][1]["w"] = "1"
    with pytest.raises(RenderError, match="re-verify"):
        target.lean_render("ab" * 32, ev)


@pytest.mark.lean
def test_lean_kernel_checks_the_seed_and_refuses_a_claimed_bound_above_its_certificate(target, seed_evidence):
    import dataclasses

    from mathloop.lean.commit import check_commit

    assert check_commit(target, "ab" * 32, seed_evidence).status == "checked"
    inflated = dataclasses.replace(seed_evidence, bounds={"kappa": SEED_KAPPA + F(1, 10**6)})
    assert check_commit(target, "ab" * 32, inflated).status == "refuted"


@pytest.mark.lean
@pytest.mark.slow
def test_lean_kernel_checks_the_printed_three_piece_certificate(target):
    from mathloop.lean.commit import check_commit

    ev = target.check(None, target.parse(printed_payload()))
    assert check_commit(target, "cd" * 32, ev).status == "checked"


def test_evidence_is_deterministic_apart_from_timings(target, seed, seed_evidence):
    again = target.check(None, target.parse(seed))
    assert (again.bounds, again.artifacts, again.precision, again.results) == \
        (seed_evidence.bounds, seed_evidence.artifacts, seed_evidence.precision, seed_evidence.results)


@pytest.mark.slow  # degree 8 everywhere: ~11 s of exact main term
def test_high_degree_cancellation_raises_the_working_precision_instead_of_crashing(target):
    from math import comb

    Q = [F(comb(7, i) * (-2) ** i, 2) for i in range(8)]
    Q[0] += F(1, 2)
    payload = {"P1": ["0", "1/2"] + ["0"] * 6 + ["1/2"], "P2": ["0"] * 8 + ["1"], "P3": ["0"] * 8 + ["1"],
               "Q": [fraction_str(x) for x in Q], "R": "13/10"}
    ev = target.check(None, target.parse(payload))
    assert ev.artifacts["highprec"]["extra_digits"] > 30 and "kappa" in ev.bounds
