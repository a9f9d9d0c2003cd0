"""Gram blocks and rational sample points: one deterministic recipe for the proposer and the checker.

Block boundaries are the good Gram points (signs of Z at Gram points as the checker decides them).
Inside a block of k - j > 1 Gram intervals, Z is scanned on a grid that is refined (x4 per step)
until k - j sign changes show up; close zero pairs (Lehmer's phenomenon, e.g. near t = 7005) are
the reason for the refinement. One point per run of equal sign is kept: the one with largest |Z|.
Only signs the fast path proves (rs_rigorous: |value| > bound; Arb below t = 1000) take part, and
grid positions are IEEE operations on the fast path's Gram points, so the recipe gives the same
points on every machine: a chunk named by its range and refinement level (certificate.Recipe) is
re-derived by the checker, which then checks the points like any others (verify.py). Every block
of a range is scanned at once, one kernel call per refinement step. A block whose sign changes
stay short is widened to a union of Gram blocks (Rosser-rule violations), at most MAX_MERGE times.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from mathloop.targets.critical_line_zeros.gram import expected_sign
from mathloop.targets.critical_line_zeros.hardy_z import definite

DENSITIES = (4, 16, 64, 256, 1024)
MAX_MERGE = 3  # Gram blocks appended to a block whose sign changes fall short
_FILL = 256  # Gram points evaluated per call while looking for the next good one


def point_text(t: float) -> str:
    """Return the decimal string of a proposed point (10 decimals: exact once written).

    >>> point_text(282.4600000000001)
    '282.4600000000'
    """
    return f"{t:.10f}"


def densities(boost: int) -> tuple[int, ...]:
    """Return the grid densities (points per Gram interval) tried at refinement level `boost`.

    Only blocks whose sign changes are still short go on to the next density, so the finer
    steps cost little; level 0 already goes to 4096 (a block near g_839024 needs it), each
    further level adds one step of x4.
    """
    return DENSITIES + tuple(1024 * 4**i for i in range(1, boost + 2))


def grid_signs(texts: Sequence[str], ladder: Sequence[int]) -> list[tuple[int, float]]:
    """Return (proved sign or 0, |value|) of Z at decimal points: the fast path's bound, Arb's 64 bits below t = 1000."""
    from mathloop.targets.critical_line_zeros import rs_rigorous

    if not texts:
        return []
    value, bound, ok = rs_rigorous.enclose_points(decimal_points(texts))
    sure = ok & (np.abs(value) > bound)
    sign = np.where(sure, np.where(value > 0, 1, -1), 0).tolist()
    mag = np.abs(value).tolist()
    for i in np.nonzero(~ok)[0].tolist():
        b = definite("q", Fraction(texts[i]), tuple(ladder)[:1])
        sign[i], mag[i] = b.sign, abs(float(b.mid))
    return list(zip(sign, mag))


def decimal_points(texts: Sequence[str]):
    """Return rs_rigorous.Points.of([Point.of(x) for x in texts]) for texts "W.F" with 10 decimals, whole arrays at once.

    The same bits: Point.minus(b) is float(num - b den) / float(den), here float((W - b) 10^10 + F) / 1e10
    with the integer formed exactly in int64 (|W - b| < 2^20, F < 10^10) and 10^10 a float exactly.
    """
    from mathloop.targets.critical_line_zeros import rs_rigorous as rr

    whole = np.array([int(x[:-11]) for x in texts], dtype=np.int64)
    frac = np.array([int(x[-10:]) for x in texts], dtype=np.int64)
    off = frac.astype(float) / 1e10
    base_f = whole.astype(float)
    t_f = base_f + off
    th, e_th = np.zeros(len(texts)), np.zeros(len(texts))
    rat = np.nonzero(t_f >= rr.RS_MIN_T)[0]
    if len(rat):
        theta, e_theta = np.empty(len(rat)), np.empty(len(rat))
        for (s_base, h_abs), idx in rr.theta_groups(t_f[rat]).items():
            hs = ((whole[rat[idx]] - s_base) * 10**10 + frac[rat[idx]]).astype(float) / 1e10
            theta[idx], e_theta[idx] = rr.theta_base(s_base, h_abs).eval(hs)
        th[rat] = theta * rr.INV_TWO_PI
        e_th[rat] = np.abs(theta) * (1.01 * rr.U * rr.INV_TWO_PI + rr.E_INV_TWO_PI) + e_theta * 0.16
    return rr.Points(base_f, off, 3.01 * rr.U * off, np.zeros(len(texts)), th, e_th)


class GramTable:
    """Signs and floats of Gram points (dicts by index), filled on demand through `fill(a, b)`."""

    def __init__(self, fill: Callable[[range], tuple[Sequence[int], Sequence[float]]] | None = None) -> None:
        self.sign: dict[int, int] = {}
        self.t: dict[int, float] = {}
        self._fill = fill

    def add(self, ms: Sequence[int], signs: Sequence[int], floats: Sequence[float]) -> None:
        self.sign.update(zip(ms, signs))
        self.t.update(zip(ms, floats))

    def good(self, m: int, ahead: int) -> bool:
        if m not in self.sign:
            if self._fill is None:
                raise KeyError(m)
            ms = range(m, max(m + _FILL, ahead))
            self.add(ms, *self._fill(ms))
        return self.sign[m] == expected_sign(m)

    def next_good(self, m: int, ahead: int = 0) -> int:
        while not self.good(m, ahead):
            m += 1
        return m


def _runs(j: int, k: int, gram: GramTable, known: dict[str, tuple[float, int, float]]) -> list[tuple[int, str | None]]:
    """Return the runs of equal sign along the block as (sign, representative point or None)."""
    seq: list[tuple[float, int, str | None, float]] = [(gram.t[m], gram.sign[m] or 1, None, 0.0) for m in range(j, k + 1)]
    seq += [(t, s, text, mag) for text, (t, s, mag) in known.items() if s]
    seq.sort(key=lambda x: x[0])
    runs: list[tuple[int, str | None, float]] = []
    for _, s, text, mag in seq:
        if runs and runs[-1][0] == s:
            if runs[-1][1] is None:
                continue  # a Gram point already witnesses this run's sign
            if text is None:
                runs[-1] = (s, None, 0.0)
            elif mag > runs[-1][2]:
                runs[-1] = (s, text, mag)
        else:
            runs.append((s, text, mag))
    return [(s, text) for s, text, _ in runs]


def sample_blocks(spans: Sequence[tuple[int, int]], gram: GramTable, boost: int, ladder: Sequence[int]) -> list[tuple[list[str], bool]]:
    """Return (points, whether the k - j sign changes were found) for each block [g_j, g_k), all scanned together."""
    out: list[tuple[list[str], bool]] = [([], True)] * len(spans)
    todo = [i for i, (j, k) in enumerate(spans) if k - j > 1]  # one interval: its good ends give the change
    known: dict[int, dict[str, tuple[float, int, float]]] = {i: {} for i in todo}
    for dens in densities(boost):
        if not todo:
            break
        texts, owner, tfs = [], [], []
        for i in todo:
            j, k = spans[i]
            seen = known[i]
            for m in range(j, k):
                a, b = gram.t[m], gram.t[m + 1]
                for r in range(1, dens):
                    t = a + (b - a) * r / dens
                    text = point_text(t)
                    if text not in seen:
                        texts.append(text)
                        owner.append(i)
                        tfs.append(float(text))
        for text, tf, (s, mag), i in zip(texts, tfs, grid_signs(texts, ladder), owner):
            known[i][text] = (tf, s, mag)
        left = []
        for i in todo:
            j, k = spans[i]
            runs = _runs(j, k, gram, known[i])
            found = len(runs) - 1 >= k - j
            out[i] = ([r[1] for r in runs if r[1] is not None], found)
            if not found:
                left.append(i)
        todo = left
    return out


def blocks_between(start: int, stop: int, gram: GramTable, boost: int, ladder: Sequence[int],
                   limit: int | None = None, ends: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Return the blocks from the good Gram point g_start up to the first good Gram point >= stop, with points.

    Each block is {"end", "points"} (+ "merged": True for a union of Gram blocks). With `limit` set,
    no block ends past g_limit (a merge stops there; the checker then refutes the short block).
    `ends`: the Gram blocks' ends when already known (the good Gram points after g_start, then g_stop).
    """
    if ends is None:
        spans, j = [], start
        while j < stop:
            k = gram.next_good(j + 1, stop + 1)
            spans.append((j, k))
            j = k
    else:
        spans = list(zip([start, *ends[:-1]], ends))
    blocks: list[dict[str, Any]] = []
    for (j, k), (points, found) in zip(spans, sample_blocks(spans, gram, boost, ladder)):
        if blocks and j < blocks[-1]["end"]:
            continue  # swallowed by the merged block before it (which ends at a later span's start)
        if found:
            blocks.append({"end": k, "points": points})
            continue
        # A Rosser-rule violation (or a pair too close to see): count a union of Gram blocks.
        for _ in range(MAX_MERGE):
            if limit is not None and k >= limit:
                break
            k = gram.next_good(k + 1, k + 64)
            points, found = sample_blocks([(j, k)], gram, boost, ladder)[0]
            if found:
                break
        blocks.append({"end": k, "points": points, "merged": True})
    return blocks


