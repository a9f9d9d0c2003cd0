"""Sets of C7^⊠(m·n) as unions of product blocks A₁ × … × A_m of explicit sets of C7^⊠n, and exact counts on them.

The sets of a recursive construction (Gao's Lemma 1 and Tandon's Theorem 1 at set level) are unions of products of
the gadget's own sets; an *atom* is one explicit subset of C7^⊠n (n the gadget's dimension), interned by content, and
a *block set* is a tuple of blocks, each a tuple of atom ids. Two facts make counting exact without listing words:
the closed neighbourhood of a product is the product of the closed neighbourhoods, N[A × B] = N[A] × N[B], and that
of a union is the union. So a word w lies in N[R] for R = ∪_j R_j iff some block R_j has w_c ∈ N[R_j,c] in every
coordinate group c.

`count_outside(S, R)` = |S ∖ N[R]| splits the m coordinate groups into a head and a tail. A head h of a word gets the
set U(h) of distinct reference heads whose neighbourhood holds it (a bit mask), a tail the set V(t) of distinct
reference tails; w is inside N[R] iff some reference block joins a head of U(h) to a tail of V(t). The masks'
distributions over a source block's head and tail are counted coordinate group by coordinate group (dynamic
programming over Counter of masks), so a block of 10^15 words costs a few thousand integer operations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

Block = tuple[int, ...]
Blocks = tuple[Block, ...]
MAX_BLOCKS = 20_000  # a split that would list more blocks is refused (the count stays open)
MAX_COUNTED = 5_000  # source or reference blocks a count accepts (pairwise disjointness is a square table)
MAX_STATES = 200_000  # distinct masks a distribution may reach


class TooLarge(Exception):
    """A set-level operation would need more blocks than MAX_BLOCKS."""


@dataclass(frozen=True)
class Automorphism:
    """A signed coordinate permutation of C7^⊠n: image digit p = sign[p]·w[source[p]] + shift[p] (mod 7).

    Every such map is an automorphism (x ↦ ±x + c is one of C7, and permuting coordinates preserves ⊠)."""

    source: tuple[int, ...]
    sign: tuple[int, ...]
    shift: tuple[int, ...]


class Atoms:
    """Interned explicit subsets of C7^⊠n (codes int(word, 7)) with their closed neighbourhoods and images."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.powers = 7 ** np.arange(n - 1, -1, -1, dtype=np.int64)
        self.deltas = np.array(list(product((-1, 0, 1), repeat=n)), dtype=np.int64)
        self.sets: list[np.ndarray] = []  # sorted codes of each atom
        self._ids: dict[bytes, int] = {}
        self._near: dict[int, np.ndarray] = {}
        self._image: dict[tuple[int, Automorphism], int] = {}

    def atom(self, codes: Iterable[int] | np.ndarray) -> int:
        """Return the id of the atom with these codes (an empty set is a valid atom)."""
        arr = np.unique(np.fromiter(codes, dtype=np.int64) if not isinstance(codes, np.ndarray) else codes)
        key = arr.astype(np.int64).tobytes()
        if key not in self._ids:
            self._ids[key] = len(self.sets)
            self.sets.append(arr.astype(np.int64))
        return self._ids[key]

    def size(self, a: int) -> int:
        """Return the number of words of atom a."""
        return int(self.sets[a].size)

    def digits(self, codes: np.ndarray) -> np.ndarray:
        """Return the (k, n) digit array of codes (first digit most significant)."""
        return (codes[:, None] // self.powers) % 7

    def near(self, a: int) -> np.ndarray:
        """Return the indicator (length 7^n) of N[A], the words equal or adjacent to a word of atom a."""
        if a not in self._near:
            ind = np.zeros(7 ** self.n, dtype=bool)
            d = self.digits(self.sets[a])
            if d.size:
                ind[(((d[:, None, :] + self.deltas[None, :, :]) % 7) @ self.powers).ravel()] = True
            self._near[a] = ind
        return self._near[a]

    def image(self, a: int, t: Automorphism) -> int:
        """Return the atom t(A)."""
        if (a, t) not in self._image:
            d = self.digits(self.sets[a])
            out = (np.array(t.sign)[None, :] * d[:, list(t.source)] + np.array(t.shift)[None, :]) % 7
            self._image[(a, t)] = self.atom(out @ self.powers)
        return self._image[(a, t)]

    def union(self, a: int, b: int) -> int:
        """Return the atom A ∪ B."""
        return self.atom(np.concatenate([self.sets[a], self.sets[b]]))

    def disjoint(self, a: int, b: int) -> bool:
        """Return True when the atoms share no word."""
        return not np.intersect1d(self.sets[a], self.sets[b], assume_unique=True).size


def cross(left: Blocks, right: Blocks) -> Blocks:
    """Return the blocks of the product of two block sets (concatenated coordinate groups)."""
    return tuple(a + b for a in left for b in right)


def size(at: Atoms, s: Blocks) -> int:
    """Return Σ over blocks of Π |A_c| (the set's size when its blocks are disjoint)."""
    total = 0
    for blk in s:
        n = 1
        for a in blk:
            n *= at.size(a)
        total += n
    return total


def tidy(at: Atoms, s: Iterable[Block]) -> Blocks:
    """Return the same union with empty blocks dropped and blocks differing in one group merged, sorted."""
    out = {b for b in s if all(at.size(a) for a in b)}
    changed = True
    while changed:
        changed = False
        m = len(next(iter(out))) if out else 0
        for c in range(m):
            groups: dict[Block, list[Block]] = {}
            for b in out:
                groups.setdefault(b[:c] + b[c + 1:], []).append(b)
            for rest, members in groups.items():
                if len(members) > 1:
                    u = members[0][c]
                    for b in members[1:]:
                        u = at.union(u, b[c])
                    out -= set(members)
                    out.add(rest[:c] + (u,) + rest[c:])
                    changed = True
    return tuple(sorted(out))


def image(at: Atoms, s: Blocks, t: Automorphism) -> Blocks:
    """Return the blocks of t applied to every coordinate group."""
    return tuple(tuple(at.image(a, t) for a in b) for b in s)


def disjoint_blocks(at: Atoms, s: Blocks) -> bool:
    """Return True when every two blocks have disjoint atoms in some coordinate group (so they share no word)."""
    if len(s) < 2:
        return True
    ids = sorted({a for b in s for a in b})
    index = {a: i for i, a in enumerate(ids)}
    apart = np.array([[at.disjoint(x, y) if x != y else False for y in ids] for x in ids], dtype=bool)
    arr = np.array([[index[a] for a in b] for b in s], dtype=np.int64)
    sep = np.zeros((len(s), len(s)), dtype=bool)
    for c in range(arr.shape[1]):
        sep |= apart[arr[:, c][:, None], arr[:, c][None, :]]
    np.fill_diagonal(sep, True)
    return bool(sep.all())


def _masks(at: Atoms, a: int, refs: Sequence[int]) -> list[int]:
    """Return, for each word e of atom a, the bit mask of the refs (atom ids) whose N[·] holds e."""
    elems = at.sets[a]
    bits: dict[int, int] = {}
    for bit, r in enumerate(refs):  # refs sharing an atom share its neighbourhood: one test per distinct atom
        bits[r] = bits.get(r, 0) | 1 << bit
    masks = [0] * elems.size
    for r, b in bits.items():
        for i in np.flatnonzero(at.near(r)[elems]).tolist():
            masks[i] |= b
    return masks


def _distribution(at: Atoms, blk: Block, parts: Sequence[Block]) -> dict[int, int]:
    """Return {mask: number of words w of the block}, bit u set iff w ∈ N[parts[u]] (group by group)."""
    acc: dict[int, int] = {(1 << len(parts)) - 1: 1}
    for c, a in enumerate(blk):
        cnt = Counter(_masks(at, a, [p[c] for p in parts]))
        nxt: dict[int, int] = {}
        for m1, n1 in acc.items():
            for m2, n2 in cnt.items():
                k = m1 & m2
                nxt[k] = nxt.get(k, 0) + n1 * n2
        acc = nxt
        if len(acc) > MAX_STATES:
            raise TooLarge(f"a block's words fall into more than {MAX_STATES} neighbourhood patterns")
    return acc


def count_outside(at: Atoms, source: Blocks, reference: Blocks, split_at: int | None = None) -> int:
    """Return |S ∖ N[R]| exactly (`split_at`: the number of head groups, default half of them).

    Raises:
        ValueError: the source blocks are not provably disjoint, or the shapes differ.
        TooLarge: more than MAX_COUNTED blocks, or more than MAX_STATES masks.
    """
    if not source:
        return 0
    if len(source) > MAX_COUNTED or len(reference) > MAX_COUNTED:
        raise TooLarge(f"a count over more than {MAX_COUNTED} blocks")
    if len({len(b) for b in source + reference}) != 1:
        raise ValueError("the source and reference blocks have different numbers of coordinate groups")
    if not disjoint_blocks(at, source):
        raise ValueError("the source blocks are not provably disjoint (some pair shares atoms in every group)")
    if not reference:
        return size(at, source)
    m = len(source[0])
    h = (max(1, m // 2) if m > 1 else 0) if split_at is None else split_at
    heads = sorted({r[:h] for r in reference})
    tails = sorted({r[h:] for r in reference})
    hi, ti = {x: i for i, x in enumerate(heads)}, {x: i for i, x in enumerate(tails)}
    joins = [0] * len(heads)  # for each reference head, the mask of the tails it is joined to
    for r in reference:
        joins[hi[r[:h]]] |= 1 << ti[r[h:]]
    head_dist: dict[Block, dict[int, int]] = {}
    tail_dist: dict[Block, dict[int, int]] = {}
    reach: dict[int, int] = {}
    total = 0
    for blk in source:
        hd, tl = blk[:h], blk[h:]
        if hd not in head_dist:
            head_dist[hd] = _distribution(at, hd, heads) if h else {(1 << len(heads)) - 1: 1}
        if tl not in tail_dist:
            tail_dist[tl] = _distribution(at, tl, tails)
        for u, nu in head_dist[hd].items():
            if u not in reach:
                reach[u] = 0
                for i in range(len(heads)):
                    if u >> i & 1:
                        reach[u] |= joins[i]
            total += nu * sum(nv for v, nv in tail_dist[tl].items() if not v & reach[u])
    return total


def split(at: Atoms, s: Blocks, reference: Blocks) -> tuple[Blocks, Blocks]:
    """Return (S ∖ N[R], S ∩ N[R]) as block sets (each block refined by its words' masks, group by group).

    Raises:
        TooLarge: the refinement would list more than MAX_BLOCKS blocks.
    """
    outside: list[Block] = []
    inside: list[Block] = []
    for blk in s:
        classes = []
        for c, a in enumerate(blk):
            masks = _masks(at, a, [r[c] for r in reference])
            elems = at.sets[a]
            byclass: dict[int, list[int]] = {}
            for e, mk in zip(elems.tolist(), masks):
                byclass.setdefault(mk, []).append(e)
            classes.append([(mk, at.atom(v)) for mk, v in byclass.items()])
        n = 1
        for cl in classes:
            n *= len(cl)
        if len(outside) + len(inside) + n > MAX_BLOCKS:
            raise TooLarge(f"splitting a set against N[X⁰] needs more than {MAX_BLOCKS} blocks")
        for combo in product(*classes):
            k = (1 << len(reference)) - 1
            for mk, _ in combo:
                k &= mk
            (inside if k else outside).append(tuple(a for _, a in combo))
    return tidy(at, outside), tidy(at, inside)


def words_in(at: Atoms, s: Blocks, words: Sequence[Block]) -> list[bool]:
    """Return, for each word (one code per group), whether some block of S holds it."""
    return [any(all(np.searchsorted(at.sets[a], w[c]) < at.sets[a].size and
                    at.sets[a][np.searchsorted(at.sets[a], w[c])] == w[c] for c, a in enumerate(b)) for b in s)
            for w in words]


def exchange(at: Atoms, s: Blocks, removed: Sequence[Block], inserted: Sequence[Block]) -> Blocks:
    """Return (S ∖ removed) ∪ inserted as blocks: a removed word w splits the block holding it into the words that
    first differ from w in group c, for each c (plus single-word blocks for the inserted words)."""
    out = list(s)
    for w in removed:
        nxt: list[Block] = []
        for b in out:
            if not words_in(at, (b,), [w])[0]:
                nxt.append(b)
                continue
            for c in range(len(b)):
                rest = at.atom(np.setdiff1d(at.sets[b[c]], [w[c]]))
                nxt.append(tuple(at.atom([x]) for x in w[:c]) + (rest,) + b[c + 1:])
        out = nxt
    out += [tuple(at.atom([x]) for x in w) for w in inserted]
    return tidy(at, out)
