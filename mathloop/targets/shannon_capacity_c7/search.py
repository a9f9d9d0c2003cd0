"""Iterated local search for large independent sets of C7^⊠n (n ≤ 5), in numpy.

The method of Andrade, Resende and Werneck ("Fast local search for the maximum independent set
problem", J. Heuristics 18 (2012)), simplified: keep for every vertex the number of its neighbours in
the set ("tightness"); improve by adding free vertices (tightness 0) and by (1,2)-swaps (remove one
member x, add two non-adjacent vertices whose only member neighbour is x); perturb by forcing a
random outside vertex in (its member neighbours leave); keep the best set seen and restart from it
when the walk has drifted too far below. The graph is implicit: neighbour codes come from a table of
the 3^n − 1 offsets {0, ±1}^n \\ {0}. Floats never enter; the result is only a proposal.
"""

from __future__ import annotations

import functools
import itertools
import time

import numpy as np

from mathloop.targets.shannon_capacity_c7.graph import Q

MAX_SEARCH_N = 5  # the neighbour table of C7^⊠5 is 16807 × 242 int32 (16 MB); n = 6 would need 340 MB


@functools.lru_cache(maxsize=MAX_SEARCH_N)
def coordinates(n: int) -> np.ndarray:
    """Return the (7^n, n) array of every vertex's coordinates, row index = base-7 code (read-only, cached)."""
    out = np.array(list(itertools.product(range(Q), repeat=n)), dtype=np.int16)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=MAX_SEARCH_N)
def neighbour_table(n: int) -> np.ndarray:
    """Return the (7^n, 3^n − 1) table of neighbour codes of every vertex of C7^⊠n (read-only, cached)."""
    coords = coordinates(n).astype(np.int64)
    weights = Q ** np.arange(n - 1, -1, -1)
    offsets = [d for d in itertools.product((0, 1, -1), repeat=n) if any(d)]
    out = np.stack([np.mod(coords + np.array(d), Q) @ weights for d in offsets], axis=1).astype(np.int32)
    out.flags.writeable = False
    return out


class Search:
    """One iterated local search in C7^⊠n from a starting set (deterministic for a seed)."""

    def __init__(self, n: int, start: list[int], rng: np.random.Generator) -> None:
        if not 1 <= n <= MAX_SEARCH_N:
            raise ValueError(f"local search supports 1 <= n <= {MAX_SEARCH_N}")
        self.n, self.rng = n, rng
        self.coords = coordinates(n)
        self.N = neighbour_table(n)
        V = Q**n
        self.in_set = np.zeros(V, dtype=bool)
        self.tight = np.zeros(V, dtype=np.int32)
        for v in start:
            if not self.in_set[v] and self.tight[v] == 0:  # keep only an independent part of the start
                self._add(v)
        self._fill()
        self.best = self.members()
        self.iterations = 0

    def members(self) -> list[int]:
        """Return the current set's codes, sorted."""
        return [int(v) for v in np.flatnonzero(self.in_set)]

    def size(self) -> int:
        return int(self.in_set.sum())

    def _add(self, v: int) -> None:
        self.in_set[v] = True
        self.tight[self.N[v]] += 1

    def _remove(self, v: int) -> None:
        self.in_set[v] = False
        self.tight[self.N[v]] -= 1

    def _fill(self, around: np.ndarray | None = None) -> None:
        """Add free vertices (tightness 0), in random order, looking only `around` when given."""
        pool = np.flatnonzero((self.tight == 0) & ~self.in_set) if around is None else np.unique(around)
        for v in self.rng.permutation(pool):
            if not self.in_set[v] and self.tight[v] == 0:
                self._add(int(v))

    def _adjacent(self, u: int, w: int) -> bool:
        d = np.mod(self.coords[u] - self.coords[w], Q)
        return bool(np.all((d == 0) | (d == 1) | (d == Q - 1)))

    def _two_swap(self, x: int) -> bool:
        """Try a (1,2)-swap at member x; return True if the set grew."""
        nb = self.N[x]
        cands = nb[(self.tight[nb] == 1) & ~self.in_set[nb]]
        if len(cands) < 2:
            return False
        cands = self.rng.permutation(cands)
        for i in range(len(cands)):
            for j in range(i + 1, len(cands)):
                u, w = int(cands[i]), int(cands[j])
                if not self._adjacent(u, w):
                    self._remove(x)
                    self._add(u)
                    self._add(w)
                    self._fill(np.concatenate([self.N[u], self.N[w], self.N[x]]))
                    return True
        return False

    def _improve(self, deadline: float) -> None:
        """Apply (1,2)-swaps until none applies (a local optimum of the swap neighbourhood) or the deadline."""
        improved = True
        while improved and time.monotonic() < deadline:
            improved = False
            for x in self.rng.permutation(np.flatnonzero(self.in_set)):
                if self.in_set[x] and self._two_swap(int(x)):
                    improved = True

    def _perturb(self) -> None:
        """Force one outside vertex of small tightness in; its member neighbours leave."""
        outside = np.flatnonzero(~self.in_set & (self.tight <= 2))
        if len(outside) == 0:
            return
        v = int(self.rng.choice(outside))
        nb = self.N[v]
        gone = nb[self.in_set[nb]]
        for u in gone:
            self._remove(int(u))
        self._add(v)
        self._fill(np.concatenate([self.N[int(u)] for u in gone]) if len(gone) else None)

    def run(self, deadline: float, target: int | None = None) -> list[int]:
        """Search until `deadline` (time.monotonic()) or until the best set reaches `target`; return the best."""
        self._improve(deadline)
        if self.size() > len(self.best):
            self.best = self.members()
        while time.monotonic() < deadline and (target is None or len(self.best) < target):
            self.iterations += 1
            self._perturb()
            self._improve(deadline)
            size = self.size()
            if size > len(self.best):
                self.best = self.members()
            elif size < len(self.best) - 2 * self.n:  # drifted too far: back to the best set
                self._restore(self.best)
        return self.best

    def _restore(self, codes: list[int]) -> None:
        self.in_set[:] = False
        self.tight[:] = 0
        for v in codes:
            self._add(v)
