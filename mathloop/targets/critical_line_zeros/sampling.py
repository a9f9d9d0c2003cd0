"""Propose Gram blocks and rational sample points (fast, non-rigorous; the checker decides).

Block boundaries come from the signs of Z at Gram points (the same certified evaluation the
checker uses, so the proposer and the checker agree on which Gram points are good). Inside a
block of k - j > 1 Gram intervals, Z is scanned on a grid that is refined (x4 per step) until
k - j sign changes show up; close zero pairs (Lehmer's phenomenon, e.g. near t = 7005) are the
reason for the refinement. One point per run of equal sign is kept: the one with largest |Z|.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from mathloop.targets.critical_line_zeros.fast_z import MIN_T, TRUST, z_rs, z_values
from mathloop.targets.critical_line_zeros.gram import expected_sign
from mathloop.targets.critical_line_zeros.rs_gram import gram_floats
from mathloop.targets.critical_line_zeros.hardy_z import definite

DENSITIES = (4, 16, 64, 256, 1024)
MAX_MERGE = 3  # Gram blocks appended to a block whose sign changes fall short


def point_text(t: float) -> str:
    """Return the decimal string of a proposed point (10 decimals: exact once written).

    >>> point_text(282.4600000000001)
    '282.4600000000'
    """
    return f"{t:.10f}"


def sample_block(j: int, k: int, gram: dict[int, int], boost: int = 0) -> list[str]:
    """Return rational points (strings) that should show k - j sign changes in [g_j, g_k)."""
    return sample_block_found(j, k, gram, boost)[0]


def sample_block_found(j: int, k: int, gram: dict[int, int], boost: int = 0, gfl: dict[int, float] | None = None) -> tuple[list[str], bool]:
    """Return (points, whether the k - j sign changes were found) for [g_j, g_k); gfl caches g_m floats."""
    need = k - j
    if need == 1:
        return [], True  # good ends of opposite parity already give the one sign change
    missing = [m for m in range(j, k + 1) if gfl is None or m not in gfl]
    got = dict(zip(missing, gram_floats(missing)))
    gs = [gfl[m] if gfl is not None and m in gfl else got[m] for m in range(j, k + 1)]
    known: dict[str, tuple[float, float]] = {}
    for m in DENSITIES[: 3 + boost] if boost <= 2 else DENSITIES + tuple(1024 * 4**i for i in range(1, boost - 1)):
        new = []
        for i in range(need):
            a, b = gs[i], gs[i + 1]
            for r in range(1, m):
                text = point_text(a + (b - a) * r / m)
                if text not in known:
                    new.append(text)
        for text, z in zip(new, z_values(new)):
            known[text] = (float(text), z)
        runs = _runs(j, k, gs, gram, known)
        if len(runs) - 1 >= need:
            break
    return sorted((r[1] for r in runs if r[1] is not None), key=lambda s: Fraction(s)), len(runs) - 1 >= need


def _runs(j: int, k: int, gs: list[float], gram: dict[int, int], known: dict[str, tuple[float, float]]) -> list[tuple[int, str | None]]:
    """Return the runs of equal sign along the block as (sign, representative point or None)."""
    seq: list[tuple[float, int, str | None, float]] = [(gs[m - j], gram[m] or 1, None, 0.0) for m in range(j, k + 1)]
    seq += [(t, 1 if z > 0 else -1, text, abs(z)) for text, (t, z) in known.items() if z != 0]
    seq.sort(key=lambda x: x[0])
    runs: list[tuple[int, str | None, float]] = []
    for _, s, text, mag in seq:
        if runs and runs[-1][0] == s:
            sign, best, best_mag = runs[-1]
            if best is None:
                continue  # a Gram point already witnesses this run's sign
            if text is None:
                runs[-1] = (s, None, 0.0)
            elif mag > best_mag:
                runs[-1] = (s, text, mag)
        else:
            runs.append((s, text, mag))
    return [(s, text) for s, text, _ in runs]


def build_piece(job: tuple[int, int, bool, int, tuple[int, ...]]) -> dict[str, Any]:
    """Return {"start", "end", "blocks", "bad"} for the Gram range of one job (runs in a worker); "bad" holds,
    per block, the bad Gram points inside it and the first of them (for predicting the next state).

    job = (nominal_start, nominal_end, exact_start, boost, ladder). The piece starts at the first
    good Gram point >= nominal_start (or exactly there) and ends at the first good Gram point
    >= nominal_end, so adjacent pieces computed independently always join up.
    """
    lo, hi, exact, boost, ladder = job
    gram: dict[int, int] = {}
    gfl: dict[int, float] = {}

    def fill(a: int, b: int) -> None:
        # Signs at Gram points: Riemann-Siegel where |Z| is large, else the checker's own Arb evaluation.
        ms = list(range(a, b))
        g = gram_floats(ms)
        gfl.update(zip(ms, g))
        z = z_rs(g) if g.min() >= MIN_T else np.zeros_like(g)
        for m, t, v in zip(ms, g, z):
            gram[m] = int(np.sign(v)) if t >= MIN_T and abs(v) >= TRUST else definite("g", m, ladder).sign

    def good(m: int) -> bool:
        if m not in gram:
            fill(m, max(m + 64, hi + 1))
        return gram[m] == expected_sign(m)

    start = lo
    if not exact:
        while not good(start):
            start += 1
    else:
        good(start)
    blocks, bad, j = [], [], start
    while j < hi:
        k = j + 1
        while not good(k):
            k += 1
        points, found = sample_block_found(j, k, gram, boost, gfl)
        if not found:  # a Rosser-rule violation (or a pair too close to see): count a union of blocks
            for _ in range(MAX_MERGE):
                k += 1
                while not good(k):
                    k += 1
                points, found = sample_block_found(j, k, gram, boost, gfl)
                if found:
                    break
            blocks.append({"end": k, "points": points, "merged": True})
            inner = [m for m in range(j + 1, k) if gram[m] != expected_sign(m)]
            bad.append((len(inner), inner[0] if inner else None))
            j = k
            continue
        blocks.append({"end": k, "points": points})
        bad.append((k - j - 1, j + 1 if k - j > 1 else None))
        j = k
    return {"start": start, "end": j, "blocks": blocks, "bad": bad}
