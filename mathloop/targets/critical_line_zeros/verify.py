"""Verify one chunk of Gram blocks against the prefix it extends; rigorous Arb evaluation only.

For each block [g_j, g_k): g_j and g_k are good, g_{j+1..k-1} are bad (so it is a Gram block; a
block marked `merged` is a union of consecutive Gram blocks and may contain good points: Rosser-rule
violations are handled by counting the union, and the Turing window restarts after it),
every rational point lies in (g_j, g_k) (checked against rational bounds of the Gram points),
every sign of Z is certified, and the sign changes along g_j, points..., g_k number exactly
k - j (Rosser's rule; fewer is a refutation naming the block, more is a Rosser-rule violation
this checker does not handle and also refuses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mathloop.targets.critical_line_zeros.certificate import TAIL, Chunk, Prefix
from mathloop.targets.critical_line_zeros.crosscheck import crosscheck
from mathloop.targets.critical_line_zeros.gram import expected_sign
from mathloop.targets.critical_line_zeros.hardy_z import SignedBall, evaluate_specs, evaluate_specs_fast
from mathloop.targets.critical_line_zeros.placement import ABOVE, BELOW, Placer, gram_indices_to_place


@dataclass(frozen=True)
class CheckParams:
    """Checker settings from the contract's [parameters] table (all recorded in the evidence).

    Attributes:
        ladder: Arb precisions (bits) tried in order until a sign is decided.
        height_digits: decimals of the rational bounds placed just inside Gram points.
        crosscheck_stride: Gram points with index % stride == 0 are cross-checked (plus the
            chunk's first rational point).
        crosscheck_dps: mpmath precision of the cross-check.
        workers: the contract's `check_workers` (recorded; a check now runs in one process and the
            session's executor checks several chunks at once); never changes the evidence.
        fast_z: decide signs first by the rigorous float Riemann-Siegel path (rs_rigorous), Arb
            only where it leaves a sign undecided (recorded with precision 53).
        digest_blocks: 0 = the evidence lists every ball; n > 0 = it keeps, per n blocks, counts and
            the sha256 of those balls (digest.py), which a re-check re-derives byte for byte.
    """

    ladder: tuple[int, ...]
    height_digits: int
    crosscheck_stride: int
    crosscheck_dps: int
    workers: int
    fast_z: bool = False
    digest_blocks: int = 0


@dataclass(frozen=True)
class ChunkOutcome:
    """Either a refutation (reason set, prefix unchanged) or the extended prefix and its artifact."""

    prefix: Prefix
    reason: str | None = None
    artifact: dict[str, Any] = field(default_factory=dict)
    crosschecked: int = 0
    fast: tuple[int, int] = (0, 0)  # (signs decided by the fast path, points that fell back to Arb)


def _label(kind: str, text: str) -> str:
    return f"g_{text}" if kind == "g" else text


def _sign_char(s: int) -> str:
    return {1: "+", -1: "-", 0: "?"}[s]



def _evaluate(specs: list[tuple[str, str]], params: CheckParams) -> tuple[list[SignedBall], tuple[int, int]]:
    """Return the certified ball at each spec and (fast-decided, fallen back) counts.

    One process: a session checks several chunks at once on its executor's workers (check/executors.py or dask),
    so a check does not start processes of its own.
    """
    if not params.fast_z:
        return evaluate_specs(specs, params.ladder), (0, 0)
    return evaluate_specs_fast(specs, params.ladder)


def verify_chunk(chunk: Chunk, prefix: Prefix, params: CheckParams,
                 gram_balls: tuple[list[SignedBall], tuple[int, int]] | None = None) -> ChunkOutcome:
    """Return the outcome of checking `chunk` on top of `prefix` (deterministic).

    `gram_balls`: the balls at g_start..g_end and their fast-path counts, when already evaluated
    (derive.py evaluates them to find the blocks; they are the same evaluation).
    """
    if chunk.start != prefix.last_gram_index:
        return ChunkOutcome(
            prefix,
            f"chunk starts at g_{chunk.start} but the verified prefix ends at g_{prefix.last_gram_index}",
        )
    if not chunk.blocks:
        return ChunkOutcome(prefix, None, {"start": chunk.start, "end": chunk.start, "blocks": [], "gram": []})
    # Placement of rational points, exactly, before any evaluation.
    j, b0 = chunk.start, prefix.blocks_verified
    order: list[list[tuple[str, int | str]] | None] = []  # per block with points: Gram points and points, in order
    placer = Placer(gram_indices_to_place(chunk.blocks, chunk.start), params.height_digits)
    for i, blk in enumerate(chunk.blocks):
        if not blk.points:
            order.append(None)  # only its Gram points, in index order
        else:
            seq, why = _merge(j, blk.end, blk, placer)
            if why:
                return ChunkOutcome(prefix, f"block {b0 + i} [g_{j}, g_{blk.end}): {why}")
            order.append(seq)
        j = blk.end
    # The block structure (good ends, bad interior) needs only the Gram points: check it for every
    # block before any of the (far more numerous) rational points is evaluated.
    gram_specs = [("g", str(m)) for m in range(chunk.start, chunk.end + 1)]
    gram_balls, fast_g = gram_balls if gram_balls is not None else _evaluate(gram_specs, params)
    gram = dict(zip(range(chunk.start, chunk.end + 1), gram_balls))
    signs = [b.sign for b in gram_balls]  # Z(g_m)'s sign at index m - chunk.start
    if not _structure_holds(signs, chunk):  # then find the first block that fails, and say why
        j = chunk.start
        for i, blk in enumerate(chunk.blocks):
            why = _structure(gram, j, blk.end, blk.merged)
            if why:
                return ChunkOutcome(prefix, f"block {b0 + i} [g_{j}, g_{blk.end}): {why}")
            j = blk.end
    point_specs = [("q", t) for blk in chunk.blocks for t in blk.texts]
    point_list, fast_p = _evaluate(point_specs, params)
    point_balls = iter(point_list)
    fast = (fast_g[0] + fast_p[0], fast_g[1] + fast_p[1])

    blocks_art, bad_points, first_bad, longest = [], prefix.bad_gram_points, prefix.first_bad_gram, prefix.longest_block
    s0 = chunk.start
    j = chunk.start
    for i, blk in enumerate(chunk.blocks):
        k, need = blk.end, blk.end - j
        pts_art = []
        if order[i] is None:
            samples = signs[j - s0 : k - s0 + 1]
        else:
            point_sign = {}
            for text in blk.texts:
                ball = next(point_balls)
                if ball.sign == 0:
                    return ChunkOutcome(prefix, f"block {b0 + i} [g_{j}, g_{k}): sign of Z({text}) not certified "
                                        f"(ball [{ball.mid} +/- {ball.rad}] at {ball.prec} bits)")
                point_sign[text] = ball.sign
                pts_art.append([text, ball.mid, ball.rad, ball.prec])
            samples = [gram[v].sign if kind == "g" else point_sign[v] for kind, v in order[i]]
        changes = sum(1 for a, b in zip(samples, samples[1:]) if a != b) if need > 1 or pts_art else int(samples[0] != samples[1])
        if changes < need:
            return ChunkOutcome(prefix, f"block {b0 + i} [g_{j}, g_{k}): found {changes} sign change{'s' if changes != 1 else ''}, need {need}")
        if changes > need:
            return ChunkOutcome(prefix, f"block {b0 + i} [g_{j}, g_{k}): found {changes} sign changes, need exactly {need} "
                                "(a Rosser-rule violation; not supported by this checker)")
        if need > 1:
            bad_here = [m for m in range(j + 1, k) if signs[m - s0] != expected_sign(m)]
            bad_points += len(bad_here)
            if bad_here and first_bad is None:
                first_bad = bad_here[0]
        if need > longest:
            longest = need
        blocks_art.append({"block": b0 + i, "start": j, "end": k, "sign_changes": changes, "points": pts_art}
                          | ({"merged": True} if blk.merged else {}))
        j = k

    checked = crosscheck(_crosscheck_subset(chunk, gram, blocks_art, params), params.crosscheck_dps)
    tail_list = list(prefix.tail)
    for b in chunk.blocks:
        # Turing's window must consist of genuine Gram blocks: it restarts after a merged block.
        tail_list = [b.end] if b.merged else (tail_list + [b.end])[-(TAIL + 1) :]
    tail = tuple(tail_list)
    new = Prefix(
        last_gram_index=chunk.end,
        blocks_verified=prefix.blocks_verified + len(chunk.blocks),
        tail=tail,
        bad_gram_points=bad_points,
        first_bad_gram=first_bad,
        longest_block=longest,
    )
    artifact = {
        "start": chunk.start,
        "end": chunk.end,
        "blocks": blocks_art,
        "gram": [[m, b.mid, b.rad, b.prec] for m, b in sorted(gram.items())],
    }
    return ChunkOutcome(new, None, artifact, checked, fast)


def _structure_holds(signs: list[int], chunk: Chunk) -> bool:
    """Return True when every block passes _structure (all Gram signs decided, ends good, no good Gram point
    inside an unmerged block), tested on whole arrays; False means: look block by block."""
    import numpy as np

    s = np.array(signs)
    m = np.arange(chunk.start, chunk.start + len(s))
    good = s == np.where(m % 2 == 0, 1, -1)
    if (s == 0).any():
        return False
    idx = np.array([0] + [b.end - chunk.start for b in chunk.blocks])
    if not good[idx].all():
        return False
    cum = np.cumsum(good)
    inner = cum[idx[1:] - 1] - cum[idx[:-1]]  # good Gram points strictly inside each block
    merged = np.array([b.merged for b in chunk.blocks], dtype=bool)
    return not inner[~merged].any()


def _structure(gram: dict[int, SignedBall], j: int, k: int, merged: bool) -> str | None:
    """Return why [g_j, g_k) is not a Gram block (uncertified sign, bad end, good interior point), or None."""
    for m in range(j, k + 1):
        if gram[m].sign == 0:
            return f"sign of Z(g_{m}) not certified (ball [{gram[m].mid} +/- {gram[m].rad}])"
    for m, role in ((j, "start"), (k, "end")):
        if gram[m].sign != expected_sign(m):
            return (f"{role} g_{m} is a bad Gram point (Z(g_{m}) has sign {_sign_char(gram[m].sign)}); "
                    "a Gram block ends at good Gram points")
    for m in range(j + 1, k):
        if gram[m].sign == expected_sign(m) and not merged:
            return f"g_{m} is a good Gram point inside the block; split the block there"
    return None


def _merge(j: int, k: int, blk, placer: Placer) -> tuple[list[tuple[str, int | str]], str | None]:
    """Return the block's Gram points and rational points in certified increasing order, or a reason.

    Each point is placed against each Gram point g_m of the block by `placer` (placement.py: a float
    comparison with a proved margin, else exact comparison with rationals floor/ceil(g_m * 10^digits)
    just below/above g_m); points in between are refused.
    """
    seq: list[tuple[str, int | str]] = [("g", j)]
    if not blk.points:
        return seq + [("g", m) for m in range(j + 1, k + 1)], None
    pts = list(zip(blk.points, map(float, blk.points), blk.texts))
    if placer.side(pts[0][0], pts[0][1], j) != ABOVE or placer.side(pts[-1][0], pts[-1][1], k) != BELOW:
        bad = blk.texts[0] if placer.side(pts[0][0], pts[0][1], j) != ABOVE else blk.texts[-1]
        return [], f"point {bad} is not certified inside the block"
    i = 0
    for m in range(j + 1, k + 1):
        while i < len(pts) and (side := placer.side(pts[i][0], pts[i][1], m)) == BELOW:
            seq.append(("q", pts[i][2]))
            i += 1
        if i < len(pts) and side != ABOVE:
            return [], f"point {pts[i][2]} is not certified to lie on one side of g_{m}"
        seq.append(("g", m))
    return seq, None


def _crosscheck_subset(chunk: Chunk, gram: dict[int, SignedBall], blocks_art: list[dict], params: CheckParams) -> list:
    """Return the deterministic cross-check sample: Gram points with index % stride == 0, first point."""
    subset = [("g", str(m), gram[m]) for m in sorted(gram) if m % params.crosscheck_stride == 0]
    first_pt = next((b["points"][0] for b in blocks_art if b["points"]), None)
    if first_pt is not None:
        text, mid, rad, prec = first_pt
        subset.append(("q", text, SignedBall(1 if not mid.startswith("-") else -1, mid, rad, prec)))
    return subset