def bad_inside(blocks: Sequence[dict[str, Any]], start: int, gram: GramTable) -> list[tuple[int, int | None]]:
    """Return, per block, the number of bad Gram points inside it and the first of them (the state's counters)."""
    out, j = [], start
    for b in blocks:
        inner = [m for m in range(j + 1, b["end"]) if gram.sign[m] != expected_sign(m)]
        out.append((len(inner), inner[0] if inner else None))
        j = b["end"]
    return out


def build_piece(job: tuple[int, int, bool, int, tuple[int, ...]]) -> dict[str, Any]:
    """Return {"start", "end", "blocks", "bad"} for the Gram range of one job; "bad" holds, per block, the bad
    Gram points inside it and the first of them (for predicting the next state).

    job = (nominal_start, nominal_end, exact_start, boost, ladder). The piece starts at the first
    good Gram point >= nominal_start (or exactly there) and ends at the first good Gram point
    >= nominal_end, so adjacent pieces computed independently always join up.
    """
    from mathloop.targets.critical_line_zeros.fast_z import gram_signs

    lo, hi, exact, boost, ladder = job
    gram = GramTable(lambda ms: gram_signs(ms, ladder))
    gram.good(lo, hi + 1)
    start = lo if exact else gram.next_good(lo, hi + 1)
    blocks = blocks_between(start, hi, gram, boost, ladder)
    end = blocks[-1]["end"] if blocks else start
    return {"start": start, "end": end, "blocks": blocks, "bad": bad_inside(blocks, start, gram)}
