"""The second code path for the counts: explicit words and digit-by-digit distances, never the block counter.

* A count over two coordinate groups (Tandon's C₁ in C7^⊠10) is recounted in full: the gadget's product sets are
  listed word by word from the gadget's lists, the automorphism is applied to the words' digits, the exchanges are
  made on the list, the result is compared with the block path's codebook word for word and re-checked independent
  (the explicit-set target's bucketed pair check), and |J ∖ N[X⁰_L]| is counted by matrices over distinct halves:
  (a, b) ∈ N[R] iff K_A · P · K_Bᵀ > 0 at (a, b), K the "equal or adjacent" relation tested digit by digit and P
  the incidence of R's words.
* A count over more groups (C₂, C₃ in C7^⊠15, C₄ in C7^⊠30) is re-checked on seeded random sub-blocks: a few words of
  each atom of a random block of J, every word of their product tested against every reference block digit by
  digit, and the result compared with the block counter on the same sub-block; and recounted in full with another
  split of the coordinate groups (a different grouping of the masks).
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import product

import numpy as np

from mathloop.targets.shannon_capacity_c7 import buckets
from mathloop.targets.shannon_capacity_c7_recursive import blocks as bk
from mathloop.targets.shannon_capacity_c7_recursive.blocks import Atoms, Automorphism, Blocks

SAMPLES = 24  # random sub-blocks per count
MAX_LISTED = 1_000_000  # pairs of words listed at once (two groups of a block)
PICK = 3  # words drawn from each atom of a sub-block


def digits(codes: np.ndarray, n: int) -> np.ndarray:
    """Return the (k, n) digits of codes (first digit most significant)."""
    return (codes[:, None] // 7 ** np.arange(n - 1, -1, -1, dtype=np.int64)) % 7


def close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the (|a|, |b|) relation "equal or adjacent" between rows of two digit arrays, coordinate by coordinate."""
    out = np.ones((a.shape[0], b.shape[0]), dtype=bool)
    for c in range(a.shape[1]):
        d = (a[:, None, c] - b[None, :, c]) % 7
        out &= (d == 0) | (d == 1) | (d == 6)
    return out


def near_pairs(words: np.ndarray, ref: np.ndarray, n: int) -> np.ndarray:
    """Return, for words of C7^⊠2n given as (k, 2) arrays of halves' codes, whether each lies in N[R]."""
    if not len(ref) or not len(words):
        return np.zeros(len(words), dtype=bool)
    fa, ia = np.unique(words[:, 0], return_inverse=True)
    fb, ib = np.unique(words[:, 1], return_inverse=True)
    ra, ja = np.unique(ref[:, 0], return_inverse=True)
    rb, jb = np.unique(ref[:, 1], return_inverse=True)
    incidence = np.zeros((ra.size, rb.size), dtype=np.float64)
    incidence[ja.ravel(), jb.ravel()] = 1.0
    ka = close(digits(fa, n), digits(ra, n)).astype(np.float64)
    kb = close(digits(fb, n), digits(rb, n)).astype(np.float64)
    reach = (ka @ incidence @ kb.T) > 0.5  # entries are exact small integers (at most |ra|·|rb| < 2^53)
    return np.asarray(reach[ia.ravel(), ib.ravel()])


def outside_pairs(words: np.ndarray, ref: np.ndarray, n: int) -> int:
    """Return |W ∖ N[R]| for sets of C7^⊠2n given as (k, 2) arrays of halves' codes (each in C7^⊠n)."""
    return int((~near_pairs(words, ref, n)).sum())


def _counted(mk: np.ndarray) -> Counter[int]:
    """Return {mask: multiplicity} of a (k, W) array of 64-bit mask words, masks as Python integers."""
    rows, mult = np.unique(mk.reshape(-1, mk.shape[-1]), axis=0, return_counts=True)
    return Counter({sum(int(w) << (64 * i) for i, w in enumerate(r)): int(m) for r, m in zip(rows, mult)})


