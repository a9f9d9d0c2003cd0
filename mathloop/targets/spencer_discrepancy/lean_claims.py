"""Lean claims of a spencer-discrepancy commit: the kernel re-checks the discrepancy and the ratio bound.

The data are n, D and the integer matrix B = D·A by columns, the discrepancy d of B and r = p/q; the claims are Bool
equalities evaluated by the kernel with the functions of `Mathloop.Discrepancy` (mathloop's Lean library,
`lean/Mathloop/Discrepancy.lean`): B is n×n with |b_ij| ≤ D, every sign vector leaves some row sum of absolute value
at least d, and p²·n·D² ≤ d²·q², so r ≤ (d/D)/√n ≤ disc(A)/√n.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, integer, nat
from mathloop.targets.table_constant import LeanStatement, bound_definitions

SUPPORT = ("Mathloop.Exact", "Mathloop.Discrepancy")
# The kernel walks all 2^(n−1) sign vectors (each a list of n row sums). Measured with the bundled Lean 4.35 on this
# 2-core machine under load: 8×8 in 2.7 s, 9×9 in 5.1 s (doubling per row); Li's 17×17 ran out of the elaborator's
# default 200,000 heartbeats after 132 s. Larger matrices are not rendered ("not rendered", never checked).
LEAN_MAX_N = 11
PROVES = ("From the integer matrix B (given by its columns), its scale D and d, the kernel recomputes: B is n by n with "
          "every |b_ij| <= D, so A = B/D has entries in [-1, 1]; every sign vector x in {1, -1}^n leaves some row "
          "sum |(Bx)_i| >= d (all 2^(n-1) vectors with x_1 = 1, the rest by symmetry), so disc(A) >= d/D; and "
          "p^2 n D^2 <= d^2 q^2, so r = p/q <= disc(A)/sqrt(n).")
GIVEN = "The definition of C10c as the least K with disc(A) <= K sqrt(n) for all n and all A in [-1, 1]^(n x n)."
NOT_PROVED = "That the Lean functions encode the discrepancy (the step from the Bool check to the statement about all x)."
STATEMENT = LeanStatement(PROVES, GIVEN, NOT_PROVED, SUPPORT, __package__, "C10c")
CLAIMS = (
    Claim("shape", "B has n columns of n entries, each of absolute value at most D.",
          "band (Nat.beq (dscCount B) n) (dscShape n D B)"),
    Claim("discrepancy", "Every sign vector leaves some row sum of absolute value at least d.", "dscAtLeast d n B"),
    Claim("ratio_bound", "p^2 n D^2 <= d^2 q^2: r = p/q is at most (d/D)/sqrt(n), hence C10c >= r.",
          "Nat.ble (Nat.mul (Nat.mul (Nat.mul p p) n) (Nat.mul D D)) (Nat.mul (Nat.mul d d) (Nat.mul q q))"),
)


def _columns_term(B: list[list[int]]) -> str:
    out = "List.nil"
    for j in reversed(range(len(B))):
        col = "List.nil"
        for i in reversed(range(len(B))):
            col = f"(List.cons {integer(B[i][j])} {col})"
        out = f"(List.cons {col} {out})"
    return out


def lean_parts(evidence: Evidence) -> tuple[list[Definition], tuple[Claim, ...], Fraction] | None:
    """Return (definitions, claims, r) of a commit, or None when its evidence certifies no bound.

    Raises:
        RenderError: the state or certificate is malformed or inconsistent (a checker bug).
    """
    cert = evidence.artifacts.get("certificate")
    if cert is None:
        return None
    state: Any = evidence.state
    try:
        rows = [[Fraction(v) for v in row] for row in state["matrix"]]
        n, D, d, r = int(cert["n"]), int(cert["denominator"]), int(cert["disc_times_denominator"]), Fraction(cert["r"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise RenderError("certificate: expected the matrix in the state and n, denominator, disc, r") from None
    B = [[q * D for q in row] for row in rows]
    if len(B) != n or any(len(row) != n or any(v.denominator != 1 for v in row) for row in B):
        raise RenderError("certificate: the matrix times D is not an n by n integer matrix")
    if r.numerator**2 * n * D**2 > d * d * r.denominator**2:
        raise RenderError("certificate: r exceeds d/(D sqrt n) (a checker bug)")
    ints = [[int(v) for v in row] for row in B]
    defs = [
        Definition("n", "Nat", nat(n), "The size: A is an n by n matrix."),
        Definition("D", "Nat", nat(D), "The common denominator of A's entries: B = D A is an integer matrix."),
        Definition("B", "List (List Int)", _columns_term(ints), "The columns of B = D A."),
        Definition("d", "Nat", nat(d), "The discrepancy of B (that of A times D)."),
        *bound_definitions(r, "The certified lower bound: C10c >= r = p/q."),
    ]
    return defs, CLAIMS, r


def render_commit(contract: Contract, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the commit's Lean rendering, or None without a certified bound or above LEAN_MAX_N.

    Raises:
        RenderError: the evidence is malformed or inconsistent.
    """
    parts = lean_parts(evidence)
    if parts is None or len(evidence.state["matrix"]) > LEAN_MAX_N:
        return None
    return STATEMENT.render(contract, commit_hash, *parts)
