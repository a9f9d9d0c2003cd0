"""A second code path for a ceiling dual (Fractions, numpy and mpmath only; no mathloop mathematics).

The checker evaluates f(t) = 1 + h sinc^2(pi t) P(2 pi t) + 2 sum w_i cos(2 pi (a_i/h) t) through P in
monomial form with Arb balls. Here the same f comes from a different formula: with the second differences
d_j = k_{j+1} - 2 k_j + k_{j-1} of the even node sequence (k_{-1} = k_1, k_{M+1} = 0),
2 (1 - cos theta) P(theta) = -D(theta), D = d_0 + 2 sum_{j>=1} d_j cos(j theta), so

    f(t) = 1 - h D(2 pi t) / (4 pi^2 t^2) + 2 sum_i w_i cos(2 pi (a_i/h) t)      (t > 0),

and D has a term only where k bends (a few hundred knots, not every node). The scan samples f on [0, 1]
(one period t of the oscillating part when every a_i lies on hZ) and a(t) on [0, 1/2] in floats, then
refines the lowest local minima with mpmath at 40 digits (golden section on a bracket of the sample).
Nodes rounded one by one leave second differences of rounding size (~10^-12) between the knots; mpmath sums every
term (a few hundred). Bounding the small ones instead, as this path once did, costs h 2 sum|d_j| / (4 pi^2 t^2),
which near t = 0 exceeds f itself: a (1/80, 60) certificate's f(0.000885) = 3.0e-7 read as -2.6e-6.

`sampled_minimum` is a heuristic, not a proof: a dip narrower than the sample spacing can be missed (the
primal's first second path missed one of 1e-10 at (1/80, 5); tests/support/primal_scan.py now encloses that
minimum rigorously). The ceiling's certificates keep margins of ~5e-6, and the checker itself certifies f >= 0
and a >= 0 in Arb cells; this path cross-checks the value and refutes the raised duals, it proves nothing.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import numpy as np


def parse(payload: dict[str, Any]) -> dict[str, Any]:
    """Return h, L, nodes, masses (at, weight) as Fractions from a candidate payload (node or knot form)."""
    h, A, L = Fraction(payload["h"]), Fraction(payload["A"]), Fraction(payload["L"])
    if "knots" in payload:
        nodes = knot_nodes(h, A, L, [(Fraction(q["at"]), Fraction(q["k"])) for q in payload["knots"]])
    else:
        nodes = [Fraction(v) for v in payload["nodes"]]
    return {"h": h, "A": A, "L": L, "nodes": nodes,
            "masses": [(Fraction(m["at"]), Fraction(m["weight"])) for m in payload.get("masses", [])]}


def knot_nodes(h: Fraction, A: Fraction, L: Fraction, knots: list[tuple[Fraction, Fraction]]) -> list[Fraction]:
    """Return k(j h), j = 0 .. A/h, of the knot form: |alpha| - L up to 1, the knots, 0 at A, linear in between."""
    points = [(Fraction(0), -L), (Fraction(1), 1 - L), *knots, (A, Fraction(0))]
    out, seg = [], 0
    for j in range(int(A / h) + 1):
        x = j * h
        while points[seg + 1][0] < x:
            seg += 1
        (x0, y0), (x1, y1) = points[seg], points[seg + 1]
        out.append(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return out


def exact_conditions(c: dict[str, Any]) -> list[str]:
    """Return the violated exact conditions (i), (ii), support and masses (empty when all hold)."""
    h, L, k = c["h"], c["L"], c["nodes"]
    n = int(1 / h)
    bad = [f"(i) at j = {j}" for j in range(n + 1) if k[j] != j * h - L]
    bad += [f"(ii) at j = {j}" for j in range(n, len(k)) if k[j] < -L]
    bad += ["support: last node is not 0"] if k[-1] != 0 else []
    bad += [f"mass at {a} with weight {w}" for a, w in c["masses"] if a < 1 or w < 0]
    return bad


def second_differences(c: dict[str, Any]) -> dict[int, Fraction]:
    """Return the nonzero d_j (j >= 0) of the even node sequence, exactly."""
    k = c["nodes"] + [Fraction(0)]
    ext = lambda j: k[abs(j)] if abs(j) < len(k) else Fraction(0)  # noqa: E731
    d = {j: ext(j + 1) - 2 * ext(j) + ext(j - 1) for j in range(len(k))}
    return {j: v for j, v in d.items() if v != 0}


class Dual:
    """f and a of a parsed dual, in floats (vectorised) and in mpmath (every term of D, at the working precision)."""

    def __init__(self, c: dict[str, Any]) -> None:
        self.c = c
        self.d = second_differences(c)
        self.j = np.array(sorted(self.d), dtype=float)
        self.dv = np.array([float(self.d[int(j)]) * (1.0 if j == 0 else 2.0) for j in self.j])
        self.h = float(c["h"])
        self.freq = np.array([float(a / c["h"]) for a, _ in c["masses"]])
        self.w = np.array([float(w) for _, w in c["masses"]])

    def a(self, t: np.ndarray) -> np.ndarray:
        return 1.0 + (2.0 * np.cos(2 * np.pi * np.outer(t, self.freq)) @ self.w if len(self.w) else 0.0)

    def f(self, t: np.ndarray) -> np.ndarray:
        D = np.cos(2 * np.pi * np.outer(t, self.j)) @ self.dv
        return 1.0 - self.h * D / (4 * np.pi**2 * t * t) + self.a(t) - 1.0

    def _mp(self) -> tuple:
        """Return the mpf constants at the working precision (converted once per precision)."""
        key = mpmath.mp.prec
        if getattr(self, "_key", None) != key:
            q = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
            self._key = key
            self._consts = ([(j, q(v) * (1 if j == 0 else 2)) for j, v in self.d.items()], q(self.c["h"]),
                            [(q(a / self.c["h"]), 2 * q(w)) for a, w in self.c["masses"]])
        return self._consts

    def f_mp(self, t: mpmath.mpf) -> mpmath.mpf:
        """Return f(t) at the working precision (t > 0)."""
        terms, h, _ = self._mp()
        two_pi_t = 2 * mpmath.pi * t
        D = mpmath.fsum(v * mpmath.cos(j * two_pi_t) for j, v in terms)
        return 1 - h * D / (4 * mpmath.pi**2 * t * t) + self.a_mp(t) - 1

    def a_mp(self, t: mpmath.mpf) -> mpmath.mpf:
        masses = self._mp()[2]
        return 1 + mpmath.fsum(w2 * mpmath.cos(2 * mpmath.pi * b * t) for b, w2 in masses)


def _golden(fn, lo: mpmath.mpf, hi: mpmath.mpf, steps: int = 60) -> tuple[mpmath.mpf, mpmath.mpf]:
    g = (mpmath.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = fn(x1), fn(x2)
    for _ in range(steps):
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = fn(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = fn(x2)
    return (x1, f1) if f1 < f2 else (x2, f2)


def sampled_minimum(payload: dict[str, Any], *, per_unit: int = 24, keep: int = 12, dps: int = 40,
                 which: str = "f") -> tuple[float, float]:
    """Return (a sampled min value, t) of f on [0, 1] (or of a on [0, 1/2]): a float sample, then the `keep`
    lowest sampled local minima refined with mpmath at `dps` digits; f(0) = 1 + h P(0) is taken exactly.
    A heuristic: it can miss a dip narrower than the sample spacing (see the module doc)."""
    c = parse(payload)
    dual = Dual(c)
    top = max([len(c["nodes"])] + [int(x) + 1 for x in dual.freq])
    end = 0.5 if which == "a" else 1.0
    t = np.linspace(0.0, end, per_unit * top + 1)[1:]
    fn, fn_mp = (dual.a, dual.a_mp) if which == "a" else (dual.f, dual.f_mp)
    v = fn(t)
    inner = np.flatnonzero((v[1:-1] <= v[:-2]) & (v[1:-1] <= v[2:])) + 1
    idx = inner[np.argsort(v[inner])[:keep]]
    step = t[1] - t[0]
    best = (float("inf"), 0.0)
    with mpmath.workdps(dps):
        for i in idx:
            lo, hi = mpmath.mpf(float(t[i] - step)), mpmath.mpf(float(t[i] + step))
            x, fx = _golden(fn_mp, max(lo, mpmath.mpf(10) ** -12), hi)
            if fx < best[0]:
                best = (float(fx), float(x))
        ends = [(float(fn_mp(mpmath.mpf(end))), end)]
        if which == "f":
            k = c["nodes"]
            ends.append((float(1 + c["h"] * (k[0] + 2 * sum(k[1:])) + sum(2 * w for _, w in c["masses"])), 0.0))
        else:
            ends.append((float(dual.a_mp(mpmath.mpf(0))), 0.0))
    return min([best, *ends])
