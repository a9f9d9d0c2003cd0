"""Lean claims of a shannon-capacity-c7 commit: the kernel re-checks the independent set and the root bound.

The data are n, the set S as a list of base-7 vertex codes, |S| and r = p/q; the claims are Bool
equalities over Nat evaluated by the kernel with the functions of `Mathloop.ShannonC7` (mathloop's Lean
library, `lean/Mathloop/ShannonC7.lean`): every code is below 7^n, no two entries are close (so S is an
independent set of C7^⊠n with no repeated vertex), S has |S| entries, and p^n ≤ |S|·q^n.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mathloop.contract.model import Contract
from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, nat, nat_list
from mathloop.targets.table_constant import LeanStatement, bound_definitions
from mathloop.targets.shannon_capacity_c7.graph import Q, encode

SUPPORT = ("Mathloop.Exact", "Mathloop.ShannonC7")  # shared Exact, then its library module
# The kernel's check keeps a bit mask over the 7^n codes and builds each vertex's cube from 2^n single-bit numbers
# of up to 7^n bits. Measured (bundled Lean 4.35, 2-core machine under load): Polak–Schrijver's 367 vertices of
# C7^⊠5 in 12 s; five vertices of C7^⊠10 already abort the kernel (signal 6: 1024 numbers of 282 Mbit each per
# vertex). Sets in powers above 6 are therefore not rendered (the commit is shown as "not rendered", never checked).
LEAN_MAX_N = 6
PROVES = ("From n and the list S of vertex codes given as data, the kernel recomputes: every code is below 7^n "
          "(a vertex of C7^n, coordinates its base-7 digits); no two entries of S are equal or adjacent (in every "
          "coordinate equal or differing by 1 mod 7), so S is an independent set of C7^n; S has size entries; "
          "and p^n <= size q^n, so r = p/q <= size^(1/n).")
GIVEN = ("The definition Theta(G) = sup_n alpha(G^n)^(1/n) over strong powers (Shannon 1956), so "
         "Theta(C7) >= alpha(C7^n)^(1/n) >= |S|^(1/n) for every independent set S of C7^n.")
NOT_PROVED = ("That the Lean functions encode adjacency in the strong product (their definitions follow "
              "Mathloop.ShannonC7's comment; the step from the Bool check to the graph statement is not "
              "formalised here), and nothing about Theta(C7) beyond this lower bound.")
STATEMENT = LeanStatement(PROVES, GIVEN, NOT_PROVED, SUPPORT, __package__, "capacity")
CLAIMS = (
    Claim("codes", "Every entry of S is below 7^n: the code of a vertex of C7^n.", "c7Codes n S"),
    Claim("independent", "No two entries of S (at different positions) are close: S is an independent set of "
                         "C7^n with no repeated vertex.", "c7Independent n S"),
    Claim("size_of_S", "S has size entries.", "Nat.beq (c7Length S) size"),
    Claim("root_bound", "p^n <= size q^n: r = p/q is at most size^(1/n), hence Theta(C7) >= r.",
          "Nat.ble (Nat.pow p n) (Nat.mul size (Nat.pow q n))"),
)


def support_module_text() -> str:
    """Return the text of `Mathloop.ShannonC7` (mathloop's Lean library, package data)."""
    from mathloop.lean.support_modules import library_modules

    return library_modules()["Mathloop.ShannonC7"]


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
        n, vertices = int(state["n"]), state["vertices"]
        codes = [encode(tuple(v)) for v in vertices]
        size, r = int(cert["size"]), Fraction(cert["r"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise RenderError("certificate: expected n, vertices in the state and size, r in the certificate") from None
    if size != len(codes) or n != cert.get("n") or any(len(v) != n or not all(0 <= x < Q for x in v) for v in vertices):
        raise RenderError("certificate: size or n does not match the state")
    if r.numerator ** n > size * r.denominator ** n:
        raise RenderError("certificate: r^n > |S| (a checker bug)")
    defs = [
        Definition("n", "Nat", nat(n), "The power: S is a set of vertices of the strong power C7^n."),
        Definition("S", "List Nat", nat_list(codes), "The vertices of S, as base-7 codes (first coordinate "
                                                         "most significant)."),
        Definition("size", "Nat", nat(size), "The size of S."),
        *bound_definitions(r, "The certified lower bound: Theta(C7) >= r = p/q."),
    ]
    return defs, CLAIMS, r


def render_commit(contract: Contract, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the commit's Lean rendering, or None without a certified bound or above LEAN_MAX_N.

    Raises:
        RenderError: the evidence is malformed or inconsistent.
    """
    parts = lean_parts(evidence)
    if parts is None or int(evidence.state["n"]) > LEAN_MAX_N:
        return None
    return STATEMENT.render(contract, commit_hash, *parts)
