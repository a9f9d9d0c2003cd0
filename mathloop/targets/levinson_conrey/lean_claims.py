"""Lean claims of a Levinson–Conrey commit: the kernel recomputes the certificate from P, Q, R and θ.

The data are P, Q, R, θ, k₀ and the Taylor orders, plus the numbers the certificate states (a, b, E₁,
E₂, D, N₁, N₂); each stated number is one side of an identity whose other side the kernel computes
from the data, so changing any digit of the exported file makes a claim false.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.lean.render import (Claim, Definition, RenderedCommit, RenderError, frac, frac_list, integer, nat,
                                  render)
from mathloop.lean.support_modules import package_modules, select
from mathloop.targets.levinson_conrey.certificate import verify_certificate

SUPPORT = ("Mathloop.Exact", "Mathloop.LevinsonConrey")  # shared Exact, then this package's lean/ module
PROVES = ("From P, Q, R and theta given as data, the kernel recomputes: the admissibility identities "
          "(P(0) = 0, P(1) = 1, Q(0) = 1, Q(x) + Q(1 - x) constant, 0 < theta < theta_sup, R > 0); the exact closed "
          "form c = a + b e^(2R) of Conrey's double integral (a, b by the integration-by-parts moments in "
          "Mathloop.LevinsonConrey); the Taylor enclosures E1 of e^(2R) and E2 of e^(R(1 - k0)) of the stated "
          "orders; c > 0; N1/D = a + b E1, N2/D = E2; and N1 <= N2.")
GIVEN = ("The mean-value theorem of the contract (Conrey, J. reine angew. Math. 399, 1989, for theta < 4/7 = "
         "conreyThetaSup; Levinson 1974 for theta < 1/2 = levinsonThetaSup): for admissible P, Q, kappa >= "
         "1 - log(c)/R. Taylor's theorem for "
         "the exponential: the Taylor sum is a lower bound and the sum plus the stated remainder is an upper bound "
         "for 0 <= x < n + 2.")
NOT_PROVED = ("Nothing about zeta itself; that the Lean functions compute the integral (their definitions follow "
              "the formulas in Mathloop.LevinsonConrey's comment; this is exact rational arithmetic, not analysis); "
              "hence the implication N1 <= N2 => kappa >= k0 rests on the two theorems above.")


def _q(d: Mapping[str, Any], key: str) -> Fraction:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (str, int, Fraction)):
        raise RenderError(f"certificate.{key}: expected a rational, got {v!r}")
    try:
        return Fraction(v)
    except (ValueError, ZeroDivisionError):
        raise RenderError(f"certificate.{key}: expected a rational 'p/q', got {v!r}") from None


def _z(d: Mapping[str, Any], key: str) -> int:
    v = d.get(key)
    try:
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise ValueError
        return int(v)
    except ValueError:
        raise RenderError(f"certificate.{key}: expected an integer, got {v!r}") from None


def _definitions(cert: Mapping[str, Any], theta_sup: Fraction) -> list[Definition]:
    e2, er = cert["exp_2R"], cert["exp_rhs"]
    F, L, N, Z = "Frac", "List Frac", "Nat", "Int"
    return [
        Definition("theta_sup", F, frac(theta_sup), "The contract's admissible range: 0 < theta < theta_sup."),
        Definition("theta", F, frac(_q(cert, "theta")), "theta, the mollifier length (T to the power theta)."),
        Definition("R", F, frac(_q(cert, "R")), "R, the shift parameter."),
        Definition("P", L, frac_list([_q({"c": c}, "c") for c in cert["P"]]), "P, coefficients lowest degree first."),
        Definition("Q", L, frac_list([_q({"c": c}, "c") for c in cert["Q"]]), "Q, coefficients lowest degree first."),
        Definition("k0", F, frac(_q(cert, "k0")), "k0, the certified lower bound for kappa."),
        Definition("n1", N, nat(_z(e2, "n")), "Taylor order used for e^(2R)."),
        Definition("n2", N, nat(_z(er, "n")), "Taylor order used for e^(R(1 - k0))."),
        Definition("a", F, frac(_q(cert, "a")), "a in c = a + b e^(2R), as stated by the certificate."),
        Definition("b", F, frac(_q(cert, "b")), "b in c = a + b e^(2R), as stated by the certificate."),
        Definition("E1", F, frac(_q(e2, "value")), "The stated bound of e^(2R)."),
        Definition("E2", F, frac(_q(er, "value")), "The stated lower bound of e^(R(1 - k0))."),
        Definition("D", N, nat(_z(cert, "D")), "The common denominator of the certificate inequality."),
        Definition("N1", Z, integer(_z(cert, "N1")), "N1 = (a + b E1) D."),
        Definition("N2", Z, integer(_z(cert, "N2")), "N2 = E2 D."),
    ]


def _claims(sup: str) -> tuple[Claim, ...]:
    """Return the claims, with the admissible range of theta named by its published constant."""
    return (Claim("admissible", f"theta_sup is {sup} (the range of the theorem taken as given), P(0) = 0, "
                                "P(1) = 1, Q(0) = 1, Q(x) + Q(1 - x) is constant, R > 0 and 0 < theta < theta_sup.",
                  f"band (qeq theta_sup {sup}) (lcAdmissible P Q R theta theta_sup)"),) + CLAIMS


CLAIMS = (
    Claim("closed_form", "a and b are the closed form c = a + b e^(2R), recomputed from P, Q, R and theta.",
          "lcClosedForm P Q R theta a b"),
    Claim("exp_bounds", "E1 and E2 are the Taylor enclosures of orders n1 and n2 (upper for e^(2R) when b >= 0, "
          "lower otherwise; lower for e^(R(1 - k0))), with 2R < n1 + 2 and R(1 - k0) >= 0.",
          "lcExpBounds R b k0 n1 n2 E1 E2"),
    Claim("c_positive", "c > 0, from the opposite Taylor bound of e^(2R) (so log c is defined).",
          "lcCPositive R a b n1"),
    Claim("identities", "N1/D = a + b E1 and N2/D = E2, with D > 0.", "lcIdentities a b E1 E2 D N1 N2"),
    Claim("kappa_certificate", "N1 <= N2: a + b E1 <= E2, hence c <= e^(R(1 - k0)) and kappa >= k0 by the "
          "theorems taken as given.", "zble N1 N2"),
)


# The admissible ranges of the published theorems, by their name in Mathloop.LevinsonConrey.
THETA_RANGES = {Fraction(4, 7): "conreyThetaSup", Fraction(1, 2): "levinsonThetaSup"}


def render_commit(contract: Contract, commit_hash: str, evidence: Evidence, theta_sup: Fraction) -> RenderedCommit | None:
    """Return the commit's Lean rendering, or None when its evidence carries no certificate.

    The statement certifies kappa >= k0 with the certificate's own k0 (`bounds`); the Lean check
    compares that with the commit's certified bound. `theta_sup` is the contract's admissible range;
    it must be one the support library names.

    Raises:
        RenderError: the certificate is malformed or does not re-verify in exact arithmetic.
    """
    cert = evidence.artifacts.get("certificate")
    if cert is None:
        return None
    if not isinstance(cert, Mapping) or not isinstance(cert.get("exp_2R"), Mapping) \
            or not isinstance(cert.get("exp_rhs"), Mapping) or not isinstance(cert.get("P"), list) \
            or not isinstance(cert.get("Q"), list):
        raise RenderError("certificate: expected an object with P, Q lists and exp_2R, exp_rhs objects")
    sup = THETA_RANGES.get(Fraction(theta_sup))
    if sup is None:
        raise RenderError(f"theta_sup = {theta_sup}: no published range of that name in Mathloop.LevinsonConrey")
    if not verify_certificate(cert, Fraction(theta_sup)):
        raise RenderError("certificate does not re-verify in exact arithmetic (a checker bug)")
    return render(target=contract.target, contract_name=contract.name,
                  contract_sha=contract.sha256, commit_hash=commit_hash, proves=PROVES, given=GIVEN,
                  not_proved=NOT_PROVED, defs=_definitions(cert, Fraction(theta_sup)), claims=_claims(sup),
                  support=select(SUPPORT, package_modules(__package__)), bounds={"kappa": ("k0", _q(cert, "k0"))})
