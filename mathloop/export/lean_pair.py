"""Lean rendering of the pair-correlation exact part: moments and B(g) = q as kernel-checked identities.

Reads the `moments` artifact of `mathloop.targets.pair_correlation.target` (g, g_squared, H_squared,
C, int_g2, int_H2, M, B; rationals as "p/q" strings or Fractions). Every coefficient list is scaled
to integers; Lean recomputes g², H' = g, H², the moments ∫_{-1/2}^{1/2} x^n and the identity
B = 3/2 − (∫g² − 2∫H²)/C² itself. The positivity of g (Descartes cells) is certified by mathloop's
exact checker and is *not* re-proved in Lean here; the statements file says so.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping, Sequence

from mathloop.export.lean_mirror import common_denominator, poly_eval
from mathloop.export.lean_text import Claim, int_list, lean_int

_PC = ("The pair-correlation theorem (arXiv:2608.13637, Theorem D; Montgomery–Taylor) is taken as given: "
       "nothing here is proved about ζ itself.")


def _q(v: Any, key: str, error: type[Exception]) -> Fraction:
    if isinstance(v, Fraction) or (isinstance(v, int) and not isinstance(v, bool)):
        return Fraction(v)
    if isinstance(v, str) and 0 < len(v) <= 4000:
        try:
            return Fraction(v)
        except (ValueError, ZeroDivisionError):
            pass
    raise error(f"moments.{key}: expected a rational, got {v!r}")


def _list(m: Mapping[str, Any], key: str, error: type[Exception]) -> list[Fraction]:
    v = m.get(key)
    if not isinstance(v, (list, tuple)) or not v or len(v) > 200:
        raise error(f"moments.{key}: expected a non-empty list")
    return [_q(x, key, error) for x in v]


def poly_mul(p: Sequence[int], q: Sequence[int]) -> list[int]:
    """Mirror of `Mathloop.Poly.mul` (length len(p) + len(q) − 1, no trimming)."""
    if not p:
        return []
    out = [0] * (len(p) + len(q) - 1) if q else [0] * len(p)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return out if q else [0] * (len(p))


def moment_den(n: int) -> int:
    """Mirror of `Mathloop.momentDen`."""
    return 2**n * (n + 1)


def integral_scaled(D: int, p: Sequence[int]) -> int:
    """Mirror of `Mathloop.integralScaled D 0 p` (truncating Nat division, as in Lean)."""
    return sum(c * (D // moment_den(n)) for n, c in enumerate(p) if n % 2 == 0)


def render_pair_correlation(artifacts: Mapping[str, Any], error: type[Exception]):
    """Return (definitions, claims, intro), or None when the evidence carries no moments."""
    m = artifacts.get("moments")
    if m is None:
        return None
    if not isinstance(m, Mapping):
        raise error("moments: expected an object")
    g, g2, H2 = _list(m, "g", error), _list(m, "g_squared", error), _list(m, "H_squared", error)
    C, I2, J2, M, B = (_q(m.get(k), k, error) for k in ("C", "int_g2", "int_H2", "M", "B"))
    gi, gd = common_denominator(g)
    H = [Fraction(0)] + [c / (n + 1) for n, c in enumerate(g)]
    Hi, Hd = common_denominator(H)
    g2i, H2i = poly_mul(gi, gi), poly_mul(Hi, Hi)
    nmom = max(len(g2i), len(H2i))
    Dm = 1
    for n in range(nmom):
        Dm = math.lcm(Dm, moment_den(n))
    checks = {
        "g_even": all(c == 0 for c in gi[1::2]),
        "g_squared": [Fraction(c, gd * gd) for c in g2i] == _pad(g2, len(g2i)),
        "H_antiderivative": poly_eval(Hi, 0) == 0 and [gd * k * c for k, c in enumerate(Hi)][1:] == [Hd * c for c in gi],
        "H_squared": [Fraction(c, Hd * Hd) for c in H2i] == _pad(H2, len(H2i)),
        "integrals": C.numerator * gd * Dm == integral_scaled(Dm, gi) * C.denominator
        and I2.numerator * gd * gd * Dm == integral_scaled(Dm, g2i) * I2.denominator
        and J2.numerator * Hd * Hd * Dm == integral_scaled(Dm, H2i) * J2.denominator,
        "B_identity": C != 0 and B == Fraction(3, 2) - (I2 - 2 * J2) / (C * C) and M + B == 2
        and B.numerator * (2 * I2.denominator * J2.denominator * C.numerator**2)
        == (3 * I2.denominator * J2.denominator * C.numerator**2
            - 2 * (I2.numerator * J2.denominator - 2 * J2.numerator * I2.denominator) * C.denominator**2) * B.denominator,
    }
    failed = [k for k, ok in checks.items() if not ok]
    if failed:
        raise error("pair-correlation moments fail in exact arithmetic: " + ", ".join(failed))
    defs = [
        f"/-- g(x) = (1/g_den)·∑ g_coeffs[k]·x^k (even), lowest degree first. -/\ndef g_coeffs : List Int := {int_list(gi)}",
        f"/-- Common denominator of g. -/\ndef g_den : Nat := {gd}",
        f"/-- H(x) = (1/H_den)·∑ H_coeffs[k]·x^k, the antiderivative of g vanishing at 0. -/\ndef H_coeffs : List Int := {int_list(Hi)}",
        f"/-- Common denominator of H. -/\ndef H_den : Nat := {Hd}",
        f"/-- (g_den·g)², as stored in the evidence (scaled). -/\ndef g2_coeffs : List Int := {int_list(g2i)}",
        f"/-- (H_den·H)², as stored in the evidence (scaled). -/\ndef H2_coeffs : List Int := {int_list(H2i)}",
        f"/-- A common multiple of the moment denominators 2^n·(n+1), n < {nmom}. -/\ndef Dm : Nat := {Dm}",
    ]
    for name, q, what in (("C", C, "C = ∫ g"), ("I2", I2, "∫ g²"), ("J2", J2, "∫ H²"), ("M", M, "M(g)"), ("B", B, "B(g) = 2 − M(g)")):
        defs.append(f"/-- {what}, numerator. -/\ndef {name}_num : Int := {lean_int(q.numerator)}")
        defs.append(f"/-- {what}, denominator. -/\ndef {name}_den : Nat := {q.denominator}")
    claims = [
        Claim("g_even", "g is even: every odd-degree coefficient vanishes.", "Poly.oddVanish g_coeffs = true ∧ 0 < g_den"),
        Claim("g_squared", "The stored g² is g·g.", "Poly.mul g_coeffs g_coeffs = g2_coeffs"),
        Claim("H_antiderivative", "H' = g and H(0) = 0 (after clearing denominators).",
              "0 < H_den ∧ Poly.eval H_coeffs 0 = 0 ∧ Poly.scale (g_den : Int) (Poly.deriv H_coeffs) = "
              "Poly.scale (H_den : Int) g_coeffs"),
        Claim("H_squared", "The stored H² is H·H.", "Poly.mul H_coeffs H_coeffs = H2_coeffs"),
        Claim("integrals", "C = ∫g, ∫g² and ∫H² over [−1/2, 1/2], from the moments ∫x^n = 1/(2^n·(n+1)) (n even).",
              f"dividesMoments Dm 0 {nmom} = true ∧ 0 < C_den ∧ 0 < I2_den ∧ 0 < J2_den ∧ "
              "C_num * ((g_den : Int) * (Dm : Int)) = integralScaled Dm 0 g_coeffs * (C_den : Int) ∧ "
              "I2_num * ((g_den : Int) * (g_den : Int) * (Dm : Int)) = integralScaled Dm 0 g2_coeffs * (I2_den : Int) ∧ "
              "J2_num * ((H_den : Int) * (H_den : Int) * (Dm : Int)) = integralScaled Dm 0 H2_coeffs * (J2_den : Int)"),
        Claim("B_identity", "B(g) = 3/2 − (∫g² − 2∫H²)/C² and M(g) + B(g) = 2, with C ≠ 0.",
              "C_num ≠ 0 ∧ 0 < B_den ∧ 0 < M_den ∧ "
              "B_num * (2 * (I2_den : Int) * (J2_den : Int) * C_num * C_num) = "
              "(3 * (I2_den : Int) * (J2_den : Int) * C_num * C_num - "
              "2 * (I2_num * (J2_den : Int) - 2 * J2_num * (I2_den : Int)) * (C_den : Int) * (C_den : Int)) * (B_den : Int) ∧ "
              "M_num * (B_den : Int) + B_num * (M_den : Int) = 2 * (M_den : Int) * (B_den : Int)"),
    ]
    claims = [Claim(c.name, c.doc, c.expr, _PC) for c in claims]
    cells = artifacts.get("positivity", {}).get("cell_count") if isinstance(artifacts.get("positivity"), Mapping) else None
    intro = (f"Pair correlation (Montgomery–Taylor slice): exact moments of g and B(g) = {B.numerator}/{B.denominator}. "
             "g ≥ 0 on [−1/2, 1/2] is certified by mathloop's exact checker (square-free decomposition and "
             f"Descartes cells{'' if cells is None else f': {cells} cells'}) and is not re-proved in Lean here. " + _PC)
    return defs, claims, intro


def _pad(p: Sequence[Fraction], n: int) -> list[Fraction]:
    return list(p) + [Fraction(0)] * (n - len(p))
