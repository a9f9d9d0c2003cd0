"""The admissibility conditions of the Levinson–Conrey inequality, each decided in exact rationals."""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from mathloop.domain import fraction_str
from mathloop.targets.polynomial import evaluate, reflect
from mathloop.targets.levinson_conrey.schema import Candidate

# Every check returns None when the condition holds, else the reason it fails.
Check = Callable[[Candidate, Fraction, Fraction], "str | None"]


def p_at_zero(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    v = c.P[0]
    return None if v == 0 else f"P(0) = {fraction_str(v)}, must be 0"


def p_at_one(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    v = evaluate(c.P, Fraction(1))
    return None if v == 1 else f"P(1) = {fraction_str(v)}, must be 1"


def q_at_zero(c: Candidate, theta: Fraction, theta_sup: Fraction) -> str | None:
    v = c.Q[0]
    return None if v == 1 else f"Q(0) = {fraction_str(v)}, must be 1"


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
    return f"θ = {fraction_str(theta)} is not in (0, {fraction_str(theta_sup)}) (the contract's admissible range)"


# Checker name -> condition; the order is the order reasons are reported in.
CONDITIONS: dict[str, Check] = {
    "p-at-zero": p_at_zero,
    "p-at-one": p_at_one,
    "q-at-zero": q_at_zero,
    "q-symmetric": q_symmetric,
    "r-positive": r_positive,
    "theta-admissible": theta_admissible,
}


def failures(c: Candidate, theta: Fraction, theta_sup: Fraction) -> dict[str, str]:
    """Return {checker name: reason} for every admissibility condition that fails."""
    out = {}
    for name, check in CONDITIONS.items():
        why = check(c, theta, theta_sup)
        if why is not None:
            out[name] = why
    return out
