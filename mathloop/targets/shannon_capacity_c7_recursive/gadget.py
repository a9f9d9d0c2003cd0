"""Exact checks of finite gadgets in C7^⊠n: Gao's Definition 2, and the seven-family separations of their families.

Words are digit strings (one digit 0..6 per coordinate); a vertex is stored as its base-7 code. Two distinct vertices
are adjacent iff every coordinate is equal or differs by ±1 mod 7; N[S] is the closed neighbourhood (S with its
neighbours). Independence is decided by the explicit-set target's pairwise checker (`graph.conflicts`); the other
conditions by closed neighbourhoods listed vertex by vertex (3^n codes each).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product

from mathloop.targets.shannon_capacity_c7 import graph
from mathloop.targets.shannon_capacity_c7_recursive.schema import Gadget

# Buys–Polak–Zuiddam, Definition 4: the pairs of families a seven-family must keep separated (a symmetric relation,
# eleven pairs); the families themselves must be independent.
SEPARATED = frozenset({("B", "O"), ("B", "H"), ("B", "V"), ("N", "A"), ("N", "D"), ("N", "O"), ("N", "H"),
                       ("N", "V"), ("A", "D"), ("A", "H"), ("D", "V")})


def perpendicular(x: str, y: str) -> bool:
    """Return True when families x and y must be separated (no vertex of one equal or adjacent to one of the other)."""
    return (x, y) in SEPARATED or (y, x) in SEPARATED


@dataclass(frozen=True)
class Profile:
    """Gao's profile (a, t, s, o, h, v): |I|, pairs, |X|, |X⁰|, |X^H|, |X^V| (X⁰ avoids both transversals' N[·])."""

    a: int
    t: int
    s: int
    o: int
    h: int
    v: int

    def swapped(self) -> Profile:
        """Return the profile with the two transversals exchanged."""
        return Profile(self.a, self.t, self.s, self.o, self.v, self.h)

    def families(self) -> tuple[int, ...]:
        """Return the seven family sizes (B, N, A, D, O, H, V) = (a − t, o, v, h, t, t, t)."""
        return (self.a - self.t, self.o, self.v, self.h, self.t, self.t, self.t)


@dataclass(frozen=True)
class GadgetSets:
    """A gadget's sets as base-7 codes, with its dimension."""

    n: int
    main: frozenset[int]
    pairs: tuple[tuple[int, int], ...]
    horizontal: frozenset[int]
    vertical: frozenset[int]
    auxiliary: frozenset[int]

    def swapped(self) -> GadgetSets:
        """Return the gadget with P^H and P^V exchanged."""
        return GadgetSets(self.n, self.main, self.pairs, self.vertical, self.horizontal, self.auxiliary)


def code(word: str) -> int:
    """Return the base-7 code of a digit word (first digit most significant)."""
    return int(word, 7)


def sets_of(g: Gadget) -> GadgetSets:
    """Return the gadget's sets as codes (duplicates in a list collapse; `check` counts them as failures)."""
    return GadgetSets(len(g.main[0]), frozenset(map(code, g.main)), tuple((code(r), code(q)) for r, q in g.pairs),
                      frozenset(map(code, g.horizontal)), frozenset(map(code, g.vertical)),
                      frozenset(map(code, g.auxiliary)))


