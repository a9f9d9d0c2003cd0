"""Independence of large vertex sets of C7^⊠n (n ≤ 10, up to ~10^5 vertices) in seconds, never over all pairs.

A vertex is split into a head (its first n − L coordinates) and a tail (its last L = min(n, 5)); two vertices are
equal or adjacent iff their heads are equal or adjacent in C7^⊠(n−L) and their tails in C7^⊠L. `conflicts` groups
the set by head. For one head group A it counts, for every tail t of C7^⊠L, how many members of A have t in the
closed neighbourhood of their tail (a table of the 3^L closed neighbours of each of the 7^L tails); a member b of A
or of a group whose head is adjacent to A's then meets exactly that many members of A. Summing these counts gives
the exact number of bad pairs (equal or adjacent) in O(m·3^L + groups·3^(n−L)) integer operations.

`conflicts_by_pairs` is the second, independent code path: it groups by tail instead, lists every pair of members
whose tails are equal or adjacent (tested digit by digit, not through the table) and tests their heads digit by
digit. It is used to re-check a set that would beat the published record.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from mathloop.targets.shannon_capacity_c7.graph import Q

TAIL = 5  # tail digits: the closed-neighbourhood table of C7^⊠5 is 16807 × 243 int32 (16 MB)
PAIR_CHUNK = 4_000_000  # pairs tested at once by the second path (bounded memory)


@functools.lru_cache(maxsize=TAIL)
def closed_table(L: int) -> np.ndarray:
    """Return the (7^L, 3^L) table of the closed neighbourhood codes (the vertex first) of each vertex of C7^⊠L."""
    coords = np.array(list(itertools.product(range(Q), repeat=L)), dtype=np.int64).reshape(Q**L, L)
    offsets = np.array(list(itertools.product((0, 1, Q - 1), repeat=L)), dtype=np.int64).reshape(3**L, L)
    weights = Q ** np.arange(L - 1, -1, -1, dtype=np.int64)
    out = (np.mod(coords[:, None, :] + offsets[None, :, :], Q) @ weights).astype(np.int32)
    out.flags.writeable = False
    return out


def _codes(digits: np.ndarray) -> np.ndarray:
    """Return the base-7 codes (first digit most significant) of the rows of an (m, k) digit array."""
    weights = Q ** np.arange(digits.shape[1] - 1, -1, -1, dtype=np.int64)
    return digits.astype(np.int64) @ weights


def _split(vertices: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    v = np.asarray(vertices, dtype=np.int64)
    L = min(v.shape[1], TAIL)
    return L, _codes(v[:, : v.shape[1] - L]), _codes(v[:, v.shape[1] - L:])


def conflicts(vertices: np.ndarray, limit: int = 10) -> tuple[int, list[tuple[int, int]], list[tuple[int, int]]]:
    """Return (number of bad pairs, up to `limit` adjacent pairs (i, j), up to `limit` duplicate pairs), i < j.

    The same answer as graph.conflicts (which builds an m×m matrix) for any (m, n) array with entries in 0..6.
    """
    v = np.asarray(vertices, dtype=np.int64)
    m, n = v.shape
    if m < 2:
        return 0, [], []
    L, head, tail = _split(v)
    T = closed_table(L)
    order = np.lexsort((np.arange(m), head))  # by head, then by input position: deterministic
    heads, starts = np.unique(head[order], return_index=True)
    ends = np.append(starts[1:], m)
    hd = n - L
    head_digits = v[:, :hd]
    offsets = np.array([d for d in itertools.product((0, 1, Q - 1), repeat=hd) if any(d)], dtype=np.int64)
    bad = 0
    pairs: list[tuple[int, int]] = []
    for g, h in enumerate(heads):
        members = order[starts[g]:ends[g]]
        counts = np.bincount(T[tail[members]].ravel(), minlength=Q**L)
        within = int(counts[tail[members]].sum()) - len(members)  # each unordered bad pair twice
        bad += within // 2
        if within and len(pairs) < limit:
            pairs += _witnesses(members, members, tail, T, counts, True)
        if hd == 0:
            continue
        near = _codes(np.mod(head_digits[members[0]] + offsets, Q))
        near = near[near > h]  # each unordered pair of groups once
        at = np.searchsorted(heads, near)
        found = at[(at < len(heads)) & (heads[np.minimum(at, len(heads) - 1)] == near)]
        if len(found) == 0:
            continue
        others = np.concatenate([order[starts[k]:ends[k]] for k in np.sort(found)])
        across = int(counts[tail[others]].sum())
        bad += across
        if across and len(pairs) < limit:
            pairs += _witnesses(members, others, tail, T, counts, False)
    return bad, sorted(set(pairs))[:limit], _duplicates(head * Q**L + tail, limit)


def _duplicates(codes: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Return the first `limit` pairs (i, j), i < j, of equal codes in lexicographic order."""
    order = np.argsort(codes, kind="stable")  # equal codes: smallest position first
    s = codes[order]
    bounds = np.flatnonzero(np.diff(s)) + 1
    out: list[tuple[int, int]] = []
    for run in np.split(order, bounds):
        if len(run) > 1:  # the lexicographically first pairs of one run of copies
            out += itertools.islice(((int(a), int(b)) for k, a in enumerate(run) for b in run[k + 1:]), limit)
    return sorted(out)[:limit]


