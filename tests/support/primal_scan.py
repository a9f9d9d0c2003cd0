"""A second code path for a `pair-correlation-rh` candidate (Fractions, numpy and mpmath only; no mathloop code).

The checker decides r >= 0 exactly (Chebyshev-to-monomial conversion, square-free part, Descartes
bisection) and computes B with its own per-piece moment formula. Here the same facts come another way:

* the tail (r-hat <= 0 for alpha >= 1) and the mass in Fractions, straight from the definition;
* J = c_0 + 2 int_0^1 alpha r-hat by the two-point rule for alpha times a linear function,
  int_a^b alpha y = (b - a) (a (2 y_a + y_b) + b (y_a + 2 y_b)) / 6 (exact), with r-hat(1) interpolated;
* P(theta) = c_0 + 2 sum c_j cos(j theta) summed term by term (not through Chebyshev or monomial form),
  sampled in floats on [0, pi], its lowest local minima refined
  by golden section in mpmath at `dps` digits, and P(0), P(pi) exactly in Fractions.

The scan is a cross-check, not a proof: it finds the minimum the exact checker must agree with.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from tests.support.ceiling_scan import _golden  # golden section in mpmath (test support, not the checker)


def parse(payload: dict[str, Any]) -> tuple[Fraction, Fraction, list[Fraction]]:
    """Return (h, A, node values c_0 .. c_{A/h - 1}) as Fractions."""
    return Fraction(payload["h"]), Fraction(payload["A"]), [Fraction(v) for v in payload["nodes"]]


def rhat(h: Fraction, nodes: list[Fraction], alpha: Fraction) -> Fraction:
    """Return r-hat(alpha) for alpha >= 0 (linear between nodes, 0 from A on)."""
    j, rest = divmod(alpha, h)
    j = int(j)
    left = nodes[j] if j < len(nodes) else Fraction(0)
    right = nodes[j + 1] if j + 1 < len(nodes) else Fraction(0)
    return left + (right - left) * rest / h


def exact_conditions(h: Fraction, nodes: list[Fraction]) -> list[str]:
    """Return the violated exact conditions: r-hat <= 0 from alpha = 1 on, mass > 0 (empty when all hold)."""
    bad = [f"r-hat({j * h}) > 0" for j in range(len(nodes)) if j * h >= 1 and nodes[j] > 0]
    bad += ["r-hat(1) > 0"] if rhat(h, nodes, Fraction(1)) > 0 else []
    bad += ["mass <= 0"] if h * (nodes[0] + 2 * sum(nodes[1:])) <= 0 else []
    return bad


def bound(h: Fraction, nodes: list[Fraction]) -> Fraction:
    """Return B = 2 - J / int r-hat exactly, by the two-point rule per piece of [0, 1]."""
    mass = h * (nodes[0] + 2 * sum(nodes[1:]))
    cuts = [j * h for j in range(int(1 / h) + 1)]
    if cuts[-1] != 1:
        cuts.append(Fraction(1))
    moment = Fraction(0)
    for a, b in zip(cuts, cuts[1:]):
        ya, yb = rhat(h, nodes, a), rhat(h, nodes, b)
        moment += (b - a) * (a * (2 * ya + yb) + b * (ya + 2 * yb)) / 6
    return 2 - (nodes[0] + 2 * moment) / mass


def p_exact(nodes: list[Fraction], at_pi: bool) -> Fraction:
    """Return P(0) or P(pi) exactly."""
    return nodes[0] + 2 * sum(c * (-1 if at_pi and j % 2 else 1) for j, c in enumerate(nodes) if j)


def scan_minimum(payload: dict[str, Any], *, per_node: int = 64, keep: int = 6, dps: int = 30) -> tuple[float, float]:
    """Return (min P, theta at the min): float sample, mpmath golden section on the lowest minima, exact ends."""
    _, _, nodes = parse(payload)
    n = len(nodes)
    c = np.array([float(v) for v in nodes])
    theta = np.linspace(0.0, np.pi, per_node * n + 1)
    vals = c[0] + 2.0 * np.cos(np.outer(theta, np.arange(1, n))) @ c[1:]
    inner = [i for i in range(1, len(theta) - 1) if vals[i] <= vals[i - 1] and vals[i] <= vals[i + 1]]
    inner = sorted(inner, key=lambda i: vals[i])[:keep]
    with mpmath.workdps(dps):
        cm = [mpmath.mpf(v.numerator) / v.denominator for v in nodes]

        def p(t):
            return cm[0] + 2 * mpmath.fsum(cm[j] * mpmath.cos(j * t) for j in range(1, n))

        best = [(float(p_exact(nodes, False)), 0.0), (float(p_exact(nodes, True)), float(np.pi))]
        for i in inner:
            at, low = _golden(p, mpmath.mpf(theta[i - 1]), mpmath.mpf(theta[i + 1]), steps=70)
            best.append((float(low), float(at)))
    return min(best)
