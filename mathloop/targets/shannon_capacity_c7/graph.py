"""The strong powers C7^⊠n: vertex codes, the exact independence check and the certified root.

Vertices of C7^⊠n are n-tuples over Z/7. Two distinct tuples are adjacent iff in every coordinate
they are equal or differ by ±1 mod 7; so a set S is independent iff every two distinct members
differ by 2, 3, 4 or 5 (mod 7) in at least one coordinate. `conflicts` decides this for all pairs at
once in integer numpy arithmetic (no floats anywhere), and `adjacent` is the one-pair definition
written out in plain Python, used as an independent second code path.

The certified bound is Θ(C7) ≥ α(C7^⊠n)^{1/n} ≥ |S|^{1/n} (Shannon 1956: α is supermultiplicative
under ⊠, so Θ = sup_n α(G^⊠n)^{1/n}). |S|^{1/n} is irrational in general; the gate compares
Fractions, so the certificate is the rational r = k/10^d with k = ⌊(|S|·10^{dn})^{1/n}⌋, the largest
point of the grid 10^-d·Z with r^n ≤ |S|, proved by the integer inequality k^n ≤ |S|·10^{dn}.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


Q = 7  # the cycle length
# Differences (mod 7) that make two coordinates "equal or adjacent" in C7.
CLOSE = (0, 1, Q - 1)


def encode(vertex: tuple[int, ...]) -> int:
    """Return the base-7 code of a vertex, first coordinate most significant.

    >>> encode((0, 0, 0, 0, 5)), encode((1, 0, 0, 0, 0))
    (5, 2401)
    """
    code = 0
    for x in vertex:
        code = code * Q + x
    return code


def decode(code: int, n: int) -> tuple[int, ...]:
    """Return the vertex of C7^⊠n with base-7 code `code` (0 <= code < 7^n).

    >>> decode(2401 + 5, 5)
    (1, 0, 0, 0, 5)
    """
    out = []
    for _ in range(n):
        code, x = divmod(code, Q)
        out.append(x)
    return tuple(reversed(out))


def adjacent(u: tuple[int, ...], v: tuple[int, ...]) -> bool:
    """Return True iff u != v and every coordinate pair is equal or differs by ±1 mod 7.

    >>> adjacent((0, 0), (1, 6)), adjacent((0, 0), (2, 0)), adjacent((0, 0), (0, 0))
    (True, False, False)
    """
    return u != v and all((a - b) % Q in CLOSE for a, b in zip(u, v))


def conflicts(vertices: "np.ndarray", limit: int = 10) -> tuple[int, list[tuple[int, int]], list[tuple[int, int]]]:
    """Return (number of bad pairs, up to `limit` adjacent pairs (i, j), up to `limit` duplicate pairs).

    `vertices` is an (m, n) integer array with entries in 0..6. A pair i < j is bad when its rows are
    equal (a duplicate: S would not have m elements) or adjacent. Exact: int8 differences mod 7.
    """
    import numpy as np  # imported where used: listing targets never loads numpy

    v = np.asarray(vertices, dtype=np.int8)
    m = v.shape[0]
    if m < 2:
        return 0, [], []
    close = np.ones((m, m), dtype=bool)
    equal = np.ones((m, m), dtype=bool)
    for c in range(v.shape[1]):  # one coordinate at a time keeps memory at m^2 bytes
        d = np.mod(v[:, None, c] - v[None, :, c], Q)
        equal &= d == 0
        close &= (d == 0) | (d == 1) | (d == Q - 1)
    upper = np.triu(np.ones((m, m), dtype=bool), k=1)
    dup = equal & upper
    adj = close & upper & ~equal
    n_bad = int(dup.sum()) + int(adj.sum())
    pairs = [(int(i), int(j)) for i, j in np.argwhere(adj)[:limit]]
    dups = [(int(i), int(j)) for i, j in np.argwhere(dup)[:limit]]
    return n_bad, pairs, dups


def independent_plain(vertices: list[tuple[int, ...]]) -> bool:
    """Return True iff the tuples are distinct and pairwise non-adjacent (plain Python, via codes).

    A second code path for `conflicts`: every vertex's closed neighbourhood (3^n tuples) is looked
    up in the set of codes, so no pair arithmetic is shared with the numpy check.
    """
    codes = [encode(v) for v in vertices]
    if len(set(codes)) != len(codes):
        return False
    members = set(codes)
    for v in vertices:
        for w in _closed_neighbourhood(v):
            if w != v and encode(w) in members:
                return False
    return True


def _closed_neighbourhood(v: tuple[int, ...]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for x in v:
        out = [t + ((x + s) % Q,) for t in out for s in (0, 1, -1)]
    return out


def iroot(x: int, n: int) -> int:
    """Return ⌊x^{1/n}⌋ for integers x >= 0, n >= 1, in exact integer arithmetic.

    >>> iroot(367 * 10**60, 5), iroot(8, 3), iroot(7, 3)
    (3257865966783, 2, 1)
    """
    if x < 0 or n < 1:
        raise ValueError("iroot needs x >= 0 and n >= 1")
    if x < 2:
        return x
    k = 1 << -(-x.bit_length() // n)  # 2^⌈bits/n⌉ > x^{1/n}
    while True:  # Newton's method from above decreases monotonically to the floor
        k2 = ((n - 1) * k + x // k ** (n - 1)) // n
        if k2 >= k:
            break
        k = k2
    while k ** n > x:
        k -= 1
    while (k + 1) ** n <= x:
        k += 1
    return k


def certified_root(size: int, n: int, digits: int) -> Fraction:
    """Return the largest r on the grid 10^-digits·Z with r^n <= size (a certified lower bound of size^{1/n}).

    >>> certified_root(343, 5, 6), certified_root(9, 2, 3)
    (Fraction(642819, 200000), Fraction(3, 1))
    """
    scale = 10**digits
    return Fraction(iroot(size * scale**n, n), scale)


def root_certificate(size: int, n: int, r: Fraction) -> dict[str, str]:
    """Return the integer inequality p^n <= size·q^n that proves r = p/q <= size^{1/n}, as strings."""
    lhs, rhs = r.numerator ** n, size * r.denominator ** n
    if lhs > rhs:
        raise ValueError(f"r^n > |S|: {r} is not a lower bound of {size}^(1/{n})")
    return {"p": str(r.numerator), "q": str(r.denominator), "p_pow_n": str(lhs), "size_q_pow_n": str(rhs)}
