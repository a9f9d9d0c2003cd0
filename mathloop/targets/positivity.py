"""Exact certification that a rational polynomial is >= 0 on a closed interval [lo, hi].

Method (exact, no sampling): flint's square-free decomposition p = u * prod f_i^e_i (f_i primitive
integer polynomials, pairwise coprime and square-free, positive leading coefficients). Only the odd
part O = prod_{e_i odd} f_i can change sign, so p >= 0 on [lo, hi] iff s * O > 0 on (lo, hi) minus
its endpoints' roots, where s = sign(u) * (-1)^[O(hi) = 0]. After dividing O by the (at most
simple) linear factors of its roots at lo and hi, the remainder O' has no root at the endpoints, and
a cover of [lo, hi] by cells is certified with Descartes' rule of signs on the Moebius transform
(1+t)^n O'(l + (r-l)/(1+t)): zero sign variations means no root in the cell and the common sign of
the coefficients is the sign of O' there. Cells with one variation hold exactly one (simple) root of
O', i.e. a root of odd multiplicity of p: p changes sign there and the claim is refuted exactly.
Cells with more variations are bisected (this terminates because O' is square-free).

Certificate keys (JSON, rationals as "p/q"): method, interval [lo, hi], unit (u), factors
([{multiplicity, coefficients}] when requested), odd_degree, endpoint_roots {lo, hi}, sign (s),
cells ([[l, r], ...] certified cells, in increasing order), cell_count, max_depth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import flint

from mathloop.targets.polynomial import evaluate, primitive_integer, trim

METHOD = "squarefree-decomposition+descartes-bisection"


@dataclass(frozen=True)
class PositivityReport:
    """Outcome of a positivity certification.

    Attributes:
        status: "nonnegative" (certified), "negative" (refuted exactly) or "unknown" (gave up).
        reason: one line saying what was established.
        certificate: JSON-able data that a re-checker (or a Lean rendering) can re-verify.
        witness: a rational point with p(witness) < 0, when one was found for a refutation.
    """

    status: str
    reason: str
    certificate: dict[str, Any] = field(default_factory=dict)
    witness: Fraction | None = None


def _fmpq(q: Fraction) -> flint.fmpq:
    return flint.fmpq(q.numerator, q.denominator)


def _at(poly: flint.fmpz_poly, x: Fraction) -> Fraction:
    v = poly(_fmpq(x))
    return Fraction(int(v.p), int(v.q))


def descartes_variations(poly: flint.fmpz_poly, l: Fraction, r: Fraction) -> int:
    """Return the sign variations of (1+t)^n poly(l + (r-l)/(1+t)): an upper bound on roots in (l, r).

    >>> descartes_variations(flint.fmpz_poly([-1, 0, 4]), Fraction(0), Fraction(1))
    1
    """
    shifted = poly(flint.fmpq_poly([_fmpq(l), _fmpq(r - l)])).numer()
    rev = flint.fmpz_poly(shifted.coeffs()[::-1])
    q = rev(flint.fmpz_poly([1, 1]))
    signs = [1 if c > 0 else -1 for c in q.coeffs() if c != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def _divide_root(poly: flint.fmpz_poly, x: Fraction) -> flint.fmpz_poly:
    quo, rem = divmod(poly, flint.fmpz_poly([-x.numerator, x.denominator]))
    if not rem.is_zero():
        raise AssertionError("exact division by a linear factor left a remainder")
    return quo


def _witness(p: Sequence[Fraction], l: Fraction, r: Fraction) -> Fraction | None:
    """Return a rational point of [l, r] where p < 0 (a few exact tries), or None."""
    for k in range(0, 17):
        x = l + (r - l) * k / 16
        if evaluate(p, x) < 0:
            return x
    return None


def certify_nonnegative(
    coeffs: Sequence[Fraction],
    lo: Fraction,
    hi: Fraction,
    *,
    max_cells: int = 20000,
    max_depth: int = 200,
    include_factors: bool = True,
) -> PositivityReport:
    """Return whether p = sum coeffs[k] x^k is >= 0 on [lo, hi], decided exactly (see module doc)."""
    if not lo < hi:
        raise ValueError("empty interval")
    p = trim([Fraction(c) for c in coeffs])
    base: dict[str, Any] = {"method": METHOD, "interval": [lo, hi]}
    if not p:
        return PositivityReport("nonnegative", "p is identically zero", {**base, "zero": True})
    c, prim = primitive_integer(p)
    content, factors = prim.factor_squarefree()
    unit = c * int(content)
    base["unit"] = unit
    if include_factors:
        base["factors"] = [
            {"multiplicity": int(e), "coefficients": [Fraction(int(a)) for a in f.coeffs()]} for f, e in factors
        ]
    odd = flint.fmpz_poly([1])
    for f, e in factors:
        if int(e) % 2 == 1:
            odd = odd * f
    base["odd_degree"] = odd.degree()
    sign = 1 if unit > 0 else -1
    at_lo = odd.degree() > 0 and _at(odd, lo) == 0
    if at_lo:
        odd = _divide_root(odd, lo)
    at_hi = odd.degree() > 0 and _at(odd, hi) == 0
    if at_hi:
        odd = _divide_root(odd, hi)
        sign = -sign  # (q x - p) < 0 left of its root hi
    base["endpoint_roots"] = {"lo": at_lo, "hi": at_hi}
    base["sign"] = sign
    if odd.degree() == 0:
        if sign * int(odd.coeffs()[0]) > 0:
            return PositivityReport(
                "nonnegative", "p = unit * (endpoint factors) * square: no sign change inside", {**base, "cells": [], "cell_count": 0, "max_depth": 0}
            )
        return PositivityReport("negative", "p = negative constant * square on the interval", base, _witness(p, lo, hi))
    cells: list[list[Fraction]] = []
    stack: list[tuple[Fraction, Fraction, int]] = [(lo, hi, 0)]
    deepest = 0
    while stack:
        l, r, depth = stack.pop()
        deepest = max(deepest, depth)
        v = descartes_variations(odd, l, r)
        if v == 0:
            if sign * _at(odd, r) < 0:
                return PositivityReport("negative", f"p < 0 on the whole cell [{l}, {r}]", base, _witness(p, l, r))
            cells.append([l, r])
            continue
        if v == 1:
            return PositivityReport(
                "negative", f"p has a root of odd multiplicity in ({l}, {r}): it changes sign", base, _witness(p, l, r)
            )
        if depth >= max_depth or len(cells) + len(stack) >= max_cells:
            return PositivityReport("unknown", f"subdivision limit reached (depth {depth}, {len(cells)} cells)", base)
        m = (l + r) / 2
        if _at(odd, m) == 0:
            return PositivityReport("negative", f"p has a root of odd multiplicity at {m}: it changes sign", base, _witness(p, l, r))
        stack.append((m, r, depth + 1))  # pushed first so cells come out in increasing order
        stack.append((l, m, depth + 1))
    return PositivityReport(
        "nonnegative",
        f"odd part has constant sign on [{lo}, {hi}] ({len(cells)} Descartes cells)",
        {**base, "cells": cells, "cell_count": len(cells), "max_depth": deepest},
    )