def closed_neighbourhood(codes: Iterable[int], n: int) -> set[int]:
    """Return N[S]: every code equal or adjacent to a code of S in C7^⊠n (all 3^n offsets, digit by digit mod 7)."""
    import numpy as np

    cs = np.fromiter(codes, dtype=np.int64)
    if cs.size == 0:
        return set()
    powers = 7 ** np.arange(n - 1, -1, -1, dtype=np.int64)
    digits = (cs[:, None] // powers) % 7
    deltas = np.array(list(product((-1, 0, 1), repeat=n)), dtype=np.int64)
    around = (digits[:, None, :] + deltas[None, :, :]) % 7
    return set((around @ powers).ravel().tolist())


def independent(codes: Iterable[int], n: int) -> bool:
    """Return True iff no two of the (distinct) codes are adjacent (the explicit-set target's pairwise check)."""
    import numpy as np

    vs = [graph.decode(c, n) for c in sorted(set(codes))]
    if len(vs) < 2:
        return True
    bad, _, _ = graph.conflicts(np.array(vs, dtype=np.int8))
    return bad == 0


def definition_failures(g: Gadget) -> tuple[list[str], GadgetSets]:
    """Return (the failed conditions of Gao's Definition 2, one line each; the gadget's sets)."""
    s = sets_of(g)
    fails: list[str] = []
    for key in ("main", "horizontal", "vertical", "auxiliary"):
        words = getattr(g, key)
        if len(set(words)) != len(words):
            fails.append(f"{g.name}.{key}: a word is listed twice")
    if not independent(s.main, s.n):
        fails.append(f"{g.name}: the main set I is not independent")
    if not independent(s.auxiliary, s.n):
        fails.append(f"{g.name}: the auxiliary set X is not independent")
    for key, part in (("horizontal", s.horizontal), ("vertical", s.vertical)):
        if not independent(part, s.n):
            fails.append(f"{g.name}: the transversal {key} is not independent")
    ends = [e for pair in s.pairs for e in pair]
    if len(set(ends)) != len(ends):
        fails.append(f"{g.name}.pairs: the pairs' ends are not all distinct")
    for j, (r, q) in enumerate(s.pairs):
        if r not in s.main or q in s.main:
            fails.append(f"{g.name}.pairs[{j}]: the centre must be in I and the partner outside I")
        elif closed_neighbourhood([q], s.n) & s.main != {r}:
            fails.append(f"{g.name}.pairs[{j}]: the centre is not the partner's only neighbour in I")
        elif not ((r in s.horizontal) ^ (r in s.vertical)) or not ((q in s.horizontal) ^ (q in s.vertical)) or (
                (r in s.horizontal) == (q in s.horizontal)):
            fails.append(f"{g.name}.pairs[{j}]: not one end in each transversal")
    if s.horizontal | s.vertical != set(ends) or len(s.horizontal) != len(s.pairs) or len(
            s.vertical) != len(s.pairs):
        fails.append(f"{g.name}: the transversals are not complementary halves of the pairs' ends")
    nh, nv = closed_neighbourhood(s.horizontal, s.n), closed_neighbourhood(s.vertical, s.n)
    if s.auxiliary & nh & nv:
        fails.append(f"{g.name}: {len(s.auxiliary & nh & nv)} auxiliary vertices meet both transversals' N[·]")
    return fails, s


def profile(s: GadgetSets) -> Profile:
    """Return the gadget's profile, counted from its sets."""
    nh, nv = closed_neighbourhood(s.horizontal, s.n), closed_neighbourhood(s.vertical, s.n)
    x = s.auxiliary
    return Profile(len(s.main), len(s.pairs), len(x), len(x - (nh | nv)), len(x & nh), len(x & nv))


def family_sets(s: GadgetSets) -> dict[str, frozenset[int]]:
    """Return the seven families (B, N, A, D, O, H, V) = (I∖R, X⁰, X^V, X^H, R, P^H, P^V) of a gadget."""
    nh, nv = closed_neighbourhood(s.horizontal, s.n), closed_neighbourhood(s.vertical, s.n)
    centres = frozenset(r for r, _ in s.pairs)
    x = s.auxiliary
    return {"B": s.main - centres, "N": frozenset(x - (nh | nv)), "A": frozenset(x & nv), "D": frozenset(x & nh),
            "O": centres, "H": s.horizontal, "V": s.vertical}


def family_failures(name: str, s: GadgetSets) -> list[str]:
    """Return the failed conditions of a seven-family (Definition 4) for the gadget's families, one line each."""
    fam = family_sets(s)
    fails = [f"{name}: family {k} is not independent" for k, part in fam.items() if not independent(part, s.n)]
    for x, y in sorted(SEPARATED):
        if closed_neighbourhood(fam[x], s.n) & fam[y]:
            fails.append(f"{name}: families {x} and {y} are not separated")
    return fails
