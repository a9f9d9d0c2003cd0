"""Matrices from complement-closed covering codes, found by simulated annealing (the proposer's optimiser).

If K sets T_1..T_K ⊆ {1..m} and their complements cover the cube {0,1}^m within Hamming radius R, the matrix with
row i equal to (1 − 2·[j ∈ T_i]) on the first m columns and 0 elsewhere has |(Ax)_i| = |m − 2|S △ T_i|| ≥ m − 2R for
some i, for every sign vector x (S = its −1 positions among the first m): disc(A) ≥ m − 2R. It is made square with
n = max(m, K) by zero columns (PR #170's 8×8 matrix: m = 7, R = 1, the [7,4] Hamming code) or repeated rows
(Li's 17×17: m = 17, R = 5, K = 16). `anneal` searches K centres minimising the number of uncovered points (moves:
a random centre jumps within radius R of a random uncovered point; worse moves accepted with probability
exp(−Δ/T)). Floats only steer the search; the target's checker computes disc(A) exactly.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np


def radius_masks(m: int, R: int) -> np.ndarray:
    """Return every m-bit mask of at most R set bits (the ball of radius R around 0)."""
    out = [0] + [sum(1 << j for j in c) for k in range(1, R + 1) for c in itertools.combinations(range(m), k)]
    return np.array(out, dtype=np.int64)


def anneal(m: int, R: int, K: int, rng: np.random.Generator, deadline: float,
           start: list[int] | None = None) -> tuple[list[int], int]:
    """Return (K centres, number of uncovered points of {0,1}^m) after annealing until covered or `deadline`."""
    full = (1 << m) - 1
    masks = radius_masks(m, R)
    count = np.zeros(1 << m, dtype=np.int32)
    centres = list(start) if start is not None else [int(c) for c in rng.integers(0, 1 << m, size=K)]

    def ball(c: int) -> np.ndarray:  # the two balls around c and its complement (disjoint: they are m > 2R apart)
        return np.concatenate([c ^ masks, (c ^ full) ^ masks])

    for c in centres:
        np.add.at(count, ball(c), 1)
    uncovered = int((count == 0).sum())
    temperature = 1.0
    while uncovered and time.monotonic() < deadline:
        holes = np.flatnonzero(count == 0)
        p = int(holes[rng.integers(len(holes))])
        i = int(rng.integers(K))
        new = p ^ int(masks[rng.integers(len(masks))]) ^ (full if rng.random() < 0.5 else 0)
        old_ball, new_ball = ball(centres[i]), ball(new)
        count[old_ball] -= 1
        lost = int((count[old_ball] == 0).sum())
        gained = int((count[new_ball] == 0).sum())
        count[new_ball] += 1
        delta = lost - gained
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            centres[i], uncovered = new, uncovered + delta
        else:
            count[new_ball] -= 1
            count[old_ball] += 1
        temperature = max(0.05, temperature * 0.9995)
    return centres, uncovered


def matrix(centres: list[int], m: int) -> list[list[str]]:
    """Return the square matrix of the centres (entries "1", "-1", "0"): n = max(m, K)."""
    n = max(m, len(centres))
    rows = [["-1" if (c >> j) & 1 else "1" for j in range(m)] + ["0"] * (n - m) for c in centres]
    return rows + [rows[0]] * (n - len(rows))
