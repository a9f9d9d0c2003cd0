"""Lean claims of a furstenberg-sarkozy commit: the kernel re-checks the residue set and the exponent bound.

The data are m, the residues R, |R| and r = ½(1 + p/q); the claims are Bool equalities evaluated by the kernel with
the functions of `Mathloop.SquareDifference` (`lean/Mathloop/SquareDifference.lean`): every residue is below m and
none repeats, R has |R| entries, m is squarefree, no difference of two distinct residues is x² mod m for any x < m,
and m^p ≤ |R|^q, so p/q ≤ log|R|/log m.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, frac, nat, nat_list
from mathloop.targets.table_constant import LeanStatement

SUPPORT = ("Mathloop.Exact", "Mathloop.SquareDifference")
# The kernel walks x < m against all ordered pairs of residues: m·|R|² steps. Larger sets are not rendered.
LEAN_MAX_STEPS = 2_000_000
PROVES = ("From m and the residues R given as data, the kernel recomputes: every residue is below m and none repeats; "
          "R has size entries; m is squarefree; for every x < m, x*x mod m is not (r - s) mod m for distinct r, s in "
          "R; and m^p <= size^q, so r = (1 + p/q)/2 <= (1 + log size/log m)/2.")
GIVEN = ("Ruzsa's construction (1984): for squarefree m and R as checked, the numbers whose base-m digits at even "
         "positions lie in R (others free) have no square difference, so r(N) >= c N^((1 + log|R|/log m)/2) and "
         "C4b >= (1 + log|R|/log m)/2.")
NOT_PROVED = "Ruzsa's construction itself, and that the Lean functions encode the stated conditions."
STATEMENT = LeanStatement(PROVES, GIVEN, NOT_PROVED, SUPPORT, __package__, "C4b")
CLAIMS = (
    Claim("residues", "Every residue is below m and no residue repeats.", "band (sdBelow m R) (sdDistinct R)"),
    Claim("size_of_R", "R has size entries.", "Nat.beq (sdLength R) size"),
    Claim("squarefree", "m is squarefree.", "sdSquarefree m"),
    Claim("no_square_difference", "No two distinct residues differ by a square mod m.", "sdNoSquareDifference m R"),
    Claim("exponent_bound", "m^p <= size^q: p/q <= log size / log m, hence C4b >= r = (1 + p/q)/2.",
          "Nat.ble (sdPow m p) (sdPow size q)"),
)


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
        m, R = int(state["modulus"]), [int(v) for v in state["residues"]]
        p, q, r = int(cert["p"]), int(cert["q"]), Fraction(cert["r"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise RenderError("certificate: expected modulus, residues in the state and p, q, r in the certificate") from None
    if r != (1 + Fraction(p, q)) / 2 or int(cert["m"]) != m or int(cert["size"]) != len(R):
        raise RenderError("certificate: r, m or size does not match the state (a checker bug)")
    defs = [
        Definition("m", "Nat", nat(m), "The modulus."),
        Definition("R", "List Nat", nat_list(R), "The residues mod m."),
        Definition("size", "Nat", nat(len(R)), "The number of residues."),
        Definition("p", "Nat", nat(p), "Numerator of the rational p/q <= log size / log m."),
        Definition("q", "Nat", nat(q), "Denominator of the rational p/q <= log size / log m."),
        Definition("r", "Frac", frac(r), "The certified lower bound: C4b >= r = (1 + p/q)/2."),
    ]
    return defs, CLAIMS, r


def render_commit(contract: Contract, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the commit's Lean rendering, or None without a certified bound or above LEAN_MAX_STEPS.

    Raises:
        RenderError: the evidence is malformed or inconsistent.
    """
    parts = lean_parts(evidence)
    if parts is None:
        return None
    state: Any = evidence.state
    if int(state["modulus"]) * len(state["residues"]) ** 2 > LEAN_MAX_STEPS:
        return None
    return STATEMENT.render(contract, commit_hash, *parts)