def _set_bits(mk: np.ndarray, hit: np.ndarray, js: list[int]) -> None:
    for j in js:
        mk[..., j // 64][hit] |= np.uint64(1) << np.uint64(j % 64)


def patterns(at: Atoms, blk: bk.Block, parts: list[bk.Block], memo: dict[tuple[int, ...], np.ndarray]) -> Counter[int]:
    """Return {mask: number of words of the block} (at most three groups), bit j set iff the word lies in
    N[parts[j]]: the first two groups listed as pairs and tested by matrices, a third group by digit distances."""
    n, width = at.n, max(1, -(-len(parts) // 64))
    masks: list[Counter[int]] = []
    if len(blk) >= 2:
        if at.size(blk[0]) * at.size(blk[1]) > MAX_LISTED:
            raise bk.TooLarge(f"listing more than {MAX_LISTED} pairs of words")
        da, db = digits(at.sets[blk[0]], n), digits(at.sets[blk[1]], n)
        mk = np.zeros((len(da), len(db), width), dtype=np.uint64)
        for key in sorted({p[:2] for p in parts}):
            if blk[:2] + key not in memo:
                ref = pairs_of(at, (key,))  # the reference pairs listed word by word
                ra, ja = np.unique(ref[:, 0], return_inverse=True)
                rb, jb = np.unique(ref[:, 1], return_inverse=True)
                incidence = np.zeros((ra.size, rb.size), dtype=np.float64)
                incidence[ja.ravel(), jb.ravel()] = 1.0
                ka = close(da, digits(ra, n)).astype(np.float64)
                kb = close(db, digits(rb, n)).astype(np.float64)
                # (a, b) ∈ N[ref] iff some listed (x, y) has a ≈ x and b ≈ y
                memo[blk[:2] + key] = (ka @ incidence @ kb.T) > 0.5
            _set_bits(mk, memo[blk[:2] + key], [j for j, p in enumerate(parts) if p[:2] == key])
        masks.append(_counted(mk))
    for c in range(2 if len(blk) >= 2 else 0, len(blk)):
        mk = np.zeros((at.size(blk[c]), width), dtype=np.uint64)
        for r in sorted({p[c] for p in parts}):
            if (blk[c], r) not in memo:
                memo[(blk[c], r)] = np.asarray(close(digits(at.sets[blk[c]], n), digits(at.sets[r], n)).any(axis=1))
            _set_bits(mk, memo[(blk[c], r)], [j for j, p in enumerate(parts) if p[c] == r])
        masks.append(_counted(mk))
    out: Counter[int] = Counter({(1 << len(parts)) - 1: 1})
    for cnt in masks:
        nxt: Counter[int] = Counter()
        for m1, n1 in out.items():
            for m2, n2 in cnt.items():
                nxt[m1 & m2] += n1 * n2
        out = nxt
    return out


def full_count(at: Atoms, source: Blocks, reference: Blocks) -> int | None:
    """Return |S ∖ N[R]| by `patterns` (at most six groups: head and tail of at most three), else None."""
    m = len(source[0])
    near: dict[tuple[int, ...], np.ndarray] = {}  # (atom, ref atom) and (atom, atom, ref atom, ref atom) tests
    if m <= 3:
        return sum(patterns(at, b, list(reference), near).get(0, 0) for b in source)
    if m > 6:
        return None
    h = m // 2
    heads, tails = sorted({r[:h] for r in reference}), sorted({r[h:] for r in reference})
    reach_of_tail = [0] * len(tails)  # for each reference tail, the heads it is joined to
    for r in reference:
        reach_of_tail[tails.index(r[h:])] |= 1 << heads.index(r[:h])
    total = 0
    memo: dict[tuple[str, bk.Block], Counter[int]] = {}  # a head and a tail may be the same atoms: keyed apart
    for b in source:
        for key, refs in ((("head", b[:h]), heads), (("tail", b[h:]), tails)):
            if key not in memo:
                memo[key] = patterns(at, key[1], refs, near)
        for v, nv in memo[("tail", b[h:])].items():
            joined = 0
            for i, _ in enumerate(tails):
                if v >> i & 1:
                    joined |= reach_of_tail[i]
            total += nv * sum(nu for u, nu in memo[("head", b[:h])].items() if not u & joined)
    return total


def pairs_of(at: Atoms, s: Blocks) -> np.ndarray:
    """Return the words of a two-group block set as a (k, 2) array of codes (duplicates kept)."""
    rows = [np.stack(np.meshgrid(at.sets[b[0]], at.sets[b[1]], indexing="ij"), -1).reshape(-1, 2) for b in s]
    return np.concatenate(rows) if rows else np.zeros((0, 2), dtype=np.int64)


def apply(t: Automorphism, codes: np.ndarray, n: int) -> np.ndarray:
    """Return t applied to codes of C7^⊠n, digit by digit."""
    d = digits(codes, n)
    out = np.zeros_like(codes)
    for p in range(n):
        out = out * 7 + (t.sign[p] * d[:, t.source[p]] + t.shift[p]) % 7
    return out


def product_pairs(parts: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Return the union of products A × B (as (k, 2) code arrays) of the listed pairs of code arrays."""
    rows = [np.stack(np.meshgrid(a, b, indexing="ij"), -1).reshape(-1, 2) for a, b in parts if a.size and b.size]
    return np.concatenate(rows) if rows else np.zeros((0, 2), dtype=np.int64)


def listed(fam_l: dict[str, np.ndarray], fam_r: dict[str, np.ndarray], which: str) -> np.ndarray:
    """Return Gao's product set of two gadgets' families, word by word: its main set or its auxiliary set."""
    b, r, ph, pv, x0, xh, xv = (fam_l[k] for k in ("B", "O", "H", "V", "N", "D", "A"))
    b2, r2, ph2, pv2, x02, xh2, xv2 = (fam_r[k] for k in ("B", "O", "H", "V", "N", "D", "A"))
    if which == "auxiliary":
        return product_pairs([(np.concatenate([x0, xh, xv]), np.concatenate([x02, xh2, xv2]))])
    return product_pairs([(b, b2), (r, x02), (ph, xh2), (pv, xv2), (x0, r2), (xh, pv2), (xv, ph2)])


def neutral(fam_l: dict[str, np.ndarray], fam_r: dict[str, np.ndarray]) -> np.ndarray:
    """Return X⁰ of Gao's product of two gadgets, word by word: X⁰×X⁰ ∪ X^r×X^r."""
    return product_pairs([(fam_l["N"], fam_r["N"]),
                          (np.concatenate([fam_l["D"], fam_l["A"]]), np.concatenate([fam_r["D"], fam_r["A"]]))])


def codebook(base: np.ndarray, n: int, t: Automorphism | None, removed: list[tuple[int, int]],
             inserted: list[tuple[int, int]]) -> tuple[np.ndarray, list[str]]:
    """Return (J, problems): the listed base set mapped by t, then the exchanges made, re-checked independent."""
    if t is not None:
        base = np.stack([apply(t, base[:, 0], n), apply(t, base[:, 1], n)], -1)
    have = {(int(p), int(q)) for p, q in base}
    problems = []
    if len(have) != len(base):
        problems.append("the listed set holds a word twice")
    if not set(removed) <= have or set(inserted) & have:
        problems.append("a removed word is missing or an inserted word is already present")
    j = np.array(sorted((have - set(removed)) | set(inserted)), dtype=np.int64).reshape(-1, 2)
    bad, _, _ = buckets.conflicts(np.concatenate([digits(j[:, 0], n), digits(j[:, 1], n)], axis=1))
    if bad:
        problems.append(f"the codebook has {bad} pairs of equal or adjacent words")
    return j, problems


def families(g_sets: dict[str, frozenset[int]], n: int, swapped: bool = False) -> dict[str, np.ndarray]:
    """Return the seven families of a gadget (or of its swap) with X⁰, X^H, X^V recomputed by digit distances."""
    arr = {k: np.array(sorted(v), dtype=np.int64) for k, v in g_sets.items()}
    if swapped:
        arr["H"], arr["V"] = arr["V"], arr["H"]
    x = np.concatenate([arr["N"], arr["A"], arr["D"]])
    near_h = close(digits(x, n), digits(arr["H"], n)).any(axis=1) if arr["H"].size else np.zeros(x.size, bool)
    near_v = close(digits(x, n), digits(arr["V"], n)).any(axis=1) if arr["V"].size else np.zeros(x.size, bool)
    return {**arr, "N": np.sort(x[~near_h & ~near_v]), "D": np.sort(x[near_h]), "A": np.sort(x[near_v])}


def brute_outside(at: Atoms, words: list[tuple[int, ...]], reference: Blocks) -> int:
    """Return how many of the words lie outside N[R], each tested against every reference block digit by digit."""
    w = np.array(words, dtype=np.int64)
    inside = np.zeros(len(words), dtype=bool)
    memo: dict[tuple[int, int], np.ndarray] = {}
    for r in reference:
        here = np.ones(len(words), dtype=bool)
        for c, a in enumerate(r):
            if (c, a) not in memo:  # a group holds few distinct digits words: test those, then spread
                vals, back = np.unique(w[:, c], return_inverse=True)
                memo[(c, a)] = np.asarray(close(digits(vals, at.n), digits(at.sets[a], at.n)).any(axis=1))[back.ravel()]
            here &= memo[(c, a)]
        inside |= here
    return int((~inside).sum())


def _spread(at: Atoms, a: int, refs: list[int], rng: random.Random) -> list[int]:
    """Return up to PICK words of atom a from different classes of "which reference atoms' N[·] hold it" (so that
    words outside N[R] are drawn, not only the many inside); the class only steers the draw, never a verdict."""
    classes: dict[bytes, list[int]] = {}
    elems = at.sets[a].tolist()
    key = np.stack([at.near(r)[at.sets[a]] for r in sorted(set(refs))], axis=1)
    for e, k in zip(elems, key):
        classes.setdefault(np.packbits(k).tobytes(), []).append(e)
    groups = list(classes.values())
    rng.shuffle(groups)
    return sorted(rng.choice(g) for g in groups[:PICK])


def sampled(at: Atoms, source: Blocks, reference: Blocks, seed: str) -> tuple[int, int, list[str]]:
    """Return (words tested, words outside, disagreements) over seeded random sub-blocks of the source."""
    rng = random.Random(seed)
    tested = outside = 0
    bad = []
    for k in range(SAMPLES):
        blk = source[rng.randrange(len(source))]
        picks = [_spread(at, a, [r[c] for r in reference], rng) for c, a in enumerate(blk)]
        sub = (tuple(at.atom(p) for p in picks),)
        words = list(product(*picks))
        brute = brute_outside(at, words, reference)
        counted = bk.count_outside(at, sub, reference)
        tested, outside = tested + len(words), outside + brute
        if brute != counted:
            bad.append(f"sub-block {k}: {brute} words outside by digit distances, {counted} by the block counter")
    return tested, outside, bad
