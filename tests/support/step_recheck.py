"""An independent re-check of a step-function record (C1a, C1b): it shares no code with mathloop's checkers.

    python -m tests.support.step_recheck c1b FILE     # FILE: {"heights": [...]} or an exported certificate
    python -m tests.support.step_recheck c1a FILE

Exact path: the heights are read with `fractions.Fraction` from the decimal/rational strings (nothing of
mathloop's payload grammar or file readers), scaled to integers over their common denominator with `math.lcm`,
and every autocorrelation sum is computed by Kronecker substitution with Python's own big integers (no flint):
pack Σ a_i·2^(B·i), multiply, unpack base 2^B. The maximum term is then recomputed by a direct double loop.
Float path: numpy's direct `np.correlate` / `np.convolve` in float64 (no FFT), which must agree with the exact
value to 1e-12.

C1b (constants/1b.md; Haugland's normalisation moved to [−1, 1]): f_i = n·h_i/(2Σh), admissible iff every f_i <= 1,
value max over shifts k of (2/n)·Σ_i f_i·(1 − f_{i+k}) = max_k (2A·P_k − n·Q_k)/(2A²) with A = Σa,
P_k = Σ_{0<=i, i+k<n} a_i, Q_k = Σ a_i·a_{i+k}.
C1a (constants/1a.md): value 2n·max_m c_m/(Σa)² with c_m = Σ_{i+j=m} a_i·a_j.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np


def read_heights(path: Path) -> list[Fraction]:
    """Return the heights of a {"heights": [...]} file or of an exported certificate (its "candidate")."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if "candidate" in data:
        data = data["candidate"]
    return [Fraction(h) for h in data["heights"]]


def integers(hs: list[Fraction]) -> list[int]:
    den = math.lcm(*(h.denominator for h in hs))
    return [int(h * den) for h in hs]


def _pack(xs: list[int], bits: int) -> int:
    """Return Σ x_i·2^(bits·i) (bits a multiple of 8, every x_i < 2^bits), through bytes: linear time."""
    width = bits // 8
    return int.from_bytes(b"".join(x.to_bytes(width, "little") for x in xs), "little")


def products(a: list[int], b: list[int]) -> list[int]:
    """Return the coefficients of (Σ a_i X^i)(Σ b_j X^j) for non-negative integers, by Kronecker substitution."""
    width = ((len(a) * max(a) * max(b)).bit_length() + 2 + 7) // 8   # bytes per coefficient, no carries
    size = len(a) + len(b) - 1
    raw = (_pack(a, 8 * width) * _pack(b, 8 * width)).to_bytes(width * size + 1, "little")
    return [int.from_bytes(raw[width * m:width * (m + 1)], "little") for m in range(size)]


def c1b(hs: list[Fraction]) -> tuple[Fraction, int]:
    """Return (the exact overlap, the shift attaining it); raise ValueError when not admissible."""
    a = integers(hs)
    n, A = len(a), sum(a)
    if min(a) < 0 or A <= 0 or any(n * x > 2 * A for x in a):
        raise ValueError("not admissible (a height negative, all zero, or a normalised height above 1)")
    q = products(a, a[::-1])  # q[n − 1 − k] = Σ_i a_i·a_{i+k}
    prefix = [0]
    for x in a:
        prefix.append(prefix[-1] + x)
    nums = {}
    for k in range(-(n - 1), n):
        p = prefix[n - k] if k >= 0 else A - prefix[-k]
        nums[k] = 2 * A * p - n * q[n - 1 - k]
    k_best = max(nums, key=lambda k: (nums[k], -k))
    direct = sum(a[i] * a[i + k_best] for i in range(max(0, -k_best), min(n, n - k_best)))
    if direct != q[n - 1 - k_best]:
        raise AssertionError("the Kronecker product disagrees with the direct sum at the maximum")
    return Fraction(nums[k_best], 2 * A * A), k_best


def c1a(hs: list[Fraction]) -> tuple[Fraction, int]:
    """Return (the exact ratio 2n·max c/(Σa)², the index m attaining max c)."""
    a = integers(hs)
    n = len(a)
    if min(a) < 0 or sum(a) <= 0:
        raise ValueError("not admissible (a height negative, or all zero)")
    c = products(a, a)
    m = max(range(len(c)), key=lambda i: c[i])
    direct = sum(a[i] * a[m - i] for i in range(max(0, m - n + 1), min(n, m + 1)))
    if direct != c[m]:
        raise AssertionError("the Kronecker product disagrees with the direct sum at the maximum")
    return Fraction(2 * n * c[m], sum(a) ** 2), m


def float_value(which: str, hs: list[Fraction]) -> float:
    h = np.array([float(x) for x in hs])
    n = len(h)
    if which == "c1b":
        f = h * n / (2 * h.sum())
        return float((np.correlate(1 - f, f, mode="full") * 2 / n).max())
    return float(2 * n * np.convolve(h, h).max() / h.sum() ** 2)


def recheck(which: str, path: Path) -> tuple[Fraction, float]:
    """Return (exact value, float value) after checking that they agree to 1e-12."""
    hs = read_heights(path)
    exact, _ = (c1b if which == "c1b" else c1a)(hs)
    fl = float_value(which, hs)
    if abs(float(exact) - fl) > 1e-12:
        raise AssertionError(f"exact {float(exact)!r} and float {fl!r} disagree")
    return exact, fl


if __name__ == "__main__":
    v, fl = recheck(sys.argv[1], Path(sys.argv[2]))
    up = -((-v.numerator * 10**12) // v.denominator)
    print(f"exact {v.numerator}/{v.denominator}\nrounded up to 12 places {Fraction(up, 10**12)} "
          f"= {up // 10**12}.{up % 10**12:012d}\nfloat {fl!r}")
