"""The rational κ certificate: Σ_k w_k·E_k <= S_n(R(1−k₀)), with E_k Taylor enclosures of e^{x_k}.

c = Σ_k w_k e^{x_k} exactly (main_term.py, rational w_k and x_k >= 0). With E_k an upper Taylor
bound of e^{x_k} when w_k >= 0 and the Taylor sum (a lower bound) when w_k < 0, lhs = Σ w_k E_k >= c;
rhs = S_n(R(1−k₀)) <= e^{R(1−k₀)}. lhs <= rhs gives c <= e^{R(1−k₀)}, i.e. κ = 1 − log(c)/R >= k₀,
provided c > 0, which the opposite enclosures prove (c_lower > 0). The weights are ~10¹¹ with
c ~ 2 (cancellation), so the Taylor orders are chosen for a 10^-TOL_EXP10 absolute error per term.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import fraction_str
from mathloop.targets.feng_przz.admissibility import failures
from mathloop.targets.feng_przz.main_term import ExpSum, main_term
from mathloop.targets.feng_przz.schema import Candidate
from mathloop.targets.levinson_conrey.taylor import exp_upper, order_for, taylor_sum

TOL_EXP10 = 40
GRID = Fraction(1, 10**12)
MAX_ORDER = 10_000


def _bound(w: Fraction, x: Fraction, n: int, upper_side: bool) -> Fraction:
    """Return w·E with E the upper (upper_side) or lower Taylor enclosure of e^x."""
    return w * (exp_upper(x, n) if upper_side else taylor_sum(x, n))


def sides(c: ExpSum, R: Fraction, k0: Fraction, orders: list[int], n_rhs: int) -> tuple[Fraction, Fraction, Fraction]:
    """Return (lhs >= c, c_lower <= c, rhs <= e^{R(1−k0)}) for the given Taylor orders.

    Raises:
        ValueError: an exponent is negative or an order too small for the remainder bound.
    """
    lhs = c_low = Fraction(0)
    for (x, w), n in zip(c.terms, orders, strict=True):
        if x < 0:
            raise ValueError("certificate: negative exponent (not supported)")
        lhs += _bound(w, x, n, w >= 0)
        c_low += _bound(w, x, n, w < 0)
    return lhs, c_low, taylor_sum(R * (1 - k0), n_rhs)


def orders_for(c: ExpSum, R: Fraction, k0: Fraction) -> tuple[list[int], int]:
    """Return deterministic Taylor orders: every term's error <= 10^-TOL_EXP10 (scaled by 1/min(R, 1))."""
    inv_r = 1 / min(R, Fraction(1))
    orders = [order_for(x, max(abs(w), Fraction(1)) * inv_r, TOL_EXP10) for x, w in c.terms]
    return orders, order_for(R * (1 - k0), inv_r, TOL_EXP10)


def _render(cand: Candidate, pieces, theta: Fraction, c: ExpSum, k0: Fraction, orders, n_rhs) -> dict[str, Any]:
    return {
        "theta": fraction_str(theta),
        "pieces": list(pieces),
        **{k: v for k, v in cand.payload().items()},
        "k0": fraction_str(k0),
        "terms": [{"x": fraction_str(x), "w": fraction_str(w), "n": n} for (x, w), n in zip(c.terms, orders)],
        "rhs": {"x": fraction_str(cand.R * (1 - k0)), "n": n_rhs},
    }


def build_certificate(cand: Candidate, pieces, theta: Fraction, c: ExpSum, k0: Fraction) -> dict[str, Any] | None:
    """Return the certificate (JSON-ready) proving κ >= k0 from the exact c, or None if it does not hold."""
    if cand.R <= 0 or k0 > 1 or any(x < 0 for x, _ in c.terms):
        return None
    orders, n_rhs = orders_for(c, cand.R, k0)
    lhs, c_low, rhs = sides(c, cand.R, k0, orders, n_rhs)
    if lhs > rhs or c_low <= 0:
        return None
    return _render(cand, pieces, theta, c, k0, orders, n_rhs)


def candidate_of(cert: Mapping[str, Any]) -> tuple[Candidate, tuple[int, ...], Fraction, Fraction]:
    """Return (candidate, pieces, θ, k0) read from a certificate. Raises KeyError/ValueError/TypeError."""
    pieces = tuple(int(k) for k in cert["pieces"])
    P = tuple(tuple(Fraction(x) for x in cert[f"P{i + 1}"]) for i in range(len(pieces)))
    cand = Candidate(P, tuple(Fraction(x) for x in cert["Q"]), Fraction(cert["R"]))
    return cand, pieces, Fraction(cert["theta"]), Fraction(cert["k0"])


def verify_certificate(cert: Mapping[str, Any], theta_sup: Fraction) -> bool:
    """Return True iff the certificate proves κ >= k0 (in exact rationals) for its candidate at a θ < theta_sup.

    Re-derives c = Σ w e^x from P₁..P_K, Q, R, θ (the exact main term), re-checks the side conditions
    and the inequality with the stored Taylor orders, and compares every stored string.
    """
    try:
        cand, pieces, theta, k0 = candidate_of(cert)
        if failures(cand, theta, theta_sup) or k0 > 1:
            return False
        orders = [t["n"] for t in cert["terms"]]
        n_rhs = cert["rhs"]["n"]
        if any(isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_ORDER for n in [*orders, n_rhs]):
            return False
        c = main_term(list(zip(pieces, cand.P)), cand.Q, cand.R, theta)
        lhs, c_low, rhs = sides(c, cand.R, k0, orders, n_rhs)
    except (KeyError, ValueError, TypeError, ZeroDivisionError, AttributeError):
        return False
    return lhs <= rhs and c_low > 0 and _render(cand, pieces, theta, c, k0, orders, n_rhs) == dict(cert)
