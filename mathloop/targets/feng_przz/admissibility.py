"""The side conditions of the feng-przz bound, each decided in exact rationals.

What the evaluation assumes (docs/przz.md, step 4): every P_k(0) = 0 (otherwise the Mellin
transform has distribution terms the closed form omits); P₁(1) = 1 (the mollifier is normalised
as in Levinson–Conrey; the pieces with k ≥ 2 logarithms carry no condition at 1); Q(0) = 1 and
Q(x) + Q(1−x) constant (Levinson's method, Conrey); R > 0; 0 < θ < theta_sup.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from mathloop.domain import fraction_str
from mathloop.targets.feng_przz.schema import Candidate
from mathloop.targets.polynomial import evaluate, reflect

Check = Callable[[Candidate, Fraction, Fraction], "str | None"]


def p_at_zero(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    bad = [i + 1 for i, p in enumerate(c.P) if p[0] != 0]
    return None if not bad else "; ".join(f"P{i}(0) = {fraction_str(c.P[i - 1][0])}, must be 0" for i in bad)


def p1_at_one(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    v = evaluate(c.P[0], Fraction(1))
    return None if v == 1 else f"P1(1) = {fraction_str(v)}, must be 1"


def q_at_zero(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    return None if c.Q[0] == 1 else f"Q(0) = {fraction_str(c.Q[0])}, must be 1"


def q_symmetric(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    s = [x + y for x, y in zip(c.Q, reflect(c.Q))]
    bad = [(k, v) for k, v in enumerate(s) if k >= 1 and v != 0]
    if not bad:
        return None
    k, v = bad[0]
    return f"Q(x)+Q(1-x) is not constant: its coefficient of x^{k} is {fraction_str(v)}"


def r_positive(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    return None if c.R > 0 else f"R = {fraction_str(c.R)}, must be > 0"


def theta_admissible(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    if 0 < theta < theta_sup:
        return None
    return f"θ = {fraction_str(theta)} is not in (0, {fraction_str(theta_sup)})"


CONDITIONS: dict[str, Check] = {
    "p-at-zero": p_at_zero,
    "p1-at-one": p1_at_one,
    "q-at-zero": q_at_zero,
    "q-symmetric": q_symmetric,
    "r-positive": r_positive,
    "theta-admissible": theta_admissible,
}


def failures(c: Candidate, theta: Fraction, theta_sup: Fraction) -> dict[str, str]:
    """Return {checker name: reason} for every condition that fails."""
    out = {}
    for name, check in CONDITIONS.items():
        why = check(c, theta, theta_sup)
        if why is not None:
            out[name] = why
    return out
