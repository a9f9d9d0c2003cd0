"""Algebraic constructions: independent sets of C7^⊠n that are linear codes over Z/7.

A k-dimensional subspace C = {uG : u ∈ (Z/7)^k} of (Z/7)^n (G a k×n generator matrix of rank k) is
independent in C7^⊠n iff every non-zero codeword has a coordinate in {2, 3, 4, 5}: the difference of two
codewords is a codeword, and two tuples are adjacent iff their difference has all coordinates in
{0, ±1}. With k = 3, n = 5 this gives 7^3 = 343 vertices, the size of the construction of Baumert,
McEliece, Rodemich, Rumsey, Stanley and Taylor (1971). `find_generator` searches generator matrices
from a seeded random stream; the result is always re-checked by the target's exact checker.
"""

from __future__ import annotations

import itertools

import numpy as np

from mathloop.targets.shannon_capacity_c7.graph import Q


def codewords(G: np.ndarray) -> np.ndarray:
    """Return all 7^k codewords uG mod 7 of a k×n generator matrix, as a (7^k, n) int array."""
    k = G.shape[0]
    messages = np.array(list(itertools.product(range(Q), repeat=k)), dtype=np.int64)
    return np.mod(messages @ G.astype(np.int64), Q)


def is_independent_code(G: np.ndarray) -> bool:
    """Return True iff every non-zero codeword of G has a coordinate in 2..5 (and G has full rank)."""
    words = codewords(G)[1:]  # the zero message gives the zero word, first in product order
    far = (words >= 2) & (words <= Q - 2)
    return bool(far.any(axis=1).all())


def find_generator(k: int, n: int, rng: np.random.Generator, tries: int = 20_000) -> np.ndarray | None:
    """Return a k×n generator matrix (systematic: [I | A]) whose code is independent, or None.

    Every non-zero codeword must have a far coordinate, so the rank is k automatically (a rank
    defect would give a non-zero message with the zero codeword).
    """
    for _ in range(tries):
        A = rng.integers(0, Q, size=(k, n - k))
        G = np.concatenate([np.eye(k, dtype=np.int64), A], axis=1)
        if is_independent_code(G):
            return G
    return None


def code_payload(G: np.ndarray) -> dict:
    """Return the target payload of the code of G (vertices sorted)."""
    words = sorted(tuple(int(x) for x in w) for w in codewords(G))
    return {"n": int(G.shape[1]), "vertices": [list(w) for w in words]}
