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
from mathloop.targets import side_conditions
from mathloop.targets.feng_przz.schema import Candidate
from mathloop.targets.levinson_conrey.admissibility import q_at_zero, q_symmetric, r_positive, theta_admissible
from mathloop.targets.polynomial import evaluate

Check = Callable[[Candidate, Fraction, Fraction], "str | None"]
# Q(0) = 1, Q symmetric, R > 0 and 0 < θ < theta_sup read only c.Q, c.R and θ: levinson-conrey's checks serve as they are.


def p_at_zero(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    bad = [i + 1 for i, p in enumerate(c.P) if p[0] != 0]
    return None if not bad else "; ".join(f"P{i}(0) = {fraction_str(c.P[i - 1][0])}, must be 0" for i in bad)


def p1_at_one(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    v = evaluate(c.P[0], Fraction(1))
    return None if v == 1 else f"P1(1) = {fraction_str(v)}, must be 1"


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
    return side_conditions.failures(CONDITIONS, c, theta, theta_sup)
