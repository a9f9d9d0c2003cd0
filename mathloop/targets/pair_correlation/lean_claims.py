"""Lean claims of a pair-correlation commit: the kernel recomputes C, ∫g², ∫H², M(g) and B(g) from g.

The data are g's even coefficients; the stated C, ∫g², ∫H², M and B are each one side of an identity
whose other side the kernel computes, so changing any digit of the exported file makes the claim false.
The positivity of g on [−1/2, 1/2] is certified by mathloop's exact checker, not re-proved in Lean.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, frac, frac_list, render
from mathloop.lean.support_modules import package_modules, select
from mathloop.targets.pair_correlation.functional import functional

SUPPORT = ("Mathloop.Exact", "Mathloop.PairCorrelation")  # shared Exact, then this package's lean/ module
PROVES = ("From the even coefficients of g given as data, the kernel recomputes C = the integral of g over "
          "[-1/2, 1/2], the integrals of g^2 and H^2 (H the antiderivative of g vanishing at 0), "
          "M(g) = 1/2 + (int g^2 - 2 int H^2)/C^2 and B(g) = 2 - M(g), and checks that C is not zero and that "
          "the stated values are these.")
GIVEN = ("The pair-correlation theorem in the Montgomery-Taylor form (arXiv:2608.13637, Theorem D; "
         "Montgomery; Taylor): for even g >= 0 supported as required, B(g) is a lower bound for the proportion "
         "of simple zeros, assuming RH.")
NOT_PROVED = ("Nothing about zeta itself; that g >= 0 on [-1/2, 1/2] (certified by mathloop's exact checker with "
              "Descartes cells, not here); that the Lean functions are the integrals (they are the moment formulas "
              "in Mathloop.PairCorrelation's comment).")
CLAIM = Claim("functional", "C, int g^2, int H^2, M(g) and B(g) are those of g, and C is not zero.",
              "pcFunctional g C G2 H2 M B")


def _coeffs(state: Mapping[str, Any]) -> list[Fraction]:
    g = state.get("g")
    if not isinstance(g, list) or not g or len(g) > 200:
        raise RenderError("state.g: expected a non-empty list of even coefficients")
    try:
        return [Fraction(c) for c in g if not isinstance(c, bool)]
    except (TypeError, ValueError, ZeroDivisionError):
        raise RenderError(f"state.g: expected rationals, got {g!r}") from None


def render_commit(contract: Contract, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the commit's Lean rendering, or None when the evidence carries no moments.

    Raises:
        RenderError: the even coefficients are malformed or the stored moments disagree with them.
    """
    m = evidence.artifacts.get("moments")
    if m is None:
        return None
    if not isinstance(m, Mapping):
        raise RenderError("moments: expected an object")
    g = _coeffs(evidence.state)
    try:
        f = functional(g)
    except ZeroDivisionError:
        raise RenderError("C = int g = 0") from None
    try:
        stored = {k: Fraction(m[k]) for k in ("C", "int_g2", "int_H2", "M", "B")}
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise RenderError("moments: C, int_g2, int_H2, M and B must be rationals") from None
    if stored != {"C": f.C, "int_g2": f.int_g2, "int_H2": f.int_H2, "M": f.M, "B": f.B}:
        raise RenderError("moments disagree with g in exact arithmetic (a checker bug)")
    F = "Frac"
    defs = [
        Definition("g", "List Frac", frac_list(g), "The even coefficients a_k of g(x) = sum of a_k x^(2k)."),
        Definition("C", F, frac(f.C), "C, the integral of g, as stated."),
        Definition("G2", F, frac(f.int_g2), "The integral of g^2, as stated."),
        Definition("H2", F, frac(f.int_H2), "The integral of H^2, as stated."),
        Definition("M", F, frac(f.M), "M(g), as stated."),
        Definition("B", F, frac(f.B), "B(g) = 2 - M(g), the certified bound, as stated."),
    ]
    return render(target=contract.target, contract_name=contract.name,
                  contract_sha=contract.sha256, commit_hash=commit_hash, proves=PROVES, given=GIVEN,
                  not_proved=NOT_PROVED, defs=defs, claims=(CLAIM,),
                  support=select(SUPPORT, package_modules(__package__)), bounds={"proportion": ("B", f.B)})
