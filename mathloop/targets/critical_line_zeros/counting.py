"""N(T) for a rational T below a certified height, read from committed chunk certificates.

Below the certified height every zero is simple, on the line, and sits alone in one certified
sign-change interval of the samples, so N(T) = the number of sign changes of Z along the
samples before T, with Z(T) itself evaluated rigorously and placed by exact comparisons.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from mathloop.targets.critical_line_zeros.gram import gram_ceil, gram_floor
from mathloop.targets.critical_line_zeros.hardy_z import definite


def _sign(mid: str) -> int:
    return -1 if mid.lstrip().startswith("-") else 1


def zeros_up_to(t: Fraction, chunks: Sequence[Mapping[str, Any]], ladder: Sequence[int] = (64, 128, 256), digits: int = 30) -> int:
    """Return N(t) from chunk artifacts in chain order. Raises ValueError when t is not covered.

    The caller must hold a certified height >= t (Turing's closure); below g_{-1} N is 0.
    """
    gram_sign: dict[int, int] = {}
    blocks: list[Mapping[str, Any]] = []
    for c in chunks:
        gram_sign.update({int(m): _sign(mid) for m, mid, _, _ in c["gram"]})
        blocks.extend(c["blocks"])
    if not blocks or t >= gram_floor(blocks[-1]["end"], digits):
        raise ValueError(f"T = {float(t)} is not covered by the certificates")
    if t <= gram_floor(-1, digits):
        return 0
    zt = definite("q", t, ladder)
    if zt.sign == 0:
        raise ValueError(f"sign of Z({float(t)}) not certified")
    count = 0
    for b in blocks:
        j, k = b["start"], b["end"]
        if t >= gram_ceil(k, digits):
            count += b["sign_changes"]
            continue
        # t lies in this block: merge Gram points and points before t, then t itself.
        seq: list[tuple[Fraction, int]] = [(gram_floor(m, digits), gram_sign[m]) for m in range(j, k + 1)]
        seq += [(Fraction(p[0]), _sign(p[1])) for p in b["points"]]
        seq.sort(key=lambda x: x[0])
        before = [s for x, s in seq if x < t]
        if any(gram_floor(m, digits) <= t <= gram_ceil(m, digits) for m in range(j, k + 1)):
            raise ValueError(f"T = {float(t)} is too close to a Gram point to be placed")
        before.append(zt.sign)
        return count + sum(1 for a, c in zip(before, before[1:]) if a != c)
    raise ValueError(f"T = {float(t)} is not covered by the certificates")
