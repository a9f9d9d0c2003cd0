"""Lean claims of a step-function commit (C1a here; C1b reuses the helpers): the kernel recomputes the
finite check from the integer heights.

Data: the heights as naturals a_i (over their common denominator), n, Σa, the stated coefficient
list c of the product (a·a for C1a; a·b with b the scaled complement for C1b), its maximum and the
stated value (a `Frac`, the bound the statement certifies). Claims (functions in the support module
Mathloop.StepFunctions, this package's lean/Mathloop/StepFunctions.lean): c is the coefficient list
(Kronecker substitution, one GMP product), max c = peak, Σa = total, len a = n, and the value is in
lowest terms and equals the value formula. The breakpoint argument (value.py) is taken as given.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Sequence

from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, frac, nat, nat_list

MODULE = "Mathloop.StepFunctions"
SUPPORT = ("Mathloop.Exact", MODULE)  # shared Exact, then this package's lean/Mathloop/StepFunctions.lean
CHUNK = 64               # list literals are split so no term nests deeper than this (plus the chunk count)
MAX_LEAN_STEPS = 4096    # larger candidates are not rendered (their lists would nest too deep)


def chunked(name: str, xs: Sequence[int], doc: str) -> list[Definition]:
    """Return definitions name_0 .. name_k of CHUNK entries each and `name` = their concatenation."""
    parts = [list(xs[i:i + CHUNK]) for i in range(0, len(xs), CHUNK)] or [[]]
    defs = [Definition(f"{name}_{j}", "List Nat", nat_list(p), f"{doc} (entries {j * CHUNK}..)") for j, p in enumerate(parts)]
    whole = "List.nil"
    for j in reversed(range(len(parts))):
        whole = f"(napp {name}_{j} {whole})"
    return defs + [Definition(name, "List Nat", whole, doc)]


def kronecker_bits(n: int, ma: int, mb: int, c: Sequence[int]) -> int:
    """Return B with n·ma·mb < 2^B and every c_k < 2^B."""
    return max(n * ma * mb, max(c, default=0)).bit_length() + 1


def integer_heights(evidence: Evidence) -> tuple[list[int], int]:
    """Return (a_i as naturals over the common denominator, the denominator) from the commit's state."""
    hs = [Fraction(h) for h in evidence.state["heights"]]
    art = evidence.artifacts["value"]
    den = int(art["denominator"])
    a = [h.numerator * (den // h.denominator) for h in hs]
    if any(x < 0 for x in a) or any(h * den != x for h, x in zip(hs, a)):
        raise RenderError("state heights do not match the certified denominator (a checker bug)")
    return a, den


PROVES_1A = ("From the integer heights a (the step heights over their common denominator), the kernel checks: "
             "len a = n, c is the coefficient list of (Σ a_i X^i)^2 (Kronecker substitution), max c = peak, "
             "Σ a = total, and C1a = 2n·peak/total^2.")
GIVEN_1A = ("The definition of C1a (teorth/optimizationproblems constants/1a.md) and the breakpoint lemma: for the "
            "step function with heights a on n equal steps of [-1/4, 1/4], max f*f/(∫f)^2 = 2n·max_k c_k/(Σa)^2 "
            "(f*f is piecewise linear with breakpoints on the grid; proof in sidon_autocorrelation/value.py).")
NOT_PROVED_1A = "The breakpoint lemma and the definition of C1a are not formalised; this is exact integer arithmetic."


def render_step_commit(target: Any, commit_hash: str, evidence: Evidence,
                       build: Callable[[list[int], Fraction], tuple[list[Definition], list[Claim]]],
                       texts: tuple[str, str, str]) -> RenderedCommit | None:
    """Return a step-function commit's Lean rendering, or None (no value, or too many steps).

    `build(a, value)` returns the definitions and claims for the integer heights a (raising RenderError
    when the certified value does not re-verify); `texts` are (proves, given, not proved).
    """
    from mathloop.lean.render import render
    from mathloop.lean.support_modules import select

    value = evidence.bounds.get(target.bound_name)
    if value is None or "value" not in evidence.artifacts:
        return None
    value = Fraction(value)
    a, _ = integer_heights(evidence)
    if len(a) > MAX_LEAN_STEPS:
        return None
    defs, claims = build(a, value)
    proves, given, not_proved = texts
    return render(target=target.contract.target, contract_name=target.contract.name,
                  contract_sha=target.contract.sha256, commit_hash=commit_hash, proves=proves, given=given,
                  not_proved=not_proved, defs=defs, claims=claims, support=select(SUPPORT, target.lean_support()),
                  bounds={target.bound_name: (target.bound_name, value)})


def _build_1a(a: list[int], value: Fraction) -> tuple[list[Definition], list[Claim]]:
    from mathloop.targets.sidon_autocorrelation.value import square_coefficients

    c = square_coefficients(a)
    if Fraction(2 * len(a) * max(c), sum(a) ** 2) != value:
        raise RenderError("the certified C1a does not equal 2n·max c/(Σa)^2 (a checker bug)")
    return sidon_lean(a, c, value)


def render_commit(target: Any, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the C1a commit's Lean rendering, or None (see render_step_commit).

    Raises:
        RenderError: the evidence's numbers do not re-verify (a checker bug).
    """
    return render_step_commit(target, commit_hash, evidence, _build_1a, (PROVES_1A, GIVEN_1A, NOT_PROVED_1A))


def sidon_lean(a: Sequence[int], c: Sequence[int], value: Fraction) -> tuple[list[Definition], list[Claim]]:
    """Return the definitions and claims of a C1a certificate (heights a, square coefficients c, value)."""
    n, peak, total, ma = len(a), max(c), sum(a), max(a)
    B = kronecker_bits(n, ma, ma, c)
    defs = [Definition("n", "Nat", nat(n), "Number of steps."),
            *chunked("a", a, "Heights over their common denominator."),
            *chunked("c", c, "Stated coefficients of (Σ a_i X^i)^2."),
            Definition("ma", "Nat", nat(ma), "A bound on every height."),
            Definition("B", "Nat", nat(B), "Kronecker shift: n·ma^2 < 2^B and every c_k < 2^B."),
            Definition("peak", "Nat", nat(peak), "max c."),
            Definition("total", "Nat", nat(total), "Σ a."),
            Definition("C1a", "Frac", frac(value), "The certified upper bound on C1a.")]
    claims = [Claim("steps", "a has n entries.", "Nat.beq (nlen a) n"),
              Claim("square", "c is the coefficient list of (Σ a_i X^i)^2.", "kronecker B a a c ma ma"),
              Claim("peak_is_max", "max c = peak.", "maxIs peak c"),
              Claim("total_is_sum", "Σ a = total (> 0).", "band (Nat.beq (nsum a) total) (Nat.blt 0 total)"),
              Claim("value", "C1a = 2n·peak/total^2 (in lowest terms), the certified upper bound on C1a.",
                    "band (qvalid C1a) (qeq C1a (qp (Nat.mul (Nat.mul 2 n) peak) (Nat.mul total total)))")]
    return defs, claims
