"""The κ certificate: one exact integer inequality N1 <= N2 proving κ >= k0.

κ >= 1 − log(c)/R >= k0  ⟺  c <= e^{R(1−k0)}  (R > 0, c >= 1). With c = a + b·e^{2R}:
    lhs = a + b·E,  E a Taylor bound of e^{2R} (upper when b >= 0, lower when b < 0), so lhs >= c;
    rhs = S_n(R(1−k0)) <= e^{R(1−k0)};
    lhs = N1/D, rhs = N2/D with D > 0;  N1 <= N2  ⟹  c <= e^{R(1−k0)}  ⟹  κ >= k0.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping, Sequence

from mathloop.domain import fraction_str
from mathloop.targets.levinson_conrey.admissibility import failures
from mathloop.targets.levinson_conrey.closed_form import closed_form
from mathloop.targets.levinson_conrey.schema import Candidate
from mathloop.targets.levinson_conrey.taylor import exp_lower, exp_upper, order_for

# Taylor orders make every truncation error <= 10^-TOL_EXP10 relative to c (scaled by R),
# far below the 10^-12 grid, so the certificate fails only within ~10^-30 of a grid point.
TOL_EXP10 = 30
GRID = Fraction(1, 10**12)


def _min1(x: Fraction) -> Fraction:
    return x if x < 1 else Fraction(1)


def taylor_orders(R: Fraction, b: Fraction, k0: Fraction) -> tuple[int, int]:
    """Return the Taylor orders (n for e^{2R}, n for e^{R(1−k0)}) used by the certificate."""
    scale_2r = max(abs(b), Fraction(1)) / _min1(R)
    return order_for(2 * R, scale_2r, TOL_EXP10), order_for(R * (1 - k0), 1 / _min1(R), TOL_EXP10)


def _sides(a: Fraction, b: Fraction, R: Fraction, k0: Fraction, n2r: int, nrhs: int) -> dict[str, Any]:
    """Return the exponential bounds, lhs, rhs and the integer inequality (D, N1, N2)."""
    side = "upper" if b >= 0 else "lower"
    x2r, xrhs = 2 * R, R * (1 - k0)
    e2r = exp_upper(x2r, n2r) if side == "upper" else exp_lower(x2r, n2r)
    erhs = exp_lower(xrhs, nrhs)
    lhs, rhs = a + b * e2r, erhs
    D = math.lcm(lhs.denominator, rhs.denominator)
    return {
        "exp_2R": {"x": x2r, "n": n2r, "side": side, "value": e2r},
        "exp_rhs": {"x": xrhs, "n": nrhs, "side": "lower", "value": erhs},
        "lhs": lhs,
        "rhs": rhs,
        "D": D,
        "N1": lhs.numerator * (D // lhs.denominator),
        "N2": rhs.numerator * (D // rhs.denominator),
    }


def _render(P, Q, R, theta, a, b, k0, s: Mapping[str, Any]) -> dict[str, Any]:
    """Return the certificate in its JSON shape (every rational as "p/q", big integers as strings)."""
    return {
        "theta": fraction_str(theta),
        "R": fraction_str(R),
        "P": [fraction_str(x) for x in P],
        "Q": [fraction_str(x) for x in Q],
        "a": fraction_str(a),
        "b": fraction_str(b),
        "k0": fraction_str(k0),
        "exp_2R": {**s["exp_2R"], "x": fraction_str(s["exp_2R"]["x"]), "value": fraction_str(s["exp_2R"]["value"])},
        "exp_rhs": {**s["exp_rhs"], "x": fraction_str(s["exp_rhs"]["x"]), "value": fraction_str(s["exp_rhs"]["value"])},
        "lhs": fraction_str(s["lhs"]),
        "rhs": fraction_str(s["rhs"]),
        "D": str(s["D"]),
        "N1": str(s["N1"]),
        "N2": str(s["N2"]),
    }


def build_certificate(
    P: Sequence[Fraction], Q: Sequence[Fraction], R: Fraction, theta: Fraction, a: Fraction, b: Fraction, k0: Fraction
) -> dict[str, Any] | None:
    """Return the certificate dict (JSON-ready strings) proving κ >= k0, or None if N1 > N2.

    Raises:
        ValueError: R <= 0 or k0 > 1 (x = R(1−k0) must be >= 0; κ <= 1 anyway since c >= 1).
    """
    if R <= 0 or k0 > 1:
        raise ValueError("certificate needs R > 0 and k0 <= 1")
    n2r, nrhs = taylor_orders(R, b, k0)
    s = _sides(a, b, R, k0, n2r, nrhs)
    if s["N1"] > s["N2"] or _c_lower(a, b, R, n2r) <= 0:  # log c needs c > 0, proved, not assumed
        return None
    return _render(P, Q, R, theta, a, b, k0, s)


def _c_lower(a: Fraction, b: Fraction, R: Fraction, n: int) -> Fraction:
    """Return a rigorous lower bound of c = a + b·e^{2R} (the Taylor side opposite to the certificate's),
    or 0 when the order is too small for the remainder bound (then c > 0 is not proved)."""
    try:
        return a + b * (exp_lower(2 * R, n) if b >= 0 else exp_upper(2 * R, n))
    except ValueError:
        return Fraction(0)


def recompute(cert: Mapping[str, Any]) -> tuple[int, int, int]:
    """Return (D, N1, N2) recomputed from the certificate's a, b, R, k0 and Taylor orders and sides.

    Pure: reads only the rationals and orders, never the stored values, so a verifier (or the
    Lean renderer) can compare its own result with the stored strings.

    Raises:
        ValueError: the certificate's x values or side are inconsistent with R, k0 and b.
    """
    R, a, b, k0 = (Fraction(cert[k]) for k in ("R", "a", "b", "k0"))
    s = _recomputed_sides(cert, R, a, b, k0)
    return s["D"], s["N1"], s["N2"]


def _recomputed_sides(cert: Mapping[str, Any], R: Fraction, a: Fraction, b: Fraction, k0: Fraction) -> dict[str, Any]:
    e2, er = cert["exp_2R"], cert["exp_rhs"]
    if Fraction(e2["x"]) != 2 * R or Fraction(er["x"]) != R * (1 - k0):
        raise ValueError("certificate: exp_2R.x must be 2R and exp_rhs.x must be R(1−k0)")
    if e2["side"] != ("upper" if b >= 0 else "lower") or er["side"] != "lower":
        raise ValueError("certificate: exp_2R.side must be upper iff b >= 0; exp_rhs.side must be lower")
    n2r, nrhs = e2["n"], er["n"]
    if not (isinstance(n2r, int) and isinstance(nrhs, int)) or isinstance(n2r, bool) or isinstance(nrhs, bool):
        raise ValueError("certificate: Taylor orders must be integers")
    if not (0 <= n2r <= 10_000 and 0 <= nrhs <= 10_000):
        raise ValueError("certificate: Taylor orders out of range")
    return _sides(a, b, R, k0, n2r, nrhs)


def verify_certificate(cert: Mapping[str, Any], theta_sup: Fraction) -> bool:
    """Return True iff the certificate proves κ >= k0 for its P, Q, R and a θ with 0 < θ < theta_sup.

    `theta_sup` is the contract's admissible range (1/2 for Levinson's theorem, 4/7 for Conrey's):
    a certificate is only as good as the mean-value theorem its θ rests on. Re-derives a, b from
    P, Q, R, θ (closed form), both exponential bounds from the stored Taylor orders, and every
    stored string; then checks D > 0 and N1 <= N2.
    """
    try:
        theta, R, k0 = Fraction(cert["theta"]), Fraction(cert["R"]), Fraction(cert["k0"])
        P = tuple(Fraction(x) for x in cert["P"])
        Q = tuple(Fraction(x) for x in cert["Q"])
        if R <= 0 or not 0 < theta < theta_sup or k0 > 1:
            return False
        if failures(Candidate(P, Q, R), theta, theta_sup):  # P(0)=0, P(1)=1, Q(0)=1, Q symmetric, ...
            return False
        cf = closed_form(P, Q, R, theta)
        s = _recomputed_sides(cert, R, cf.a, cf.b, k0)
        if _c_lower(cf.a, cf.b, R, s["exp_2R"]["n"]) <= 0:
            return False
    except (KeyError, ValueError, TypeError, ZeroDivisionError):
        return False
    return s["D"] > 0 and s["N1"] <= s["N2"] and _render(P, Q, R, theta, cf.a, cf.b, k0, s) == dict(cert)
