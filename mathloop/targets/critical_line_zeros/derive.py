"""Derive the explicit chunk a range candidate (certificate.Recipe) names: its blocks and sample points.

The Gram points g_start..g_end are evaluated once (the checker's own certified balls, reused by
verify.verify_chunk); the blocks end at the good ones, the last block ends at g_end whatever its
sign (verify refutes a bad end), and the points come from sampling.py's recipe at the candidate's
refinement level, with merges stopped at g_end. Nothing here decides anything: the derived chunk is
checked like any given chunk, so a bug here can only make a check fail, never pass a wrong one.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from mathloop.targets.critical_line_zeros.certificate import Block, Chunk, Recipe
from mathloop.targets.critical_line_zeros.hardy_z import SignedBall, evaluate_specs, evaluate_specs_fast
from mathloop.targets.critical_line_zeros.sampling import GramTable, blocks_between


def gram_floats(ms: range):
    """Return g_m as floats (the fast path's t* where it applies, the dyadic midpoint of Arb's ball below)."""
    from mathloop.targets.critical_line_zeros import rs_gram

    pts = rs_gram.gram_arrays(ms)
    return (pts.base + pts.off).tolist()


def derive(rec: Recipe, ladder: tuple[int, ...], fast_z: bool) -> tuple[Chunk, tuple[list[SignedBall], tuple[int, int]]]:
    """Return the explicit chunk of `rec` and the Gram balls (with fast-path counts) it was derived from."""
    ms = range(rec.start, rec.end + 1)
    specs = [("g", str(m)) for m in ms]
    balls, fast = evaluate_specs_fast(specs, ladder) if fast_z else (evaluate_specs(specs, ladder), (0, 0))
    signs = np.array([b.sign for b in balls])
    gram = _Capped(rec.end)
    gram.add(ms, signs.tolist(), gram_floats(ms))
    # the Gram blocks end at the good Gram points after g_start, and the last at g_end
    good = signs[1:-1] == np.where(np.arange(rec.start + 1, rec.end) % 2 == 0, 1, -1)
    ends = (np.flatnonzero(good) + rec.start + 1).tolist() + [rec.end]
    blocks = blocks_between(rec.start, rec.end, gram, rec.refine, ladder, limit=rec.end, ends=ends)
    typed = tuple(Block(b["end"], tuple(map(Fraction, b["points"])), tuple(b["points"]), True) if b.get("merged")
                  else Block(b["end"], tuple(map(Fraction, b["points"])), tuple(b["points"])) if b["points"]
                  else Block(b["end"], (), ()) for b in blocks)
    return Chunk(rec.start, typed, rec.parent), (balls, fast)


class _Capped(GramTable):
    """A Gram table that ends at g_cap: the walk to the next good Gram point stops there."""

    def __init__(self, cap: int) -> None:
        super().__init__(None)
        self.cap = cap

    def good(self, m: int, ahead: int) -> bool:
        return m >= self.cap or super().good(m, ahead)
