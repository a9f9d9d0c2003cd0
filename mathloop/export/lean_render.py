"""Render what a commit certifies as Lean 4 source: a statements file and a separate proofs file.

Pure and deterministic: the same (contract, commit hash, evidence) gives the same bytes. The
rendered claims are exact integer facts that core Lean's kernel decides (`decide +kernel`);
the support definitions they use live in `lean/Mathloop/Basic.lean` (mirrored in
`lean_mirror` so that every claim is re-verified in Python before it is rendered: a false
claim is a checker bug and raises RenderError). Targets whose facts are not kernel-checkable
(e.g. `critical-line-zeros`: numeric ζ) have no rendering and give None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import Evidence, canonical_json, sha256_hex
from mathloop.export import lean_mirror as mirror
from mathloop.export.lean_text import Claim, LeanFile, header, int_list, lean_int

CERTS_ROOT = "Certs"
SUPPORT_IMPORT = "Mathloop.Basic"
_HASH_RE = re.compile(r"^[0-9a-f]{16,64}$")
# Targets whose certificates we render; everything else (critical-line-zeros, ...) has none.
_RENDERERS: dict[str, str] = {"levinson-conrey": "_levinson_conrey", "pair-correlation": "_pair_correlation"}


class RenderError(ValueError):
    """The evidence's certificate is malformed or does not prove what it claims (a checker bug)."""


@dataclass(frozen=True)
class RenderedCommit:
    """The Lean rendering of one commit.

    Attributes:
        target: the contract's target implementation key.
        commit: the commit hash the module is named after.
        module: the namespace and module prefix, e.g. `Certs.C<hash>`.
        statement: text of `<module>.Statement` (definitions and `abbrev claim_* : Prop`; no proofs).
        proof: text of `<module>.Proof` (one theorem per claim, each `by decide +kernel`).
        theorems: fully qualified theorem names, in file order.
        sha256: hash of the canonical JSON of (module, statement, proof).
    """

    target: str
    commit: str
    module: str
    statement: str
    proof: str
    theorems: tuple[str, ...]
    sha256: str

    @property
    def statement_module(self) -> str:
        return f"{self.module}.Statement"

    @property
    def proof_module(self) -> str:
        return f"{self.module}.Proof"

    def files(self) -> dict[str, str]:
        """Return {relative path: text} of the two modules inside a Lake project."""
        base = self.module.replace(".", "/")
        return {f"{base}/Statement.lean": self.statement, f"{base}/Proof.lean": self.proof}


def module_name(commit_hash: str) -> str:
    """Return the Lean module/namespace for a commit: `Certs.C<hash>` (a valid identifier).

    >>> module_name("ab" * 32)[:12]
    'Certs.Cababa'
    """
    h = commit_hash.lower()
    if not _HASH_RE.match(h):
        raise RenderError(f"commit hash must be 16-64 lowercase hex digits, got {commit_hash!r}")
    return f"{CERTS_ROOT}.C{h}"


