"""The shannon-capacity-c7 proposal form: a linear code plus listed words, kept greedily, so every reply is independent.

A reply {"generator": [...], "vertices": [...]} holds words of exactly N digits 0..6 (N = 5, the record's power, or
the contract's max_n when smaller): 0..MAX_ROWS generator rows and 0..MAX_LISTED further vertices. The candidate is
read in a fixed order — the codewords u·G mod 7 for u in (Z/7)^k in lexicographic order (u = 0 first, so the zero
word always leads), then the listed vertices as written — and each word is kept unless it is equal or adjacent (every
coordinate equal or ±1 mod 7) to a word kept before it. The kept words are pairwise non-adjacent and distinct, so
every reply maps to an independent set of C7^⊠N (never empty); the stored payload is {"n": N, "vertices": the kept
words, sorted}. A code whose non-zero codewords all have a coordinate in 2..5 is kept whole (3 rows: 343 words).
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from mathloop.targets.base import Malformed
from mathloop.targets.form import ProposalForm, object_schema
from mathloop.targets.payload import exact_keys
from mathloop.targets.shannon_capacity_c7.graph import Q

FORM_N = 5  # the power of the published records (343, 350, 367 vertices)
MAX_ROWS = 4  # 7^4 = 2401 codewords at most
MAX_LISTED = 64  # listed vertices a model can write in one reply
EXPLANATION = """Reply with words of exactly {n} digits 0..6 (a vertex of C7^⊠{n}, e.g. "01234"):
  generator: 0 to {rows} rows; their code {{u·G mod 7}} (7^rows words) is read first;
  vertices: 0 to {listed} more words, read after the code.
Every word equal or adjacent (in every coordinate equal or ±1 mod 7) to a word kept before it is dropped, so the
kept set is always independent; its value is |set|^(1/{n}) (more than 3^{n} = {beat} words beats 3). A code whose
non-zero codewords all have some coordinate in 2..5 is kept whole: 3 rows give 343 words."""


def word_schema(n: int) -> dict[str, Any]:
    """Return the schema of one word: exactly n digits 0..6."""
    return {"type": "string", "pattern": f"^[0-6]{{{n}}}$", "minLength": n, "maxLength": n}


def _words(field: str, value: Any, n: int, most: int) -> list[tuple[int, ...]]:
    """Return the words of a list field. Raises Malformed naming the field and the reason."""
    if not isinstance(value, list):
        raise Malformed(f"{field}: must be a list of {n}-digit words (digits 0..6)")
    if len(value) > most:
        raise Malformed(f"{field}: {len(value)} entries, must be 0 to {most}")
    out = []
    for i, w in enumerate(value):
        if not isinstance(w, str) or len(w) != n or any(c not in "0123456" for c in w):
            raise Malformed(f"{field}[{i}]: must be a word of exactly {n} digits 0..6, got {str(w)[:24]!r}")
        out.append(tuple(int(c) for c in w))
    return out


def codewords(rows: Sequence[tuple[int, ...]], n: int) -> Iterator[tuple[int, ...]]:
    """Yield u·G mod 7 for u in (Z/7)^k in lexicographic order (the zero word first; k = 0 gives it alone)."""
    for u in itertools.product(range(Q), repeat=len(rows)):
        yield tuple(sum(c * r[j] for c, r in zip(u, rows)) % Q for j in range(n))


def closed_neighbourhood(w: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Yield w and every word adjacent to it (each coordinate moved by 0 or ±1 mod 7): 3^n words."""
    for d in itertools.product((0, 1, Q - 1), repeat=len(w)):
        yield tuple((a + b) % Q for a, b in zip(w, d))


def keep_greedily(words: Iterable[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Return the words kept in order: each unless it equals or is adjacent to an earlier kept word."""
    kept: list[tuple[int, ...]] = []
    blocked: set[tuple[int, ...]] = set()  # the closed neighbourhoods of the kept words
    for w in words:
        if w not in blocked:
            kept.append(w)
            blocked.update(closed_neighbourhood(w))
    return kept


def linear_basis(vertices: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]] | None:
    """Return rows whose code (read in the form's order) is exactly this set, or None when it is no subspace."""
    basis: list[tuple[int, ...]] = []
    span = {tuple(0 for _ in vertices[0])}
    for v in vertices:
        if v in span:
            continue
        if len(basis) == MAX_ROWS:
            return None
        basis.append(v)
        span = {tuple((a + c * b) % Q for a, b in zip(s, v)) for s in span for c in range(Q)}
    return basis if span == set(vertices) else None


class CodeForm:
    """The generator + vertices form in C7^⊠n; `form()` returns the ProposalForm."""

    def __init__(self, max_n: int, parse: Callable[[Any], Any]) -> None:
        self.n = min(FORM_N, max_n)
        self.parse = parse

    def to_payload(self, reply: Any) -> dict[str, Any]:
        """Return {"n": N, "vertices": the kept words, sorted} (an independent set). Raises Malformed off the form."""
        exact_keys(reply, ("generator", "vertices"))
        rows = _words("generator", reply["generator"], self.n, MAX_ROWS)
        listed = _words("vertices", reply["vertices"], self.n, MAX_LISTED)
        kept = keep_greedily(itertools.chain(codewords(rows, self.n), listed))
        return self.parse({"n": self.n, "vertices": [list(w) for w in kept]}).payload()

    def from_payload(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """Return a set of C7^⊠N in the form: a linear code as its basis, else at most MAX_LISTED words; else None."""
        try:
            c = self.parse(state)
        except Malformed:
            return None
        if c.n != self.n:
            return None
        word = "".join
        basis = linear_basis(c.vertices)
        if basis is not None:
            return {"generator": [word(map(str, v)) for v in basis], "vertices": []}
        if len(c.vertices) > MAX_LISTED:
            return None
        return {"generator": [], "vertices": [word(map(str, v)) for v in c.vertices]}

    def form(self) -> ProposalForm:
        word = word_schema(self.n)
        schema = object_schema({"generator": {"type": "array", "items": word, "minItems": 0, "maxItems": MAX_ROWS},
                                "vertices": {"type": "array", "items": word, "minItems": 0, "maxItems": MAX_LISTED}})
        text = EXPLANATION.format(n=self.n, rows=MAX_ROWS, listed=MAX_LISTED, beat=3**self.n)
        return ProposalForm(f"c7 code + words in C7^⊠{self.n}", schema, self.to_payload, self.from_payload, text)
