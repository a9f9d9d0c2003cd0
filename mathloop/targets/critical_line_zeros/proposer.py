"""The local proposer: consecutive chunks of Gram blocks with sample points, built on all cores.

Each round it returns up to ctx.samples consecutive chunks starting at the head's prefix end.
Every chunk is cut into pieces computed in parallel; piece boundaries are "the first good Gram
point at or after a nominal index", which each worker finds on its own, so pieces always join
up and the output does not depend on the worker count. If the head has not moved and its
chunk was already tried (its sha is in the memory), sampling is refined further (boost).
"""

from __future__ import annotations

from typing import Any

from typing import Callable

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.critical_line_zeros import pool
from mathloop.targets.critical_line_zeros.certificate import TAIL, Prefix
from mathloop.targets.critical_line_zeros.sampling import build_piece

MAX_BOOST = 3


class LocalProposer(Proposer):
    """Embedded proposer for `critical-line-zeros` (no network; deterministic)."""

    name = "local"

    def __init__(self, cap: int, chunk_gram_intervals: int, ladder: tuple[int, ...], seed: int = 0, workers: int | None = None,
                 predict: Callable[[Prefix], dict[str, Any]] | None = None) -> None:
        self.cap = cap
        self.predict = predict  # prefix -> the state check() gives: lets an executor check chunk i+1 early
        self.last_bad: list[list[tuple[int, int | None]]] = []
        self.chunk = chunk_gram_intervals
        self.ladder = tuple(ladder)
        self.seed = seed  # the work is fully determined by the head; the seed changes nothing
        self.workers = workers

    def chunks_from(self, p: int, count: int, boost: int = 0) -> list[dict[str, Any]]:
        """Return up to `count` consecutive chunk payloads starting at the good Gram point g_p."""
        nominal = []
        a = p
        for _ in range(count):
            if a >= self.cap:
                break
            b = min(a + self.chunk, self.cap)
            nominal.append((a, b))
            a = b
        if not nominal:
            return []
        workers = self.workers or pool.default_workers()
        per_chunk = max(1, 2 * workers // len(nominal)) if len(nominal) < 2 * workers else 1
        jobs, owner = [], []
        for ci, (a, b) in enumerate(nominal):
            cuts = [a + (b - a) * i // per_chunk for i in range(per_chunk)] + [b]
            for pi in range(per_chunk):
                if cuts[pi] < cuts[pi + 1]:
                    jobs.append((cuts[pi], cuts[pi + 1], ci == 0 and pi == 0, boost, self.ladder))
                    owner.append(ci)
        pieces = pool.map_ordered(build_piece, jobs, workers)
        chunks: list[dict[str, Any]] = []
        self.last_bad = []
        for ci in range(len(nominal)):
            mine = [pc for pc, o in zip(pieces, owner) if o == ci]
            blocks, end, bad = [], mine[0]["start"], []
            for pc in mine:
                if pc["start"] != end:
                    break  # a merged block ran past the next piece's start: stop the chunk here
                blocks += pc["blocks"]
                bad += pc["bad"]
                end = pc["end"]
            if blocks:
                chunks.append({"start": mine[0]["start"], "blocks": blocks})
                self.last_bad.append(bad)
        return chunks

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return up to ctx.samples consecutive chunks from the head; [] once the cap is reached."""
        p = int(ctx.head.state["last_gram_index"]) if ctx.head is not None else -1
        if p >= self.cap:
            return []
        for boost in range(MAX_BOOST + 1):
            chunks = self.chunks_from(p, max(1, ctx.samples), boost)
            if not chunks:
                return []
            if payload_sha(chunks[0]) not in ctx.seen:
                break
        else:
            return []  # every refinement level was already tried at this head
        expects: list[dict[str, Any] | None] = [None] * len(chunks)
        if self.predict is not None and ctx.head is not None and len(chunks) > 1:
            st = ctx.head.state
            prefix = Prefix(st["last_gram_index"], st["blocks_verified"], tuple(st["tail"]), st["bad_gram_points"],
                            st["first_bad_gram"], st["longest_block"])
            for i in range(1, len(chunks)):
                prefix = advance(prefix, chunks[i - 1], self.last_bad[i - 1])
                expects[i] = self.predict(prefix)
        return [
            Proposal(
                payload=c,
                proposer=self.name,
                meta={"start": c["start"], "end": c["blocks"][-1]["end"], "blocks": len(c["blocks"]), "boost": boost},
                expects_state=e,
            )
            for c, e in zip(chunks, expects)
        ]


def advance(prefix: Prefix, chunk: dict[str, Any], bad: list[tuple[int, int | None]]) -> Prefix:
    """Return the prefix the checker reaches if `chunk` verifies (bad: per block, bad Gram points and the first)."""
    tail, nbad, first, longest, j = list(prefix.tail), prefix.bad_gram_points, prefix.first_bad_gram, prefix.longest_block, chunk["start"]
    for blk, (n, f) in zip(chunk["blocks"], bad):
        k = blk["end"]
        nbad += n
        first = f if first is None else first
        longest = max(longest, k - j)
        tail = [k] if blk.get("merged") else (tail + [k])[-(TAIL + 1):]
        j = k
    return Prefix(j, prefix.blocks_verified + len(chunk["blocks"]), tuple(tail), nbad, first, longest)
