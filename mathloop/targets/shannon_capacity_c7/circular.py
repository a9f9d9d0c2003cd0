"""Starting sets from circular graphs, after Polak and Schrijver (arXiv:1808.07438).

Polak–Schrijver: the orbit {t·(1, 7, 7², 7³, 7⁴) : t ∈ Z/382} is independent in the fifth strong power
of the circular graph C_{108,382} (vertices Z/382, adjacent iff circular distance < 108), and a large
independent set of C7^⊠5 is found from it by computer. Here each coordinate of Z/382 is folded onto
Z/7 by i ↦ ⌊2((i + s) mod 382)/109⌋ for a shift s (bins of width 54.5 ≈ 382/7, so points 108 apart
usually land two bins apart); the images that clash with no other image are kept, and the iterated
local search (search.py) fills and improves the set. Which shift is used comes from the proposer's
seeded random stream (shift 0 first).
"""

from __future__ import annotations

import numpy as np

from mathloop.targets.shannon_capacity_c7.graph import Q, encode

MODULUS = 382
GENERATOR = np.array([1, 7, 49, 343, 2401 % MODULUS])


def orbit() -> np.ndarray:
    """Return the (382, 5) orbit t·(1, 7, 49, 343, 2401) mod 382."""
    return np.mod(np.arange(MODULUS)[:, None] * GENERATOR[None, :], MODULUS)


def folded_start(shift: tuple[int, ...]) -> list[int]:
    """Return the codes of the folded orbit points that are adjacent to (or equal to) no other image."""
    img = (2 * np.mod(orbit() + np.array(shift), MODULUS)) // 109
    assert int(img.max()) < Q  # 2·381 // 109 = 6
    v = img.astype(np.int8)
    clash = np.ones((len(v), len(v)), dtype=bool)
    for c in range(v.shape[1]):
        d = np.mod(v[:, None, c] - v[None, :, c], Q)
        clash &= (d == 0) | (d == 1) | (d == Q - 1)
    np.fill_diagonal(clash, False)
    keep = ~clash.any(axis=1)
    return sorted({encode(tuple(int(x) for x in row)) for row in img[keep]})
