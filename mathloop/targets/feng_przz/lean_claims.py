"""Lean claims of a feng-przz commit: the kernel re-checks the rational part of the κ certificate.

Data: P₁..P_K, Q, R, θ, k₀, the main term's terms (w_k, x_k) with their Taylor orders, and the order of
the right side. The kernel checks the side conditions, that every term is in the range of the
Taylor remainder bound, that Σ w_k·E_k (from below) > 0, and that Σ w_k·E_k (from above) <= the
Taylor sum of e^(R(1 − k₀)). It does NOT derive the terms from P, Q, R and θ (the main term of
docs/przz.md is computed by mathloop in exact rationals and re-derived by `verify_certificate`
before rendering), and proves nothing about exponentials or ζ: Taylor's theorem, the mean-value
theorems and Levinson's method are given.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, frac, frac_list, nat, nat_list, render
from mathloop.lean.support_modules import package_modules, select
from mathloop.targets.feng_przz.certificate import candidate_of, verify_certificate

SUPPORT = ("Mathloop.Exact", "Mathloop.FengPrzz")
PROVES = ("From the stated data the kernel recomputes: the side conditions (P_k(0) = 0 for every piece, P1(1) = 1, "
          "Q(0) = 1, Q(x) + Q(1 - x) constant, R > 0, 0 < theta < 4/7); that every term (w, x, n) has 0 <= x < n + 2; "
          "Low = sum of w times the lower-side Taylor enclosure of e^x is > 0; High = sum of w times the upper-side "
          "enclosure; and High <= S, S the Taylor sum of e^(R(1 - k0)) of the stated order.")
GIVEN = ("That c = sum of w e^x over the stated terms is the main term of the mollified second moment for these "
         "P1..PK, Q, R, theta (derived in mathloop's docs/przz.md, computed there in exact rationals and re-derived "
         "before rendering, not in Lean); the mean-value theorems (Conrey 1989; Pratt-Robles-Zaharescu-Zeindler, "
         "arXiv:1802.10521, for pieces with 2 and 3 prime logarithms, theta < 4/7) and Levinson's method: kappa >= "
         "1 - log(c)/R; Taylor's theorem for the exponential (the Taylor sum is a lower bound, the sum plus the "
         "stated remainder an upper bound for 0 <= x < n + 2).")
NOT_PROVED = ("The exponential and transcendental part: nothing about zeta, log or exp is proved; the terms "
              "(w, x) are data, not derived from P, Q, R and theta in Lean; hence High <= S => kappa >= k0 rests "
              "on the statements above.")


def _poly_list(ps: list[tuple[Fraction, ...]]) -> str:
    out = "List.nil"
    for p in reversed(ps):
        out = f"(List.cons {frac_list(p)} {out})"
    return out


CLAIMS = (
    Claim("admissible", "theta_sup is 4/7 (the theorems' range); P_k(0) = 0, P1(1) = 1, Q(0) = 1, Q(x) + Q(1 - x) "
          "constant, R > 0 and 0 < theta < theta_sup.",
          "band (qeq theta_sup fpThetaSup) (fpAdmissible P1 Ps Q R theta theta_sup)"),
    Claim("terms_valid", "Every term is valid data with 0 <= x < n + 2; the lists W, X, N have one length.",
          "fpTermsValid W X N"),
    Claim("rhs_valid", "k0 is valid data, k0 <= 1 (so R(1 - k0) >= 0).",
          "band (qvalid k0) (qle (qnat Nat.zero) (fpX2 R k0))"),
    Claim("c_positive", "The lower-side sum is positive, so c > 0 and log c is defined.",
          "qlt (qnat Nat.zero) (fpLow W X N)"),
    Claim("kappa_certificate", "The upper-side sum is at most the Taylor sum of e^(R(1 - k0)): c <= e^(R(1 - k0)), "
          "hence kappa >= k0 by the statements taken as given.",
          "qle (fpHigh W X N) (taylor (fpX2 R k0) n2)"),
)


def render_commit(contract: Contract, commit_hash: str, evidence: Evidence, theta_sup: Fraction) -> RenderedCommit | None:
    """Return the commit's Lean rendering, or None when its evidence carries no certificate.

    Raises:
        RenderError: the certificate is malformed, does not re-verify in exact arithmetic, or θ's range is not 4/7.
    """
    cert = evidence.artifacts.get("certificate")
    if cert is None:
        return None
    if Fraction(theta_sup) != Fraction(4, 7):
        raise RenderError(f"theta_sup = {theta_sup}: Mathloop.FengPrzz names only the range 4/7 (fpThetaSup)")
    if not isinstance(cert, Mapping) or not verify_certificate(cert, Fraction(theta_sup)):
        raise RenderError("certificate does not re-verify in exact arithmetic (a checker bug)")
    cand, _, theta, k0 = candidate_of(cert)
    terms: list[Mapping[str, Any]] = list(cert["terms"])
    F, L = "Frac", "List Frac"
    defs = [
        Definition("theta_sup", F, frac(Fraction(theta_sup)), "The contract's admissible range: 0 < theta < theta_sup."),
        Definition("theta", F, frac(theta), "theta, the mollifier length (T to the power theta)."),
        Definition("R", F, frac(cand.R), "R, the shift parameter."),
        Definition("P1", L, frac_list(cand.P[0]), "P1 (the mu piece), coefficients lowest degree first."),
        Definition("Ps", "List (List Frac)", _poly_list(list(cand.P[1:])), "P2..PK (pieces with 2, 3 logarithms)."),
        Definition("Q", L, frac_list(cand.Q), "Q, coefficients lowest degree first."),
        Definition("k0", F, frac(k0), "k0, the certified lower bound for kappa."),
        Definition("W", L, frac_list([Fraction(t["w"]) for t in terms]), "The weights w of c = sum of w e^x."),
        Definition("X", L, frac_list([Fraction(t["x"]) for t in terms]), "The exponents x of c = sum of w e^x."),
        Definition("N", "List Nat", nat_list([int(t["n"]) for t in terms]), "The Taylor order of each term."),
        Definition("n2", "Nat", nat(int(cert["rhs"]["n"])), "The Taylor order of e^(R(1 - k0))."),
    ]
    return render(target=contract.target, contract_name=contract.name, contract_sha=contract.sha256,
                  commit_hash=commit_hash, proves=PROVES, given=GIVEN, not_proved=NOT_PROVED, defs=defs,
                  claims=CLAIMS, support=select(SUPPORT, package_modules(__package__)), bounds={"kappa": ("k0", k0)})
