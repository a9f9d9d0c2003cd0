"""The sets of a recursive construction as block sets, and the exact check of the neighbourhood counts it states.

Each gadget step's sets (the rest B = I ∖ R, the centres R, the transversals P^H, P^V and the auxiliary parts X⁰,
X^H, X^V) are built from the given gadget by the set-level forms of the product theorems (Gao's Lemma 1; Tandon's
Theorem 1, eqs. 38–39), as unions of products of the gadget's own sets (`blocks`):

| step | sets |
|---|---|
| product L ⊗ R | B = B_L×B_R ∪ P^H_L×X^H_R ∪ P^V_L×X^V_R ∪ X^H_L×P^V_R ∪ X^V_L×P^H_R; R = R_L×X⁰_R ∪ X⁰_L×R_R; P^H = P^H_L×X⁰_R ∪ X⁰_L×P^V_R, P^V likewise; X⁰ = X⁰_L×X⁰_R ∪ X^r_L×X^r_R (X^r = X^H ∪ X^V); X^H = X^H_L×X⁰_R ∪ X⁰_L×X^V_R, X^V likewise |
| heterogeneous (L, R; J₀ = X(S), J_H, J_V) | B, R, P^H, P^V as the product; X⁰ = X⁰(S)×X⁰_R ∪ (J_H ∖ N[X⁰_L])×X^H_R ∪ (J_V ∖ N[X⁰_L])×X^V_R; X^H = X^H(S)×X⁰_R ∪ (J_V ∩ N[X⁰_L])×X^V_R; X^V = X^V(S)×X⁰_R ∪ (J_H ∩ N[X⁰_L])×X^H_R |
| swap | P^H ↔ P^V, X^H ↔ X^V |

A side codebook with a count is the main or auxiliary set of a step, optionally mapped by an automorphism applied to
every coordinate group and changed by exchanges of words (Tandon's J = T^⊗k(I), and J⁺ of Appendix B.1). Its count
is checked as |J ∖ N[X⁰_L]| for the left factor L of every step that uses it; its size must be the size the
recursion used, and every inserted word must see no other word of J.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from mathloop.targets.shannon_capacity_c7_recursive import blocks as bk
from mathloop.targets.shannon_capacity_c7_recursive import gadget as gd
from mathloop.targets.shannon_capacity_c7_recursive.blocks import Atoms, Automorphism, Blocks
from mathloop.targets.shannon_capacity_c7_recursive.schema import (
    AuxiliaryOf,
    Construction,
    Counted,
    Heterogeneous,
    Product,
    Swap,
)

MAX_GADGET_DIMENSION = 5  # neighbourhood indicators of 7^n booleans per atom


class NotCheckable(Exception):
    """The sets a count needs cannot be built here (a gadget above dimension 5, or too many blocks)."""


@dataclass(frozen=True)
class Parts:
    """A gadget's sets as block sets: rest B = I ∖ R, centres R, transversals, auxiliary parts."""

    rest: Blocks
    centres: Blocks
    horizontal: Blocks
    vertical: Blocks
    neutral: Blocks
    xh: Blocks
    xv: Blocks

    @property
    def main(self) -> Blocks:
        """Return I = B ∪ R."""
        return self.rest + self.centres

    @property
    def auxiliary(self) -> Blocks:
        """Return X = X⁰ ∪ X^H ∪ X^V."""
        return self.neutral + self.xh + self.xv

    def swapped(self) -> Parts:
        """Return the parts with the transversals (and so X^H, X^V) exchanged."""
        return replace(self, horizontal=self.vertical, vertical=self.horizontal, xh=self.xv, xv=self.xh)


@dataclass(frozen=True)
class CountCheck:
    """One use of a stated count: the step, the side, the computed |J ∖ N[X⁰_L]| and the size of J."""

    count: str
    step: str
    side: str
    stated: int
    computed: int
    codebook_size: int
    expected_size: int


