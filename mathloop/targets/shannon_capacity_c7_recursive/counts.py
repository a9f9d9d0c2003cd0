"""The `counts` obligation: every neighbourhood count a construction states, recomputed exactly by two code paths.

A count is used by a heterogeneous step (Tandon's Theorem 1) for a side codebook J over the left factor L: it claims
|J ∖ N[X⁰_L]| = value. The block path (`setlevel`, `blocks`) builds J and X⁰_L from the given gadget and counts; the
second path (`explicit`) lists two-group sets word by word and re-checks larger ones on random sub-blocks and with
another grouping. A stated value that differs from the count refutes the obligation (naming the count and the step);
paths that disagree are a checker bug (CheckerCrash), never a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mathloop.targets.base import CheckerCrash
from mathloop.targets.shannon_capacity_c7_recursive import blocks as bk
from mathloop.targets.shannon_capacity_c7_recursive import explicit as ex
from mathloop.targets.shannon_capacity_c7_recursive import gadget as gd
from mathloop.targets.shannon_capacity_c7_recursive.schema import Construction, Counted, Heterogeneous, Product, Swap
from mathloop.targets.shannon_capacity_c7_recursive.setlevel import NotCheckable, SetLevel

Use = tuple[Heterogeneous, str, Counted, int]


@dataclass
class Report:
    """Refuting lines, lines for counts that could not be checked, and a row per count for the evidence."""

    failures: list[str] = field(default_factory=list)
    open: list[str] = field(default_factory=list)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)

    def failed_counts(self) -> int:
        """Return the number of counts that are refuted or open (the obligation's rank)."""
        return sum(1 for r in self.rows.values() if r["status"] != "checked")


def check(c: Construction, uses: list[Use]) -> Report:
    """Return the report for every use of a stated count (both paths run; they must agree)."""
    rep = Report()
    sl = SetLevel(c)
    values = {k.name: k.value for k in c.counts}
    seen_books: set[str] = set()
    second: dict[tuple[bk.Blocks, bk.Blocks], str] = {}
    wrong: dict[tuple[str, int, int], list[str]] = {}  # (count, stated, computed) -> the uses
    for s, side, book, expected in uses:
        where, name = f"{s.name}.{side}", book.count
        row = rep.rows.setdefault(name, {"stated": str(values[name]), "uses": [], "status": "checked"})
        row["uses"].append(where)
        try:
            fails = []
            if book.exchanges is not None and book.exchanges not in seen_books:
                seen_books.add(book.exchanges)
                fails += [f"count {name} ({where}): {f}" for f in sl.exchange_failures(book)]
            j, ref = sl.codebook(book), bk.tidy(sl.at, sl.parts(s.left).neutral)  # type: ignore[arg-type]
            if j and ref and len(j[0]) != len(ref[0]):
                fails.append(f"count {name} ({where}): the codebook has {len(j[0]) * sl.n} coordinates, the left "
                             f"factor {len(ref[0]) * sl.n}")
            else:
                chk = sl.check_count(s, side, book, values[name], expected)
                row["checked"] = str(chk.computed)
                if chk.codebook_size != expected:
                    fails.append(f"count {name} ({where}): the codebook has {chk.codebook_size} words, the recursion "
                                 f"takes {expected}")
                if chk.computed != chk.stated:
                    wrong.setdefault((name, chk.stated, chk.computed), []).append(where)
                if (j, ref) not in second:
                    second[(j, ref)] = _second_path(sl, c, s, book, j, ref, chk.computed, name)
                row["second_path"] = second[(j, ref)]
        except (NotCheckable, bk.TooLarge) as e:
            rep.open.append(f"count {name} ({where}): not checked here ({e})")
            row["status"] = "open"
            continue
        if fails:
            rep.failures += fails
            row["status"] = "refuted"
    for (name, stated, computed), wheres in wrong.items():
        rep.failures.append(f"count {name} = {stated} is stated, but |J ∖ N(X⁰_L)| = {computed} "
                            f"({', '.join(wheres)})")
        rep.rows[name]["status"] = "refuted"
    return rep


def _second_path(sl: SetLevel, c: Construction, s: Heterogeneous, book: Counted, j: bk.Blocks, ref: bk.Blocks,
                 counted: int, name: str) -> str:
    """Return what the second path did; raise CheckerCrash when it disagrees with the block path."""
    at = sl.at
    assert at is not None
    base = book.main_of or book.auxiliary_of or ""
    fb, fl = _factor_families(c, sl.n, base), _factor_families(c, sl.n, s.left)
    if len(j[0]) == 2 and fb is not None and fl is not None:
        listed = ex.listed(fb[0], fb[1], "main" if book.main_of else "auxiliary")
        t = sl.autos[book.image] if book.image is not None else None
        removed, inserted = sl._exchange_words(book.exchanges) if book.exchanges else ([], [])
        words, problems = ex.codebook(listed, sl.n, t, [(w[0], w[1]) for w in removed],
                                      [(w[0], w[1]) for w in inserted])
        if problems:
            raise CheckerCrash(f"count {name}: the listed codebook fails where the block path passed: {problems[0]}")
        blockwise = ex.pairs_of(at, j)
        if len(blockwise) != len(words) or not np.array_equal(np.unique(blockwise, axis=0), words):
            raise CheckerCrash(f"count {name}: the listed codebook differs from the block path's")
        got = ex.outside_pairs(words, ex.neutral(fl[0], fl[1]), sl.n)
        if got != counted:
            raise CheckerCrash(f"count {name}: {got} by listed words, {counted} by blocks")
        return f"listed: {len(words)} words of J, independent, {got} outside N(X⁰_L)"
    tested, outside, bad = ex.sampled(at, j, ref, f"{name}:{s.name}")
    if bad:
        raise CheckerCrash(f"count {name}: {bad[0]}")
    other = ex.full_count(at, j, ref)
    if other is None:
        raise NotCheckable(f"the second path counts at most six coordinate groups, this codebook has {len(j[0])}")
    if other != counted:
        raise CheckerCrash(f"count {name}: {other} with pairs of groups listed, {counted} by the block counter")
    return (f"recounted with pairs of groups listed ({other}); {ex.SAMPLES} random sub-blocks ({tested} words, "
            f"{outside} outside) agree word by word")


def _factor_families(c: Construction, n: int, name: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None:
    """Return the listed families of the two given gadgets (or swaps) whose product `name` is, else None."""
    steps = {s.name: s for s in c.steps}
    gadgets = {g.name: g for g in c.gadgets}

    def fam(x: str, swapped: bool = False) -> dict[str, np.ndarray] | None:
        if x in gadgets:
            return ex.families(gd.family_sets(gd.sets_of(gadgets[x])), n, swapped)
        s = steps.get(x)
        return fam(s.of, not swapped) if isinstance(s, Swap) else None

    s = steps.get(name)
    if not isinstance(s, Product):
        return None
    left, right = fam(s.left), fam(s.right)
    return (left, right) if left is not None and right is not None else None
