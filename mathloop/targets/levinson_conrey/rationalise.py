"""Turn a float optimum into an exact candidate payload within the contract's limits, and back."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any, Mapping

import numpy as np

from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey.optimise import Optimum, p_monomials, q_from_odd_powers, q_odd_powers
from mathloop.targets.levinson_conrey.schema import Candidate, Limits, parse_payload

R_DENOMINATOR = 10**9


def _p_exact(a: np.ndarray, scale: int) -> tuple[Fraction, ...]:
    """Return P with P(0) = 0 exactly and P(1) = 1 exactly (the linear coefficient absorbs the rest)."""
    high = [Fraction(round(float(x) * scale), scale) for x in a[2:]]
    return (Fraction(0), 1 - sum(high, Fraction(0)), *high)


def _q_exact(d: Mapping[int, float], scale: int, dQ: int) -> tuple[Fraction, ...]:
    """Return Q = 1 − Σd_k + Σ d_k (1−2v)^k exactly: symmetric with Q(0) = 1 by construction."""
    dk = {k: Fraction(round(v * scale), scale) for k, v in d.items()}
    out = [Fraction(0)] * (dQ + 1)
    out[0] = 1 - sum(dk.values(), Fraction(0))
    for k, v in dk.items():
        for j in range(k + 1):
            out[j] += v * comb(k, j) * (-2) ** j
    return tuple(out)


def _strip(p: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    p = list(p)
    while len(p) > 1 and p[-1] == 0:
        p.pop()
    return tuple(p)


def to_payload(opt: Optimum, limits: Limits) -> dict[str, Any] | None:
    """Return the canonical exact payload closest to `opt` that fits the limits, or None.

    Coefficients are rounded on a decimal grid 10^-s, the finest s <= 12 that fits; the
    constraints are restored exactly afterwards, so rounding never breaks admissibility.
    """
    a = p_monomials(opt)
    d = q_odd_powers(opt)
    R = Fraction(round(opt.R * R_DENOMINATOR), R_DENOMINATOR)
    for s in range(12, 2, -1):
        cand = Candidate(_strip(_p_exact(a, 10**s)), _strip(_q_exact(d, 10**s, opt.dQ)), R)
        try:
            return parse_payload(cand.payload(), limits).payload()
        except Malformed:
            continue
    return None


def project(c: Candidate, dQ: int) -> np.ndarray:
    """Return the Legendre coefficients q (odd k <= dQ) of the symmetric part of Q, as a start.

    With y = 1 − 2v, a symmetric Q is a constant plus an odd polynomial in y; a non-symmetric Q
    (a model's guess) is replaced by its odd part, normalised later by Q(0) = 1.
    """
    # Q(v) = Σ c_j v^j with v = (1 − y)/2: expand in powers of y.
    power_y = np.zeros(max(len(c.Q), dQ + 1))
    for j, cj in enumerate(c.Q):
        for i in range(j + 1):
            power_y[i] += float(cj) * comb(j, i) * (-1) ** i / 2**j
    return q_from_odd_powers({k: power_y[k] for k in range(1, len(power_y), 2)}, dQ)


def degrees(c: Candidate) -> tuple[int, int]:
    """Return (dP, dQ) with dP >= 1 and dQ odd >= 1 covering the candidate's degrees."""
    dP, dQ = max(1, len(c.P) - 1), max(1, len(c.Q) - 1)
    return dP, dQ if dQ % 2 else dQ + 1
