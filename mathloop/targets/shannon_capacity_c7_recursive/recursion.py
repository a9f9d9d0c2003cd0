"""Evaluate a recursive construction: exact checks of its finite parts, exact integer sizes from the stated theorems.

Each step is either checked here in full (gadgets, families of a given gadget, admissibility of rules and codes,
the side conditions of codebooks) or computed from a theorem taken as given; `Result.hypotheses` names the theorems a
construction used, so that its bound is shown conditional on exactly those:

| step | size computed by | taken as given |
|---|---|---|
| `product` | Gao's Lemma 1: (a, t, s, o, h, v) of the product from the factors' profiles | `gao-product` |
| `heterogeneous` | Tandon's Theorem 1 (eqs. 38–39) with codebooks J₀, J_H, J_V | `heterogeneous-product` |
| `families` | of a given gadget: its seven families, checked here; of a derived gadget: (a − t, o, v, h, t, t, t) | `family-conversion` (derived only) |
| `rule`, `code` | Buys–Polak–Zuiddam Proposition 1 and terminal codes (eq. 85), after the admissibility check | `bpz-combining` |
| `swap` | exchange of the transversals (Definition 2 is symmetric in them) | — |

A stated count (`counts`) is not checked here: `Result.count_uses` lists every use (step, side, codebook, the size
the recursion takes for it), and the target checks each one at set level (`setlevel`) before giving a bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mathloop.targets.base import Malformed
from mathloop.targets.shannon_capacity_c7_recursive import gadget as gd
from mathloop.targets.shannon_capacity_c7_recursive import rules
from mathloop.targets.shannon_capacity_c7_recursive.gadget import Profile
from mathloop.targets.shannon_capacity_c7_recursive.schema import (
    ApplyCode,
    ApplyRule,
    AuxiliaryOf,
    Construction,
    Counted,
    Families,
    Heterogeneous,
    Product,
    Swap,
)

GAO, HETEROGENEOUS, CONVERSION, BPZ = "gao-product", "heterogeneous-product", "family-conversion", "bpz-combining"
GADGET, FAMILIES, SET = "gadget", "families", "set"


def shapes(c: Construction, max_dimension: int) -> dict[str, tuple[str, int]]:
    """Return every name's (kind, dimension). Raises Malformed for a step given the wrong kind of input or a
    dimension above `max_dimension` (structure, refused before any arithmetic)."""
    out: dict[str, tuple[str, int]] = {g.name: (GADGET, len(g.main[0])) for g in c.gadgets}
    arity = {**{r.name: "rule" for r in c.rules}, **{k.name: "code" for k in c.codes}}
    arity.update({k.name: "count" for k in c.counts})
    arity.update({a.name: "automorphism" for a in c.automorphisms})
    arity.update({e.name: "exchanges" for e in c.exchanges})
    gadget_dims = {len(g.main[0]) for g in c.gadgets}
    for i, s in enumerate(c.steps):
        def need(key: str, name: str, kind: str, i: int = i) -> int:
            got = out.get(name, (arity.get(name, "?"), 0))
            if got[0] != kind:
                raise Malformed(f"steps[{i}].{key}: {name!r} is a {got[0]}, not a {kind}")
            return got[1]
        if isinstance(s, (Product, Heterogeneous)):
            dim, kind = need("left", s.left, GADGET) + need("right", s.right, GADGET), GADGET
            for key in ("neutral", "horizontal", "vertical") if isinstance(s, Heterogeneous) else ():
                book = getattr(s, key)
                for ref, name in book.model_dump().items():
                    if name is not None:
                        need(f"{key}.{ref}", name, ref if ref in ("count", "automorphism", "exchanges") else
                             "automorphism" if ref == "image" else GADGET)
                if isinstance(book, Counted):
                    _codebook_shapes(c, book, out, gadget_dims, f"steps[{i}].{key}")
        elif isinstance(s, (Swap, Families)):
            dim, kind = need("of", s.of, GADGET), GADGET if isinstance(s, Swap) else FAMILIES
        else:
            book = s.rule if isinstance(s, ApplyRule) else s.code
            want = "rule" if isinstance(s, ApplyRule) else "code"
            if arity.get(book) != want:
                raise Malformed(f"steps[{i}].{want}: {book!r} is not a {want}")
            dim = sum(need(f"inputs[{j}]", x, FAMILIES) for j, x in enumerate(s.inputs))
            kind = FAMILIES if isinstance(s, ApplyRule) else SET
        if dim > max_dimension:
            raise Malformed(f"steps[{i}]: dimension {dim} is above the limit {max_dimension}")
        out[s.name] = (kind, dim)
    if out[c.result][0] == FAMILIES:
        raise Malformed(f"result: {c.result!r} is a seven-family, not an independent set (apply a code)")
    if out[c.result][0] not in (GADGET, SET):
        raise Malformed(f"result: {c.result!r} is not a step or gadget")
    return out


@dataclass
class _Gadget:
    dim: int
    profile: Profile
    sets: gd.GadgetSets | None  # only for the given gadgets (and their swaps)
    aux: Any  # the auxiliary set's identity: equal keys, equal auxiliary sets and neutral parts
    origin: tuple[str, str] | None  # (left, right) of a product step: same code, pairs and transversals


@dataclass
class Result:
    """What the evaluation found: failures (one line each), what was used, and the final size and dimension."""

    gadget_failures: list[str] = field(default_factory=list)
    combinator_failures: list[str] = field(default_factory=list)
    counts: list[str] = field(default_factory=list)
    count_uses: list[tuple[Heterogeneous, str, Counted, int]] = field(default_factory=list)
    hypotheses: list[str] = field(default_factory=list)
    size: int = 0
    dimension: int = 0
    trace: list[dict[str, Any]] = field(default_factory=list)

    def uses(self, hypothesis: str) -> None:
        """Record that a theorem taken as given was used."""
        if hypothesis not in self.hypotheses:
            self.hypotheses.append(hypothesis)


def evaluate(c: Construction) -> Result:
    """Return the checks' findings and the exact size of the result (0 when a gadget failed its definition)."""
    res = Result()
    val: dict[str, Any] = {}
    for g in c.gadgets:
        fails, sets = gd.definition_failures(g)
        res.gadget_failures += fails
        val[g.name] = _Gadget(sets.n, gd.profile(sets), sets, g.name, None)
        res.trace.append({"name": g.name, "op": "gadget", "dimension": sets.n,
                          "profile": list(_tuple(val[g.name].profile))})
    if res.gadget_failures:
        return res
    rule_of = {r.name: r for r in c.rules}
    code_of = {k.name: k for k in c.codes}
    count_of = {k.name: k.value for k in c.counts}
    for s in c.steps:
        if isinstance(s, Product):
            left, right = val[s.left], val[s.right]
            res.uses(GAO)
            val[s.name] = _Gadget(left.dim + right.dim, gao(left.profile, right.profile), None,
                                  ("x", left.aux, right.aux), (s.left, s.right))
        elif isinstance(s, Swap):
            g = val[s.of]
            origin = None if g.origin is None else ("σ", *g.origin)  # transversals exchanged: not the same pairs' sides
            val[s.name] = _Gadget(g.dim, g.profile.swapped(), None if g.sets is None else g.sets.swapped(), g.aux,
                                  origin)
        elif isinstance(s, Heterogeneous):
            val[s.name] = _heterogeneous(s, val, count_of, res)
        elif isinstance(s, Families):
            g = val[s.of]
            if g.sets is not None:
                res.combinator_failures += gd.family_failures(s.of, g.sets)
                sizes = tuple(len(f) for f in gd.family_sets(g.sets).values())
            else:
                res.uses(CONVERSION)
                sizes = g.profile.families()
            val[s.name] = (g.dim, sizes)
        elif isinstance(s, ApplyRule):
            r = rule_of[s.rule]
            res.combinator_failures += rules.rule_failures(r.name, r.families, len(s.inputs))
            res.uses(BPZ)
            val[s.name] = (sum(val[x][0] for x in s.inputs), rules.apply_rule(r.families, [val[x][1] for x in s.inputs]))
        else:
            k = code_of[s.code]
            res.combinator_failures += rules.code_failures(k.name, k.words, len(s.inputs))
            res.uses(BPZ)
            val[s.name] = (sum(val[x][0] for x in s.inputs), rules.apply_code(k.words, [val[x][1] for x in s.inputs]))
        res.trace.append(_row(s, val[s.name]))
    out = val[c.result]
    res.dimension, res.size = (out.dim, out.profile.a) if isinstance(out, _Gadget) else out
    return res