def automorphism_of(spec: Any) -> Automorphism:
    """Return the automorphism of a file entry (source permutation, signs ±1, shifts)."""
    return Automorphism(tuple(spec.source), tuple(spec.sign), tuple(spec.shift))


class SetLevel:
    """Builds steps' sets lazily (only those a count needs) from the file's first-dimension gadgets."""

    def __init__(self, c: Construction) -> None:
        self.c = c
        self.steps = {s.name: s for s in c.steps}
        self.gadgets = {g.name: g for g in c.gadgets}
        dims = {len(g.main[0]) for g in c.gadgets}
        self.n = dims.pop() if len(dims) == 1 else 0
        self.at = Atoms(self.n) if 0 < self.n <= MAX_GADGET_DIMENSION else None
        self.autos = {a.name: automorphism_of(a) for a in c.automorphisms}
        self.exchanges = {e.name: e for e in c.exchanges}
        self._parts: dict[str, Parts] = {}
        self._books: dict[tuple[str, ...], Blocks] = {}
        self._counts: dict[tuple[Blocks, Blocks], int] = {}

    def parts(self, name: str) -> Parts:
        """Return the sets of a gadget or gadget step. Raises NotCheckable."""
        if self.at is None:
            raise NotCheckable(f"counts are checked for constructions whose gadgets share one dimension ≤ "
                               f"{MAX_GADGET_DIMENSION}")
        if name not in self._parts:
            self._parts[name] = self._build(name)
        return self._parts[name]

    def _build(self, name: str) -> Parts:
        at = self.at
        assert at is not None
        if name in self.gadgets:
            fam = gd.family_sets(gd.sets_of(self.gadgets[name]))
            one = {k: ((at.atom(sorted(v)),),) for k, v in fam.items()}
            return Parts(one["B"], one["O"], one["H"], one["V"], one["N"], one["D"], one["A"])
        s = self.steps[name]
        if isinstance(s, Swap):
            return self.parts(s.of).swapped()
        if isinstance(s, Product):
            return product(at, self.parts(s.left), self.parts(s.right))
        if isinstance(s, Heterogeneous):
            return self._heterogeneous(s)
        raise NotCheckable(f"{name} is not a gadget step")

    def _heterogeneous(self, s: Heterogeneous) -> Parts:
        at = self.at
        assert at is not None
        left, right, src = self.parts(s.left), self.parts(s.right), self.parts(s.neutral.auxiliary_of)
        g = product(at, left, right)
        sides = []
        for book in (s.horizontal, s.vertical):
            j = self.codebook(book)
            try:
                sides.append(bk.split(at, j, left.neutral))
            except bk.TooLarge as e:
                raise NotCheckable(f"{s.name}: {e}") from None
        (h_out, h_in), (v_out, v_in) = sides
        def t(*parts: Blocks) -> Blocks:
            return bk.tidy(at, [b for p in parts for b in p])
        return replace(g, neutral=t(bk.cross(src.neutral, right.neutral), bk.cross(h_out, right.xh),
                                    bk.cross(v_out, right.xv)),
                       xh=t(bk.cross(src.xh, right.neutral), bk.cross(v_in, right.xv)),
                       xv=t(bk.cross(src.xv, right.neutral), bk.cross(h_in, right.xh)))

    def codebook(self, book: AuxiliaryOf | Counted) -> Blocks:
        """Return a codebook's words: the named set, its image under the automorphism, then the exchanges."""
        at = self.at
        assert at is not None
        key = tuple(str(v) for v in book.model_dump().values() if v is not None and not isinstance(v, int))
        if key in self._books:
            return self._books[key]
        if isinstance(book, AuxiliaryOf):
            j = bk.tidy(at, self.parts(book.auxiliary_of).auxiliary)
        else:
            base = self.parts(book.main_of).main if book.main_of else self.parts(book.auxiliary_of or "").auxiliary
            j = bk.tidy(at, base)
            if book.image is not None:
                j = bk.tidy(at, bk.image(at, j, self.autos[book.image]))
            if book.exchanges is not None:
                removed, inserted = self._exchange_words(book.exchanges)
                j = bk.exchange(at, j, removed, inserted)
        self._books[key] = j
        return j

    def _exchange_words(self, name: str) -> tuple[list[bk.Block], list[bk.Block]]:
        n = self.n
        def groups(word: str) -> bk.Block:
            return tuple(gd.code(word[i:i + n]) for i in range(0, len(word), n))
        pairs = self.exchanges[name].pairs
        return [groups(r) for r, _ in pairs], [groups(q) for _, q in pairs]

    def exchange_failures(self, book: Counted) -> list[str]:
        """Return why the exchanges of a codebook do not keep it an independent set of the same size."""
        at = self.at
        assert at is not None and book.exchanges is not None
        base = self.parts(book.main_of).main if book.main_of else self.parts(book.auxiliary_of or "").auxiliary
        j = bk.tidy(at, base)
        if book.image is not None:
            j = bk.tidy(at, bk.image(at, j, self.autos[book.image]))
        removed, inserted = self._exchange_words(book.exchanges)
        fails = []
        if len(set(removed)) != len(removed) or len(set(inserted)) != len(inserted):
            fails.append(f"exchanges {book.exchanges}: a word is listed twice")
        if not all(bk.words_in(at, j, removed)):
            fails.append(f"exchanges {book.exchanges}: a removed word is not in the codebook")
        if any(bk.words_in(at, j, inserted)):
            fails.append(f"exchanges {book.exchanges}: an inserted word is already in the codebook")
        if fails:
            return fails
        after = bk.exchange(at, j, removed, inserted)
        for w in inserted:
            others = bk.exchange(at, after, [w], [])
            one = tuple(at.atom([x]) for x in w)
            if bk.count_outside(at, (one,), others) != 1:
                fails.append(f"exchanges {book.exchanges}: an inserted word is equal or adjacent to another word "
                             f"of the codebook")
                break
        return fails

    def check_count(self, s: Heterogeneous, side: str, book: Counted, stated: int, expected: int) -> CountCheck:
        """Return the computed count of one use (J ∖ N[X⁰_L], L the step's left factor). Raises NotCheckable."""
        at = self.at
        j = self.codebook(book)
        assert at is not None
        ref = bk.tidy(at, self.parts(s.left).neutral)
        key = (j, ref)
        if key not in self._counts:
            try:
                self._counts[key] = bk.count_outside(at, j, ref)
            except (ValueError, bk.TooLarge) as e:
                raise NotCheckable(f"{s.name}.{side}: {e}") from None
        return CountCheck(book.count, s.name, side, stated, self._counts[key], bk.size(at, j), expected)


def product(at: Atoms, left: Parts, right: Parts) -> Parts:
    """Return the sets of Gao's product (Lemma 1 at set level)."""
    x = bk.cross

    def t(*parts: Blocks) -> Blocks:
        return bk.tidy(at, [b for p in parts for b in p])
    lr, rr = t(left.xh, left.xv), t(right.xh, right.xv)
    return Parts(
        rest=t(x(left.rest, right.rest), x(left.horizontal, right.xh), x(left.vertical, right.xv),
               x(left.xh, right.vertical), x(left.xv, right.horizontal)),
        centres=t(x(left.centres, right.neutral), x(left.neutral, right.centres)),
        horizontal=t(x(left.horizontal, right.neutral), x(left.neutral, right.vertical)),
        vertical=t(x(left.vertical, right.neutral), x(left.neutral, right.horizontal)),
        neutral=t(x(left.neutral, right.neutral), x(lr, rr)),
        xh=t(x(left.xh, right.neutral), x(left.neutral, right.xv)),
        xv=t(x(left.xv, right.neutral), x(left.neutral, right.xh)))