def render_commit(contract: Any, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the Lean rendering of the commit, or None if its target (or this evidence) has none.

    Raises:
        RenderError: the certificate is malformed or one of its claims is false.
    """
    fn_name = _RENDERERS.get(getattr(contract, "target", ""))
    if fn_name is None:
        return None
    module = module_name(commit_hash)
    claims = globals()[fn_name](evidence.artifacts)
    if claims is None:
        return None
    defs, claim_list, intro = claims
    return _assemble(contract, commit_hash, module, defs, claim_list, intro)


def _assemble(contract: Any, commit_hash: str, module: str, defs: list[str], claims: list[Claim],
              intro: str) -> RenderedCommit:
    """Return the two files for a list of definitions and claims."""
    names = [c.theorem for c in claims]
    if len(set(names)) != len(names):
        raise RenderError("duplicate theorem names")
    meta = {
        "commit": commit_hash, "target": contract.target, "contract": getattr(contract, "name", ""),
        "contract_sha256": getattr(contract, "sha256", ""),
    }
    statement = LeanFile(header("Statements", meta, intro), (SUPPORT_IMPORT,), module,
                         defs + [c.statement_text() for c in claims]).text()
    proof = LeanFile(header("Proofs", meta, "Each theorem proves the claim of the same name in Statement.lean "
                                            "by kernel evaluation (`decide +kernel`)."),
                     (SUPPORT_IMPORT, f"{module}.Statement"), module, [c.proof_text() for c in claims]).text()
    full = tuple(f"{module}.{n}" for n in names)
    digest = sha256_hex(canonical_json({"module": module, "statement": statement, "proof": proof}))
    return RenderedCommit(contract.target, commit_hash, module, statement, proof, full, digest)


# -- Levinson–Conrey ---------------------------------------------------------------------------

_CONREY = ("Conrey's mean-value theorem (Conrey, J. reine angew. Math. 399, 1989; in the form of "
           "Young, arXiv:1002.4403) is taken as given: nothing here is proved about ζ itself.")


def _q(d: Mapping[str, Any], key: str) -> Fraction:
    v = d.get(key)
    if isinstance(v, Fraction) or (isinstance(v, int) and not isinstance(v, bool)):
        return Fraction(v)
    if not isinstance(v, str) or not re.fullmatch(r"-?\d{1,20000}(/\d{1,20000})?", v):
        raise RenderError(f"certificate.{key}: expected a rational string 'p/q', got {v!r}")
    try:
        return Fraction(v)
    except ZeroDivisionError:
        raise RenderError(f"certificate.{key}: zero denominator") from None


def _z(d: Mapping[str, Any], key: str) -> int:
    v = d.get(key)
    if isinstance(v, bool) or not (isinstance(v, int) or (isinstance(v, str) and re.fullmatch(r"-?\d{1,20000}", v))):
        raise RenderError(f"certificate.{key}: expected an integer, got {v!r}")
    return int(v)


def _coeffs(d: Mapping[str, Any], key: str) -> list[Fraction]:
    v = d.get(key)
    if not isinstance(v, list) or not v or len(v) > 64:
        raise RenderError(f"certificate.{key}: expected a non-empty list of rational strings")
    return [_q({key: c}, key) for c in v]


def _levinson_conrey(artifacts: Mapping[str, Any]):
    """Return (definitions, claims, intro) for a Levinson–Conrey κ certificate, or None if absent."""
    cert = artifacts.get("certificate")
    if cert is None:
        return None
    if not isinstance(cert, Mapping):
        raise RenderError("certificate: expected an object")
    theta, R, a, b, k0 = (_q(cert, k) for k in ("theta", "R", "a", "b", "k0"))
    P, Q = _coeffs(cert, "P"), _coeffs(cert, "Q")
    e2, er = cert.get("exp_2R"), cert.get("exp_rhs")
    if not isinstance(e2, Mapping) or not isinstance(er, Mapping):
        raise RenderError("certificate.exp_2R / exp_rhs: expected objects")
    x1, n1, side, v1 = _q(e2, "x"), _z(e2, "n"), e2.get("side"), _q(e2, "value")
    x2, n2, v2 = _q(er, "x"), _z(er, "n"), _q(er, "value")
    D, N1, N2 = _z(cert, "D"), _z(cert, "N1"), _z(cert, "N2")
    if side not in ("upper", "lower") or er.get("side") != "lower":
        raise RenderError("certificate: exp_2R.side must be upper|lower and exp_rhs.side lower")
    if not (0 <= n1 <= 10_000 and 0 <= n2 <= 10_000) or x1 < 0 or x2 < 0:
        raise RenderError("certificate: Taylor orders must be in 0..10000 and arguments >= 0")
    pn, pd = mirror.common_denominator(P)
    qn, qd = mirror.common_denominator(Q)
    facts = mirror.LcFacts(theta, R, pn, pd, qn, qd, a, b, k0, x1, n1, side, v1, x2, n2, v2, D, N1, N2)
    failed = facts.failures()
    if failed:
        raise RenderError("certificate claims fail in exact arithmetic: " + ", ".join(failed))
    claims = [c if _CONREY in c.doc else replace(c, note=_CONREY) for c in _lc_claims(side)]
    return _lc_defs(facts), claims, _lc_intro(k0)


def _lc_intro(k0: Fraction) -> str:
    return (f"Levinson–Conrey: exact facts certifying κ ≥ k₀ = {k0.numerator}/{k0.denominator} through "
            f"κ ≥ 1 − log(c)/R with c = a + b·e^(2R). {_CONREY}")


def _nat(name: str, v: int, doc: str) -> str:
    return f"/-- {doc} -/\ndef {name} : Nat := {v}"


def _int(name: str, v: int, doc: str) -> str:
    return f"/-- {doc} -/\ndef {name} : Int := {lean_int(v)}"


def _lc_defs(f: "mirror.LcFacts") -> list[str]:
    up = f.side == "upper"
    return [
        _nat("theta_num", f.theta.numerator, "θ (mollifier length T^θ), numerator."),
        _nat("theta_den", f.theta.denominator, "θ, denominator."),
        _nat("R_num", f.R.numerator, "R (shift parameter), numerator."),
        _nat("R_den", f.R.denominator, "R, denominator."),
        f"/-- P(x) = (1/P_den)·∑ P_coeffs[k]·x^k, lowest degree first. -/\ndef P_coeffs : List Int := {int_list(f.P)}",
        _nat("P_den", f.Pd, "Common denominator of P's coefficients."),
        f"/-- Q(x) = (1/Q_den)·∑ Q_coeffs[k]·x^k, lowest degree first. -/\ndef Q_coeffs : List Int := {int_list(f.Q)}",
        _nat("Q_den", f.Qd, "Common denominator of Q's coefficients."),
        _int("a_num", f.a.numerator, "a in c = a + b·e^(2R) (closed form of Conrey's double integral), numerator."),
        _nat("a_den", f.a.denominator, "a, denominator."),
        _int("b_num", f.b.numerator, "b in c = a + b·e^(2R), numerator."),
        _nat("b_den", f.b.denominator, "b, denominator."),
        _int("k0_num", f.k0.numerator, "k₀, the certified lower bound for κ, numerator."),
        _nat("k0_den", f.k0.denominator, "k₀, denominator."),
        _nat("x1_num", f.x1.numerator, "x₁ = 2R, the argument of the first exponential, numerator."),
        _nat("x1_den", f.x1.denominator, "x₁, denominator."),
        _nat("n1", f.n1, "Taylor order used for e^(x₁)."),
        _nat("x2_num", f.x2.numerator, "x₂ = R·(1 − k₀), the argument of the second exponential, numerator."),
        _nat("x2_den", f.x2.denominator, "x₂, denominator."),
        _nat("n2", f.n2, "Taylor order used for e^(x₂)."),
        _nat("E1_num", f.v1.numerator, "Stored rational " + ("upper" if up else "lower") + " bound of e^(x₁), numerator."),
        _nat("E1_den", f.v1.denominator, "Stored bound of e^(x₁), denominator."),
        _nat("E2_num", f.v2.numerator, "Stored rational lower bound of e^(x₂), numerator."),
        _nat("E2_den", f.v2.denominator, "Stored lower bound of e^(x₂), denominator."),
        (f"/-- Kernel-evaluated {'upper Taylor bound (sum + remainder)' if up else 'Taylor sum'} of e^(x₁), "
         f"numerator. -/\nabbrev T1_num : Nat := "
         + ("expUpperNum x1_num x1_den n1" if up else "taylorNum x1_num x1_den n1")),
        "/-- Its denominator. -/\nabbrev T1_den : Nat := " + ("expUpperDen x1_num x1_den n1" if up else "taylorDen x1_den n1"),
        "/-- Kernel-evaluated Taylor sum ∑_{k≤n₂} x₂^k/k!, numerator. -/\nabbrev T2_num : Nat := taylorNum x2_num x2_den n2",
        "/-- Its denominator. -/\nabbrev T2_den : Nat := taylorDen x2_den n2",
        _nat("D", f.D, "Common denominator of the certificate inequality."),
        _int("N1", f.N1, "N₁ = (a + b·E₁)·D."),
        _int("N2", f.N2, "N₂ = E₂·D."),
    ]


def _lc_claims(side: str) -> list[Claim]:
    up = side == "upper"
    other = ("expUpperNum x1_num x1_den n1", "expUpperDen x1_num x1_den n1") if not up else (
        "taylorNum x1_num x1_den n1", "taylorDen x1_den n1")
    return [
        Claim("parameters_admissible", "0 < θ < 4/7 (Conrey's admissible mollifier length) and R > 0.",
              "0 < theta_num ∧ 0 < theta_den ∧ 7 * theta_num < 4 * theta_den ∧ 0 < R_num ∧ 0 < R_den"),
        Claim("P_zero", "P(0) = 0 (after clearing the common denominator P_den > 0).",
              "0 < P_den ∧ Poly.eval P_coeffs 0 = 0"),
        Claim("P_one", "P(1) = 1, i.e. ∑ P_coeffs = P_den.", "Poly.eval P_coeffs 1 = (P_den : Int)"),
        Claim("Q_zero", "Q(0) = 1, i.e. the constant coefficient is Q_den > 0.",
              "0 < Q_den ∧ Poly.eval Q_coeffs 0 = (Q_den : Int)"),
        Claim("Q_symmetric", "Q(x) + Q(1 − x) is constant: every coefficient of degree ≥ 1 of Q(x) + Q(1 − x) vanishes.",
              "Poly.isConst (Poly.add Q_coeffs (Poly.reflect Q_coeffs)) = true"),
        Claim("exp_arguments", "x₁ = 2R with 0 ≤ x₁ < n₁ + 2 (the remainder bound applies), "
              "x₂ = R·(1 − k₀) ≥ 0, all denominators positive.",
              "0 < x1_den ∧ 0 < x2_den ∧ 0 < k0_den ∧ 0 < a_den ∧ 0 < b_den ∧ x1_num * R_den = 2 * R_num * x1_den ∧ "
              "x1_num < (n1 + 2) * x1_den ∧ "
              "(x2_num : Int) * ((R_den : Int) * (k0_den : Int)) = (R_num : Int) * ((k0_den : Int) - k0_num) * (x2_den : Int)"),
        Claim("exp_bound_side", "b ≥ 0 and E₁ is an upper bound of e^(2R)." if up else
              "b < 0 and E₁ is a lower bound of e^(2R) (so a + b·E₁ ≥ c).",
              "0 ≤ b_num" if up else "b_num < 0"),
        Claim("exp_values", "The stored rationals E₁, E₂ equal the Taylor expressions evaluated by the kernel "
              "(so nothing about them is taken from Python).",
              "0 < E1_den ∧ 0 < E2_den ∧ E1_num * T1_den = T1_num * E1_den ∧ E2_num * T2_den = T2_num * E2_den"),
        Claim("c_positive", "c = a + b·e^(2R) > 0, from the opposite Taylor bound of e^(2R) "
              "(so log c is the logarithm of a positive number).",
              f"0 < (a_num * (b_den : Int) * ({other[1]} : Int) + b_num * (a_den : Int) * ({other[0]} : Int))"),
        Claim("certificate_identities", "N₁/D = a + b·E₁ and N₂/D = E₂, with D > 0.",
              "0 < D ∧ N1 * ((a_den : Int) * (b_den : Int) * (E1_den : Int)) = "
              "(a_num * (b_den : Int) * (E1_den : Int) + b_num * (a_den : Int) * (E1_num : Int)) * (D : Int) ∧ "
              "N2 * (E2_den : Int) = (E2_num : Int) * (D : Int)"),
        Claim("kappa_certificate", "The κ certificate N₁ ≤ N₂: a + b·E₁ ≤ E₂, hence (with the claims above and "
              "Taylor's bounds, proved over ℝ in the Mathlib layer) c ≤ e^(R(1−k₀)), i.e. "
              "1 − log(c)/R ≥ k₀. " + _CONREY, "N1 ≤ N2"),
    ]


def _pair_correlation(artifacts: Mapping[str, Any]):
    """Return (definitions, claims, intro) for the pair-correlation exact part, or None if absent."""
    from mathloop.export.lean_pair import render_pair_correlation

    return render_pair_correlation(artifacts, RenderError)
