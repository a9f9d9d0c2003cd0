"""Rendering commits as Lean: deterministic bytes, re-verified integers, valid unique names, statements apart."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from mathloop.domain import Evidence
from mathloop.export import lean_mirror as mirror
from mathloop.export.lean_render import RenderError, module_name, render_commit
from mathloop.export.lean_text import valid_dotted
from mathloop.verify.lean_source import scan
from tests.support.lean_evidence import lc_evidence, pc_evidence, real_target_evidence

H1, H2 = "ab" * 32, "cd" * 32


@pytest.fixture(scope="module")
def lc():
    """Return (contract, evidence) of the seed P = x, Q = 1 − x, R = 13/10 (certificate in Fractions)."""
    return lc_evidence(["0", "1"], ["1", "-1"], "13/10")


@pytest.fixture(scope="module")
def pc():
    return pc_evidence(["1", "-3"])


def _with_cert(ev: Evidence, **changes) -> Evidence:
    cert = {**ev.artifacts["certificate"], **changes}
    return Evidence(ev.checker, ev.checker_version, ev.results, ev.bounds, ev.state, {"certificate": cert})


def _lean_int(text: str, name: str) -> int:
    return int(re.search(rf"^def {name} : (?:Nat|Int) := (-?\d+)$", text, re.M).group(1))


def test_rendering_is_byte_identical_on_repeat(lc):
    contract, ev = lc
    a, b = render_commit(contract, H1, ev), render_commit(contract, H1, Evidence.from_json(ev.to_json()))
    assert (a.statement, a.proof, a.sha256) == (b.statement, b.proof, b.sha256)


def test_certificate_integers_reverify_in_python(lc):
    contract, ev = lc
    r = render_commit(contract, H1, ev)
    N1, N2, D = (_lean_int(r.statement, n) for n in ("N1", "N2", "D"))
    cert = ev.artifacts["certificate"]
    assert (str(D), str(N1), str(N2)) == (cert["D"], cert["N1"], cert["N2"]) and D > 0 and N1 <= N2
    # The Taylor sums the kernel evaluates reproduce the stored bounds exactly.
    x1, n1 = Fraction(cert["exp_2R"]["x"]), cert["exp_2R"]["n"]
    upper = Fraction(mirror.exp_upper_num(x1.numerator, x1.denominator, n1),
                     mirror.exp_upper_den(x1.numerator, x1.denominator, n1))
    assert upper == Fraction(cert["exp_2R"]["value"])
    a, b = Fraction(cert["a"]), Fraction(cert["b"])
    assert Fraction(N1, D) == a + b * upper and Fraction(N2, D) == Fraction(cert["exp_rhs"]["value"])


def test_theorem_names_are_unique_valid_identifiers_across_commits(lc, pc):
    names = []
    for contract, ev, h in (lc + (H1,), lc + (H2,), pc + ("ef" * 32,)):
        r = render_commit(contract, h, ev)
        names += r.theorems
        assert valid_dotted(r.module) and r.module == module_name(h)
    assert len(names) == len(set(names)) and all(valid_dotted(n) for n in names)


def test_statements_and_proofs_are_separate_files(lc):
    r = render_commit(*lc[:1], H1, lc[1])
    assert not re.search(r"^theorem ", r.statement, re.M) and ":= by" not in r.statement
    assert "abbrev claim_kappa_certificate : Prop" in r.statement
    assert not re.search(r"^(def|abbrev) ", r.proof, re.M) and len(re.findall(r"^theorem ", r.proof, re.M)) == len(r.theorems)
    assert f"import {r.statement_module}" in r.proof
    assert set(r.files()) == {f"Certs/C{H1}/Statement.lean", f"Certs/C{H1}/Proof.lean"}


def test_every_theorem_docstring_names_the_hypothesis_taken_as_given(lc):
    r = render_commit(lc[0], H1, lc[1])
    docs = re.findall(r"/--(.*?)-/\ntheorem", r.proof, re.S)
    assert len(docs) == len(r.theorems) and all("arXiv:1002.4403" in d and "taken as given" in d for d in docs)


def test_rendered_files_pass_the_refusal_scan(lc, pc):
    for contract, ev in (lc, pc):
        r = render_commit(contract, H1, ev)
        assert scan(r.statement) == () and scan(r.proof) == ()


def test_false_certificate_is_refused_not_rendered(lc):
    contract, ev = lc
    cert = ev.artifacts["certificate"]
    with pytest.raises(RenderError, match="kappa_certificate"):
        render_commit(contract, H1, _with_cert(ev, N1=str(int(cert["N2"]) + 1)))


def test_non_symmetric_q_is_refused_not_rendered(lc):
    contract, ev = lc
    with pytest.raises(RenderError, match="Q_symmetric"):
        render_commit(contract, H1, _with_cert(ev, Q=["1", "-1", "1/2"]))


@pytest.mark.parametrize("bad", ["1e400", "1/0", "nan", None, "1/-3"])
def test_malformed_certificate_field_is_a_render_error(lc, bad):
    with pytest.raises(RenderError, match="certificate.R"):
        render_commit(lc[0], H1, _with_cert(lc[1], R=bad))


def test_critical_line_zeros_is_never_rendered(lc):
    class CLZ:
        target, name, sha256 = "critical-line-zeros", "critical-line-zeros", "0" * 64

    assert render_commit(CLZ(), H1, lc[1]) is None


def test_pair_correlation_renders_moments_and_b_identity(pc):
    contract, ev = pc
    r = render_commit(contract, H1, ev)
    B = ev.bounds["proportion"]
    assert f"def B_num : Int := {B.numerator}" in r.statement and f"def B_den : Nat := {B.denominator}" in r.statement
    assert {n.rsplit(".", 1)[1] for n in r.theorems} >= {"g_squared", "integrals", "B_identity"}
    assert "not re-proved in Lean" in r.statement


def test_bad_commit_hash_is_refused(lc):
    with pytest.raises(RenderError):
        render_commit(lc[0], "not-a-hash", lc[1])


def test_real_targets_evidence_renders(tmp_path):
    """Through the real contract files and target classes (seed candidates)."""
    for name in ("levinson-conrey", "pair-correlation"):
        contract, ev = real_target_evidence(name)
        r = render_commit(contract, H1, ev)
        assert r is not None and scan(r.statement) == () and scan(r.proof) == ()


def test_higher_degree_candidate_renders_and_reverifies():
    contract, ev = lc_evidence(["0", "3/2", "-1/2"], ["1", "-2", "2", "-4/3"], "13/10")
    r = render_commit(contract, H2, ev)
    assert "def Q_coeffs : List Int := [3, -6, 6, -4]" in r.statement and "def Q_den : Nat := 3" in r.statement