def gao(left: Profile, right: Profile) -> Profile:
    """Return the profile of Gao's product (Lemma 1, as stated in arXiv:2607.27869 and Tandon's eq. 22)."""
    a1, t1, s1, o1, h1, v1 = _tuple(left)
    a2, t2, s2, o2, h2, v2 = _tuple(right)
    return Profile((a1 - t1) * (a2 - t2) + t1 * s2 + s1 * t2, t1 * o2 + o1 * t2, s1 * s2,
                   o1 * o2 + (h1 + v1) * (h2 + v2), h1 * o2 + o1 * v2, v1 * o2 + o1 * h2)


def _codebook_shapes(c: Construction, book: Counted, out: dict[str, tuple[str, int]], gadget_dims: set[int],
                     where: str) -> None:
    """Refuse an automorphism or exchange words that do not fit the codebook's dimension."""
    src = book.main_of or book.auxiliary_of
    dim = out[src][1] if src in out else 0
    if book.image is not None:
        k = len(next(a for a in c.automorphisms if a.name == book.image).source)
        if gadget_dims != {k} or dim % k:
            raise Malformed(f"{where}.image: the automorphism acts on {k} coordinates, not on the gadgets' groups of "
                            f"a {dim}-dimensional codebook")
    if book.exchanges is not None:
        e = next(e for e in c.exchanges if e.name == book.exchanges)
        if any(len(w) != dim for pair in e.pairs for w in pair):
            raise Malformed(f"{where}.exchanges: the words of {book.exchanges!r} must have {dim} digits, the "
                            f"codebook's dimension")


