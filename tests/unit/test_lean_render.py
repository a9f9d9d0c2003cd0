"""Rendering commits as plain-style Lean: deterministic bytes, data as defs, claims re-verified first, scan-clean."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from mathloop.domain import Evidence
from mathloop.lean.render import RenderError, frac, integer, module_name
from mathloop.lean.source import scan
from mathloop.targets.levinson_conrey import lean_claims
from mathloop.targets.pair_correlation.lean_claims import render_commit as render_pc
from tests.support.lean_evidence import lc_evidence, pc_evidence, real_target_evidence


def render_lc(contract, h, ev):
    return lean_claims.render_commit(contract, h, ev, Fraction(4, 7))


H1, H2 = "ab" * 32, "cd" * 32


@pytest.fixture(scope="module")
def lc():
    return lc_evidence(["0", "1"], ["1", "-1"], "13/10")


@pytest.fixture(scope="module")
def pc():
    return pc_evidence(["1", "-3"])


def _with_cert(ev: Evidence, **changes) -> Evidence:
    return Evidence(ev.checker, ev.checker_version, ev.results, ev.bounds, ev.state,
                    {"certificate": {**ev.artifacts["certificate"], **changes}})


def test_rendering_is_byte_identical_on_repeat(lc):
    contract, ev = lc
    a, b = render_lc(contract, H1, ev), render_lc(contract, H1, Evidence.from_json(ev.to_json()))
    assert (a.statement, a.proof, a.sha256) == (b.statement, b.proof, b.sha256)


def test_data_are_definitions_and_claims_are_bool_equalities_proved_by_rfl(lc):
    contract, ev = lc
    r = render_lc(contract, H1, ev)
    cert = ev.artifacts["certificate"]
    assert f"def theta : Frac := {frac(Fraction(cert['theta']))}" in r.statement
    assert f"def N1 : Int := {integer(int(cert['N1']))}" in r.statement
    assert "abbrev claim_closed_form : Prop :=\n  Eq (lcClosedForm P Q R theta a b) true" in r.statement
    assert r.proof.count(":= rfl") == len(r.theorems) == 6 and ":= by" not in r.proof
    assert "\ntheorem " not in r.statement and "import Certs" not in r.statement


def test_plain_style_uses_no_operator_symbols(lc, pc):
    for contract, ev, fn in ((*lc, render_lc), (*pc, render_pc)):
        r = fn(contract, H1, ev)
        code = re.sub(r"/-.*?-/", "", r.statement + r.proof, flags=re.S)
        for sym in (" + ", " * ", " = ", " ≤ ", "[", " by ", "decide"):
            assert sym not in code, (sym, code[:400])


def test_each_file_states_what_it_proves_and_what_is_taken_as_given(lc, pc):
    for contract, ev, fn in ((*lc, render_lc), (*pc, render_pc)):
        st = fn(contract, H1, ev).statement
        assert "What this file proves:" in st and "Published theorems taken as given:" in st
        assert "What it does not prove:" in st
    assert "Conrey" in render_lc(lc[0], H1, lc[1]).statement
    assert "g >= 0" in render_pc(pc[0], H1, pc[1]).statement


def test_rendered_files_and_support_modules_pass_the_refusal_scan(lc, pc):
    for contract, ev, fn in ((*lc, render_lc), (*pc, render_pc)):
        r = fn(contract, H1, ev)
        assert scan(r.statement) == () and scan(r.proof) == () and scan(r.standalone_source()) == ()
        assert all(scan(r.support_text(m)) == () for m in r.support)


def test_false_certificate_is_refused_not_rendered(lc):
    contract, ev = lc
    cert = ev.artifacts["certificate"]
    with pytest.raises(RenderError, match="re-verify"):
        render_lc(contract, H1, _with_cert(ev, N1=str(int(cert["N2"]) + 1)))
    with pytest.raises(RenderError, match="re-verify"):
        render_lc(contract, H1, _with_cert(ev, Q=["1", "-1", "1/2"]))


@pytest.mark.parametrize("bad", [None, 3.5, {"x": 1}])
def test_malformed_certificate_is_a_render_error(lc, bad):
    with pytest.raises(RenderError):
        render_lc(lc[0], H1, _with_cert(lc[1], exp_2R=bad))


def test_pair_correlation_states_every_moment_as_data(pc):
    contract, ev = pc
    r = render_pc(contract, H1, ev)
    B = ev.bounds["proportion"]
    assert f"def B : Frac := {frac(B)}" in r.statement and r.theorems[-1].endswith(".functional")


def test_pair_correlation_moments_that_disagree_with_g_are_refused(pc):
    contract, ev = pc
    bad = Evidence(ev.checker, ev.checker_version, ev.results, ev.bounds, ev.state,
                   {"moments": {**ev.artifacts["moments"], "B": Fraction(1, 2)}})
    with pytest.raises(RenderError, match="disagree"):
        render_pc(contract, H1, bad)


def test_bad_commit_hash_is_refused(lc):
    with pytest.raises(RenderError):
        module_name("not-a-hash")


def test_real_targets_render_through_lean_render_and_zeros_render_nothing():
    from mathloop.targets import build_target

    for name in ("levinson-conrey", "pair-correlation"):
        contract, ev = real_target_evidence(name)
        r = build_target(contract).lean_render(H1, ev)
        assert r is not None and scan(r.statement) == () and r.module == f"Certs.C{H1}"
    from mathloop.targets import load_contract

    assert build_target(load_contract("critical-line-zeros")).lean_render(H1, ev) is None
