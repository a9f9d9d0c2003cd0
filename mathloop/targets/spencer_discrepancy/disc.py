"""The exact discrepancy disc(B) = min over x in {±1}^n of max_i |(Bx)_i| of an integer matrix, and the certified bound.

Two code paths. `discrepancy` splits the columns into a left part L and a right part R, tabulates the partial sums
B_L x_L (x_1 = +1 fixed: disc(B) is unchanged by x -> −x) and B_R x_R once, and takes the minimum over every pair
of the row-wise maximum |B_L x_L + B_R x_R| in numpy int64 blocks: 2^(n−1)·n additions, exact. `discrepancy_gray`
walks the same 2^(n−1) sign vectors in Gray-code order in plain Python integers, updating Bx by ±2 times one column
per step: no shared arithmetic, used to re-check a value that would beat the published record.

For A = B/D, C10c ≥ disc(A)/√n = disc(B)/(D√n), certified on the grid 10^-d·Z by the integer inequality
k²·n·D² ≤ disc(B)²·10^(2d).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

BLOCK = 4_000_000  # int64 entries per block of left × right sums (32 MB)


def _signs(k: int) -> np.ndarray:
    """Return the (2^k, k) array of all sign vectors in {±1}^k, row r = the bits of r (bit j set: −1 at j)."""
    r = np.arange(2**k, dtype=np.int64)[:, None]
    return 1 - 2 * ((r >> np.arange(k, dtype=np.int64)) & 1)


def discrepancy(B: list[list[int]]) -> tuple[int, tuple[int, ...]]:
    """Return (disc(B), the first minimising sign vector x with x_1 = +1) for a square integer matrix."""
    M = np.array(B, dtype=np.int64)
    n = M.shape[0]
    h = max(1, n // 2)  # left columns 0..h−1 (x_0 = +1), right columns h..n−1
    left = _signs(h - 1)
    left = np.concatenate([np.ones((len(left), 1), dtype=np.int64), left], axis=1)
    right = _signs(n - h)
    SL = left @ M[:, :h].T  # (2^(h−1), n)
    SR = right @ M[:, h:].T if n > h else np.zeros((1, n), dtype=np.int64)
    step = max(1, BLOCK // SR.size)
    best, where = None, (0, 0)
    for a in range(0, len(SL), step):
        worst = np.abs(SL[a:a + step, None, :] + SR[None, :, :]).max(axis=2)  # (block, 2^(n−h))
        k = int(worst.argmin())  # first minimiser in (left, right) order
        value = int(worst.flat[k])
        if best is None or value < best:
            best, where = value, (a + k // worst.shape[1], k % worst.shape[1])
    x = tuple(int(s) for s in left[where[0]]) + (tuple(int(s) for s in right[where[1]]) if n > h else ())
    return int(best), x


def discrepancy_gray(B: list[list[int]]) -> int:
    """Return disc(B) by a Gray-code walk over the sign vectors with x_1 = +1 (plain Python, second path)."""
    n = len(B)
    cols = [[B[i][j] for i in range(n)] for j in range(n)]
    y = [sum(row) for row in B]  # x = (1, ..., 1)
    x = [1] * n
    best = max(abs(v) for v in y)
    for step in range(1, 2 ** (n - 1)):
        j = (step & -step).bit_length()  # the flipped coordinate: 1 + the lowest set bit of the step (never 0)
        x[j] = -x[j]
        delta = 2 * x[j]
        col = cols[j]
        y = [v + delta * c for v, c in zip(y, col)]
        worst = max(abs(v) for v in y)
        if worst < best:
            best = worst
    return best


def row_values(B: list[list[int]], x: tuple[int, ...]) -> list[int]:
    """Return Bx (integers)."""
    return [sum(b * s for b, s in zip(row, x)) for row in B]


def certified_ratio(disc: int, n: int, denominator: int, digits: int) -> Fraction:
    """Return the largest r on the grid 10^-digits·Z with r ≤ disc/(denominator·√n).

    >>> certified_ratio(5, 8, 1, 12), certified_ratio(5, 9, 1, 6)
    (Fraction(883883476483, 500000000000), Fraction(833333, 500000))
    """
    scale = 10**digits
    return Fraction(math.isqrt(disc * disc * scale * scale // (n * denominator * denominator)), scale)


def ratio_certificate(disc: int, n: int, denominator: int, r: Fraction) -> dict[str, str]:
    """Return the integer inequality p²·n·D² ≤ disc²·q² that proves r = p/q ≤ disc/(D√n), as strings."""
    lhs, rhs = r.numerator**2 * n * denominator**2, disc**2 * r.denominator**2
    if lhs > rhs:
        raise ValueError(f"r = {r} exceeds disc/(D·√n)")
    return {"p": str(r.numerator), "q": str(r.denominator), "p2_n_D2": str(lhs), "disc2_q2": str(rhs)}