def _heterogeneous(s: Heterogeneous, val: dict[str, Any], count_of: dict[str, int], res: Result) -> _Gadget:
    """Return Theorem 1's product; codebook side conditions that fail are recorded as combinator failures."""
    left, right = val[s.left], val[s.right]
    res.uses(HETEROGENEOUS)
    src = val[s.neutral.auxiliary_of]
    if not (s.neutral.auxiliary_of == s.left or (src.origin is not None and src.origin == left.origin)):
        res.combinator_failures.append(
            f"{s.name}: J₀ = X({s.neutral.auxiliary_of}) is not known to avoid N(P^H) ∩ N(P^V) of {s.left} (it must be "
            f"{s.left}'s own auxiliary set or that of a product of the same two inputs)")
    p = src.profile
    j0, o0, h0, v0 = p.s, p.o, p.h, p.v
    books = []
    for key, book in (("horizontal", s.horizontal), ("vertical", s.vertical)):
        if isinstance(book, AuxiliaryOf):
            b = val[book.auxiliary_of]
            if b.aux != left.aux:
                res.combinator_failures.append(
                    f"{s.name}.{key}: X({book.auxiliary_of}) is not the auxiliary set of {s.left}, so q = s − o "
                    f"(the trivial count) does not apply")
            books.append((b.profile.s, b.profile.s - b.profile.o))
        else:  # Counted
            if (book.main_of is None) == (book.auxiliary_of is None):
                res.combinator_failures.append(f"{s.name}.{key}: give exactly one of main_of, auxiliary_of")
                books.append((0, 0))
                continue
            size = val[book.main_of].profile.a if book.main_of else val[book.auxiliary_of].profile.s
            q = count_of[book.count]
            if q > size:
                res.combinator_failures.append(f"{s.name}.{key}: count {book.count} = {q} exceeds the codebook size {size}")
            if book.count not in res.counts:
                res.counts.append(book.count)
            res.count_uses.append((s, key, book, size))
            books.append((size, q))
    (jh, qh), (jv, qv) = books
    aL, tL, sL, oL, _, _ = _tuple(left.profile)
    aR, tR, sR, oR, hR, vR = _tuple(right.profile)
    out = Profile((aL - tL) * (aR - tR) + tL * sR + sL * tR, tL * oR + oL * tR, j0 * oR + jh * hR + jv * vR,
                  o0 * oR + qh * hR + qv * vR, h0 * oR + (jv - qv) * vR, v0 * oR + (jh - qh) * hR)
    return _Gadget(left.dim + right.dim, out, None, ("het", s.name), (s.left, s.right))


def _tuple(p: Profile) -> tuple[int, int, int, int, int, int]:
    return (p.a, p.t, p.s, p.o, p.h, p.v)


def _row(s: Any, v: Any) -> dict[str, Any]:
    if isinstance(v, _Gadget):
        return {"name": s.name, "op": s.op, "dimension": v.dim, "profile": [str(x) for x in _tuple(v.profile)]}
    dim, sizes = v
    key = "size" if isinstance(s, ApplyCode) else "families"
    return {"name": s.name, "op": s.op, "dimension": dim,
            key: str(sizes) if isinstance(sizes, int) else [str(x) for x in sizes]}
