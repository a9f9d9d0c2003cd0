"""The local proposer: consecutive chunks of Gram blocks from the head, as point lists or as ranges.

Each round it returns up to ctx.samples consecutive chunks starting at the head's prefix end. A
chunk ends at the first good Gram point at or after a nominal index, so chunks always join up.
With a contract that takes range candidates (max_range_gram_intervals), a chunk is
{"start", "end", "refine"}: the proposer only evaluates the Gram points (to find the good end and
to predict the state the check reaches), and the checker derives the sample points by the same
recipe (sampling.py). Otherwise it carries every block and point (sampling.build_piece). If the head
has not moved and its chunk was already tried (its sha is in the memory), sampling is refined
further (boost). With ranges, each next round is computed ahead in a proposer child (ahead.py) while
the executor's workers (check/executors.py, dask) check this one.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from mathloop.contract.model import Contract
from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.critical_line_zeros.ahead import Ahead
from mathloop.targets.critical_line_zeros.certificate import TAIL, Prefix
from mathloop.targets.critical_line_zeros.gc_pause import gc_paused
from mathloop.targets.critical_line_zeros.sampling import build_piece

MAX_BOOST = 3


class LocalProposer(Proposer):
    """Embedded proposer for `critical-line-zeros` (no network; deterministic)."""

    name = "local"

    def __init__(self, cap: int, chunk_gram_intervals: int, ladder: tuple[int, ...], seed: int = 0, workers: int | None = None,
                 predict: Callable[[Prefix], dict[str, Any]] | None = None, ranges: bool = False,
                 ahead: Contract | None = None) -> None:
        self.cap = cap
        self.predict = predict  # prefix -> the state check() gives: lets an executor check chunk i+1 early
        self.last_bad: list[list[tuple[int, int | None]]] = []
        self.chunk = chunk_gram_intervals
        self.ladder = tuple(ladder)
        self.seed = seed  # the work is fully determined by the head; the seed changes nothing
        self.workers = workers  # kept for callers; proposing runs in this process
        self.ranges = ranges
        self._ends: dict[int, list[int]] = {}  # range chunk start -> its predicted block ends
        self._contract = ahead if ranges and predict is not None else None  # proposes ahead once given a child
        self._ahead: Ahead | None = None

    def use_child(self, child: Callable[[float], Any]) -> None:
        """Propose each next round of ranges in a child made by `child(timeout_s)` while this round is checked."""
        if self._contract is not None and self._ahead is None:
            self._ahead = Ahead(self._contract, self.cap, child)
            weakref.finalize(self, self._ahead.close)

    def close(self) -> None:
        """Stop the proposer child, if any (idempotent)."""
        if self._ahead is not None:
            self._ahead.close()

    def stats(self) -> dict[str, int] | None:
        """Return how many rounds came from the proposer child (hits), were not the predicted one (misses) or
        were refused; None without a child."""
        a = self._ahead
        return None if a is None else {"rounds ahead": a.hits, "missed": a.misses, "refused": a.refused}

    def _nominal(self, p: int, count: int) -> list[tuple[int, int]]:
        out, a = [], p
        for _ in range(count):
            if a >= self.cap:
                break
            b = min(a + self.chunk, self.cap)
            out.append((a, b))
            a = b
        return out

    def chunks_from(self, p: int, count: int, boost: int = 0) -> list[dict[str, Any]]:
        """Return up to `count` consecutive chunk payloads starting at the good Gram point g_p."""
        nominal = self._nominal(p, count)
        with gc_paused():
            return self._ranges_from(p, nominal, boost) if self.ranges else self._pieces_from(p, nominal, boost)

    def _pieces_from(self, p: int, nominal: list[tuple[int, int]], boost: int) -> list[dict[str, Any]]:
        """Return chunks with every block and point (the contract takes no ranges)."""
        chunks: list[dict[str, Any]] = []
        self.last_bad = []
        end = p
        for a, b in nominal:
            if a < end:
                a = end  # the previous chunk ran past this nominal start (a merged block)
            if a >= b and chunks:
                continue
            pc = build_piece((end, max(b, end + 1), True, boost, self.ladder))
            if pc["blocks"]:
                chunks.append({"start": pc["start"], "blocks": pc["blocks"]})
                self.last_bad.append(pc["bad"])
            end = pc["end"]
        return chunks

    def _ranges_from(self, p: int, nominal: list[tuple[int, int]], boost: int) -> list[dict[str, Any]]:
        """Return range chunks; self.last_bad gets each chunk's blocks' bad Gram points (assuming no merged block)."""
        from mathloop.targets.critical_line_zeros.fast_z import gram_signs

        chunks: list[dict[str, Any]] = []
        self.last_bad = []
        self._ends = {}  # this round's only: memory stays flat in the height
        if not nominal:
            return chunks
        lo, hi = p, nominal[-1][1] + 64
        ms = np.arange(lo, hi + 1)
        good = gram_signs(ms, self.ladder)[0] == np.where(ms % 2 == 0, 1, -1)
        while not good[-1]:  # the last nominal end needs a good Gram point after it
            more = np.arange(hi + 1, hi + 257)
            ms = np.concatenate([ms, more])
            good = np.concatenate([good, gram_signs(more, self.ladder)[0] == np.where(more % 2 == 0, 1, -1)])
            hi = int(ms[-1])
        goods = ms[good]
        start = p
        for _, b in nominal:
            if b <= start:
                continue
            end = int(goods[np.searchsorted(goods, b)])
            inner = goods[(goods > start) & (goods <= end)].tolist()
            chunks.append({"start": start, "end": end, "refine": boost})
            js = [start] + inner[:-1]
            self.last_bad.append([(k - j - 1, j + 1 if k - j > 1 else None) for j, k in zip(js, inner)])
            self._ends[start] = inner
            start = end
        return chunks

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return up to ctx.samples consecutive chunks from the head; [] once the cap is reached."""
        p = int(ctx.head.state["last_gram_index"]) if ctx.head is not None else -1
        if p >= self.cap:
            return []
        count = max(1, ctx.samples)
        got = self._ahead.take(ctx.head.state, count) if self._ahead is not None and ctx.head is not None else None
        if got is not None and payload_sha(got[0][0]) not in ctx.seen:
            (chunks, expects, after), boost = got, 0
        else:
            for boost in range(MAX_BOOST + 1):
                chunks, expects, after = self.round_from(ctx.head.state if ctx.head is not None else None, count, boost)
                if not chunks:
                    return []
                if payload_sha(chunks[0]) not in ctx.seen:
                    break
            else:
                return []  # every refinement level was already tried at this head
        if self._ahead is not None and after is not None and after["last_gram_index"] < self.cap:
            self._ahead.start(after, count)  # the next round, while this one is checked
        return [
            Proposal(payload=c, proposer=self.name, meta=self._meta(c, boost), expects_state=e)
            for c, e in zip(chunks, expects)
        ]

    def round_from(self, state: dict[str, Any] | None, count: int, boost: int) -> tuple[list, list, dict | None]:
        """Return (up to `count` chunks from the head `state`, the state each is expected to extend (None: the head),
        the state after the last one), the states predicted only with `predict` and a head."""
        p = int(state["last_gram_index"]) if state is not None else -1
        chunks = self.chunks_from(p, count, boost)
        expects: list[dict[str, Any] | None] = [None] * len(chunks)
        if self.predict is None or state is None or not chunks:
            return chunks, expects, None
        prefix = Prefix(state["last_gram_index"], state["blocks_verified"], tuple(state["tail"]),
                        state["bad_gram_points"], state["first_bad_gram"], state["longest_block"])
        after = None
        for i, chunk in enumerate(chunks):
            prefix = advance(prefix, self._blocks(chunk), self.last_bad[i])
            after = self.predict(prefix)
            if i + 1 < len(chunks):
                expects[i + 1] = after
        return chunks, expects, after

    def _blocks(self, chunk: dict[str, Any]) -> dict[str, Any]:
        if "blocks" in chunk:
            return chunk
        return {"start": chunk["start"], "blocks": [{"end": k} for k in self._ends[chunk["start"]]]}

    @staticmethod
    def _meta(c: dict[str, Any], boost: int) -> dict[str, Any]:
        if "blocks" in c:
            return {"start": c["start"], "end": c["blocks"][-1]["end"], "blocks": len(c["blocks"]), "boost": boost}
        return {"start": c["start"], "end": c["end"], "boost": boost}


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

