"""Lean claims of an erdos-minimum-overlap commit: the kernel recomputes the overlap's finite check.

With integer heights a (over their common denominator), A = Σa and b_j = 2A − n·a_{n−1−j}, the
numerators N_m = Σ_{i+j=m} a_i b_j are exactly 2A·P_k − n·Q_k of value.py (shift k = n − 1 − m), and
the overlap at shift k is N_m/(2A²). Claims: len a = n, Σa = A, admissibility n·max a <= 2A, N is the
coefficient list of a·b (Kronecker substitution; b computed by the kernel from a), max N = peak, and
the stated value equals peak/(2A²). The breakpoint argument (value.py) is taken as given.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import flint

from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, frac, nat
from mathloop.targets.sidon_autocorrelation.lean_claims import DataForm, data_form, kronecker_bits, render_step_commit

PROVES = ("From the integer heights a (over their common denominator), the kernel checks: len a = n, Σa = total > 0, "
          "n·a_i <= 2·total for every i (so f_i = n·a_i/(2·total) lies in [0, 1] and ∫f = 1), N is the coefficient "
          "list of a·b with b_j = 2·total − n·a_(n−1−j) (Kronecker substitution), max N = peak, and "
          "C1b = peak/(2·total^2).")
GIVEN = ("The definition of C1b (teorth/optimizationproblems constants/1b.md) and the breakpoint lemma: the overlap "
         "x ↦ ∫ f(t) g(x + t) dt of a step function with n equal steps is piecewise linear with breakpoints at the "
         "shifts 2k/n, where it equals N_(n−1−k)/(2·total^2) (proof in erdos_minimum_overlap/value.py).")
NOT_PROVED = "The breakpoint lemma and the definition of C1b are not formalised; this is exact integer arithmetic."


def complement(a: Sequence[int]) -> list[int]:
    """Return b_j = 2A − n·a_{n−1−j}."""
    n, A = len(a), sum(a)
    return [2 * A - n * x for x in reversed(a)]


def numerators(a: Sequence[int]) -> list[int]:
    """Return the coefficients of a·b (the overlap numerators, by index m = n − 1 − k)."""
    b = complement(a)
    c = [int(x) for x in (flint.fmpz_poly(list(a)) * flint.fmpz_poly(b)).coeffs()]
    return c + [0] * (len(a) + len(b) - 1 - len(c))


def overlap_lean(a: Sequence[int], N: Sequence[int], value: Fraction,
                 form: DataForm | None = None) -> tuple[list[Definition], list[Claim]]:
    """Return the definitions and claims of a C1b certificate (heights a, numerators N, value), its data
    in `form` (default: the form for len(a) steps)."""
    f = form or data_form(len(a))
    n, total, ma = len(a), sum(a), max(a)
    mb = 2 * total
    B = kronecker_bits(n, ma, mb, N)
    defs = [Definition("n", "Nat", nat(n), "Number of steps."),
            *f.data("a", a, "Heights over their common denominator."),
            *f.data("N", N, "Stated overlap numerators: coefficients of a·b."),
            Definition("ma", "Nat", nat(ma), "The largest height."),
            Definition("B", "Nat", nat(B), "Kronecker shift: n·ma·(2·total) < 2^B and every N_m < 2^B."),
            Definition("peak", "Nat", nat(max(N)), "max N."),
            Definition("total", "Nat", nat(total), "Σ a."),
            Definition("C1b", "Frac", frac(value), "The certified upper bound on C1b.")]
    claims = [Claim("steps", "a has n entries.", f"Nat.beq ({f.length} a) n"),
              Claim("total_is_sum", "Σ a = total (> 0).", f"band (Nat.beq ({f.total} a) total) (Nat.blt 0 total)"),
              Claim("admissible", "every a_i <= ma and n·ma <= 2·total: the normalised f takes values in [0, 1].",
                    f"band ({f.all_le} ma a) (Nat.ble (Nat.mul n ma) (Nat.mul 2 total))"),
              Claim("product", "N is the coefficient list of a·b, b_j = 2·total − n·a_(n−1−j).",
                    f"{f.kronecker} B a ({f.complement} n total a) N ma (Nat.mul 2 total)"),
              Claim("peak_is_max", "max N = peak.", f"{f.max_is} peak N"),
              Claim("value", "C1b = peak/(2·total^2) (in lowest terms), the certified upper bound on C1b.",
                    "band (qvalid C1b) (qeq C1b (qp peak (Nat.mul 2 (Nat.mul total total))))")]
    return defs, claims


def _build(a: list[int], value: Fraction, form: DataForm) -> tuple[list[Definition], list[Claim]]:
    N = numerators(a)
    if Fraction(max(N), 2 * sum(a) ** 2) != value:
        raise RenderError("the certified C1b does not equal max N/(2·total^2) (a checker bug)")
    return overlap_lean(a, N, value, form)


def render_commit(target: Any, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the C1b commit's Lean rendering, or None (see render_step_commit).

    Raises:
        RenderError: the evidence's numbers do not re-verify (a checker bug).
    """
    return render_step_commit(target, commit_hash, evidence, _build, (PROVES, GIVEN, NOT_PROVED))
