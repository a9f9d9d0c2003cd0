"""The fast path of the first contracts (fast_z_arithmetic = 1), kept unchanged so that their stores re-check.

`audit` re-runs every committed check and requires the same evidence bytes. The arithmetic of
rs_rigorous changed (phases in turns, an Arb-proved economised cosine, bases on a fixed grid), so
a contract without `fast_z_arithmetic = 2` keeps the first version: rs_rigorous_v1 and
rs_gram_v1, copies of it as shipped with contract version 2. Its proof is in rs_rigorous_v1.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from mathloop.targets.critical_line_zeros import rs_gram_v1, rs_rigorous_v1
from mathloop.targets.critical_line_zeros.hardy_z import FAST_PREC, SignedBall, definite, float_ball_strings


def evaluate_specs_fast_v1(specs: Sequence[tuple[str, str]], ladder: Sequence[int]) -> tuple[list[SignedBall], tuple[int, int]]:
    """Return what hardy_z.evaluate_specs_fast returned for arithmetic 1: balls, (fast-decided, fallen back)."""
    grams = iter(rs_gram_v1.gram_points([int(v) for k, v in specs if k == "g"]))
    points = [next(grams) if k == "g" else rs_rigorous_v1.Point.of(v) for k, v in specs]
    out: list[SignedBall] = []
    decided = fell_back = 0
    for (kind, text), p, e in zip(specs, points, rs_rigorous_v1.enclose(points)):
        strings = float_ball_strings(e.value, e.bound) if e is not None and e.sign else None
        if strings:
            out.append(SignedBall(e.sign, strings[0], strings[1], FAST_PREC))
            decided += 1
            continue
        fell_back += p.minus(0) >= rs_rigorous_v1.RS_MIN_T
        out.append(definite(kind, int(text) if kind == "g" else Fraction(text), ladder))
    return out, (decided, fell_back)