def _witnesses(group: np.ndarray, others: np.ndarray, tail: np.ndarray, T: np.ndarray, counts: np.ndarray,
               same_group: bool) -> list[tuple[int, int]]:
    """Return some adjacent pairs (i, j), i < j, between `group` and `others` (heads equal or adjacent, not copies).

    A member b of `others` meets `counts[tail[b]]` members of `group`, itself included when b is in `group`.
    """
    out = []
    for b in others[counts[tail[others]] > int(same_group)][:8]:
        hit = group[np.isin(tail[group], T[tail[b]]) & (group != b)]  # closeness of tails is symmetric
        out += [(int(min(a, b)), int(max(a, b))) for a in hit[:4] if not (same_group and tail[a] == tail[b])]
    return out


def conflicts_by_pairs(vertices: np.ndarray) -> int:
    """Return the number of bad pairs by listing, per pair of tail groups, every pair of members (second path).

    Independent of `conflicts`: groups by the tail, decides tail and head closeness digit by digit, no table.
    """
    v = np.asarray(vertices, dtype=np.int16)
    m, n = v.shape
    L = min(n, TAIL)
    tails = v[:, n - L:]
    keys, inverse = np.unique(tails, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    groups = np.split(np.argsort(inverse, kind="stable"), np.cumsum(np.bincount(inverse, minlength=len(keys)))[:-1])
    bad = 0
    for a in range(len(keys)):
        d = np.mod(keys[a + 1:] - keys[a], Q)
        close = np.flatnonzero(((d == 0) | (d == 1) | (d == Q - 1)).all(axis=1)) + a + 1
        bad += _bad_pairs(v, groups[a], groups[a], n - L, same=True)
        for b in close:
            bad += _bad_pairs(v, groups[a], groups[b], n - L, same=False)
    return bad


def _bad_pairs(v: np.ndarray, A: np.ndarray, B: np.ndarray, hd: int, same: bool) -> int:
    """Return how many pairs (a in A, b in B; a < b by position in A when `same`) have heads equal or adjacent."""
    if hd == 0:
        return len(A) * (len(A) - 1) // 2 if same else len(A) * len(B)
    total = 0
    step = max(1, PAIR_CHUNK // max(1, len(B)))
    for s in range(0, len(A), step):
        ha = v[A[s:s + step], :hd]
        d = np.mod(ha[:, None, :] - v[B, :hd][None, :, :], Q)
        close = ((d == 0) | (d == 1) | (d == Q - 1)).all(axis=2)
        if same:
            close = np.triu(close, k=s + 1)
        total += int(close.sum())
    return total
