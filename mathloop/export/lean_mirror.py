"""Python mirror of `lean/Mathloop/Basic.lean` and of the rendered Levinson–Conrey claims.

Every claim is re-verified here in exact integers before it is rendered, so a rendering never
asserts something false (that would be a checker bug). The functions follow the Lean
definitions line by line; Nat subtraction truncates at 0 as in Lean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence


def nsub(a: int, b: int) -> int:
    """Return Lean's truncated Nat subtraction."""
    return max(a - b, 0)


def taylor_num(p: int, q: int, n: int) -> int:
    """Mirror of `Mathloop.taylorNum`: numerator of ∑_{k≤n} (p/q)^k/k! over q^n·n!.

    >>> taylor_num(1, 1, 3), taylor_den(1, 3)
    (16, 6)
    """
    t = 1
    for m in range(1, n + 1):
        t = t * (q * m) + p**m
    return t


def taylor_den(q: int, n: int) -> int:
    """Mirror of `Mathloop.taylorDen`: q^n·n!."""
    return q**n * math.factorial(n)


def exp_upper_num(p: int, q: int, n: int) -> int:
    """Mirror of `Mathloop.expUpperNum`."""
    return taylor_num(p, q, n) * (q * (n + 1)) * nsub((n + 2) * q, p) + p ** (n + 1) * ((n + 2) * q)


def exp_upper_den(p: int, q: int, n: int) -> int:
    """Mirror of `Mathloop.expUpperDen`."""
    return taylor_den(q, n + 1) * nsub((n + 2) * q, p)


def poly_eval(cs: Sequence[int], x: int) -> int:
    """Mirror of `Mathloop.Poly.eval` (Horner)."""
    acc = 0
    for c in reversed(cs):
        acc = c + x * acc
    return acc


def poly_add(p: Sequence[int], q: Sequence[int]) -> list[int]:
    """Mirror of `Mathloop.Poly.add` (the longer tail is kept as is)."""
    n = max(len(p), len(q))
    return [(p[i] if i < len(p) else 0) + (q[i] if i < len(q) else 0) for i in range(n)]


def poly_reflect(p: Sequence[int]) -> list[int]:
    """Mirror of `Mathloop.Poly.reflect`: coefficients of p(1 − x).

    >>> poly_reflect([1, -1])
    [0, 1]
    """
    out: list[int] = []
    for c in reversed(p):
        shifted = poly_add(out, [0] + [-v for v in out])  # (1 − x)·out
        out = poly_add([c], shifted)
    return out


def poly_is_const(p: Sequence[int]) -> bool:
    """Mirror of `Mathloop.Poly.isConst`."""
    return all(c == 0 for c in p[1:])


def common_denominator(cs: Sequence[Fraction]) -> tuple[list[int], int]:
    """Return (integer coefficients, d) with cs[k] = ints[k]/d and d the lcm of the denominators.

    >>> common_denominator([Fraction(1, 2), Fraction(-1, 3)])
    ([3, -2], 6)
    """
    d = 1
    for c in cs:
        d = math.lcm(d, c.denominator)
    return [int(c * d) for c in cs], d


@dataclass(frozen=True)
class LcFacts:
    """The data of a rendered Levinson–Conrey certificate, with the claims checked in Python."""

    theta: Fraction
    R: Fraction
    P: list[int]
    Pd: int
    Q: list[int]
    Qd: int
    a: Fraction
    b: Fraction
    k0: Fraction
    x1: Fraction
    n1: int
    side: str
    v1: Fraction
    x2: Fraction
    n2: int
    v2: Fraction
    D: int
    N1: int
    N2: int

    def _t1(self) -> tuple[int, int]:
        p, q, n = self.x1.numerator, self.x1.denominator, self.n1
        if self.side == "upper":
            return exp_upper_num(p, q, n), exp_upper_den(p, q, n)
        return taylor_num(p, q, n), taylor_den(q, n)

    def _other(self) -> tuple[int, int]:
        p, q, n = self.x1.numerator, self.x1.denominator, self.n1
        if self.side == "upper":
            return taylor_num(p, q, n), taylor_den(q, n)
        return exp_upper_num(p, q, n), exp_upper_den(p, q, n)

    def checks(self) -> dict[str, bool]:
        """Return {claim name: holds?} mirroring the rendered Lean claims one by one."""
        th, R, a, b, k0 = self.theta, self.R, self.a, self.b, self.k0
        t1n, t1d = self._t1()
        on, od = self._other()
        t2n, t2d = taylor_num(self.x2.numerator, self.x2.denominator, self.n2), taylor_den(self.x2.denominator, self.n2)
        x1n, x1d, x2n, x2d = self.x1.numerator, self.x1.denominator, self.x2.numerator, self.x2.denominator
        return {
            "parameters_admissible": 0 < th.numerator and 7 * th.numerator < 4 * th.denominator and R.numerator > 0,
            "P_zero": self.Pd > 0 and poly_eval(self.P, 0) == 0,
            "P_one": poly_eval(self.P, 1) == self.Pd,
            "Q_zero": self.Qd > 0 and poly_eval(self.Q, 0) == self.Qd,
            "Q_symmetric": poly_is_const(poly_add(self.Q, poly_reflect(self.Q))),
            "exp_arguments": x1n >= 0 and x2n >= 0 and x1n * R.denominator == 2 * R.numerator * x1d
            and x1n < (self.n1 + 2) * x1d
            and x2n * (R.denominator * k0.denominator) == R.numerator * (k0.denominator - k0.numerator) * x2d,
            "exp_bound_side": (b.numerator >= 0) if self.side == "upper" else (b.numerator < 0),
            "exp_values": self.v1.numerator >= 0 and self.v2.numerator >= 0
            and self.v1.numerator * t1d == t1n * self.v1.denominator
            and self.v2.numerator * t2d == t2n * self.v2.denominator,
            "c_positive": 0 < a.numerator * b.denominator * od + b.numerator * a.denominator * on,
            "certificate_identities": self.D > 0
            and self.N1 * (a.denominator * b.denominator * self.v1.denominator)
            == (a.numerator * b.denominator * self.v1.denominator + b.numerator * a.denominator * self.v1.numerator) * self.D
            and self.N2 * self.v2.denominator == self.v2.numerator * self.D,
            "kappa_certificate": self.N1 <= self.N2,
        }

    def failures(self) -> list[str]:
        """Return the names of the claims that do not hold (empty when the certificate is sound)."""
        return [name for name, ok in self.checks().items() if not ok]
