"""`mathloop run --start published`: propose the target's best published construction first, then refine it.

The first proposal is the construction the target ships (`Target.published_start`), under the proposer name
`published` with its authors, printed value, source and data file in the meta, so the store credits it to them.
Every later proposal is the inner proposer's (the local optimiser, which starts from the head), with
`meta.warm_start` naming the construction it was built on. If the memory has already checked that payload (a
second session on the same store), it is not proposed again: the inner proposer starts from the head as it is.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import PublishedStart


class PublishedFirst(Proposer):
    """Proposes `start` once (credited), then delegates to `inner`."""

    def __init__(self, start: PublishedStart, inner: Proposer) -> None:
        self.start, self.inner = start, inner
        self.name = f"published+{inner.name}"
        self._offered = False

    def _credit(self) -> str:
        return f"{self.start.who} {self.start.value} ({self.start.construction})"

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return the published construction on the first call (unless already checked), else the inner's."""
        if not self._offered:
            self._offered = True
            if payload_sha(self.start.payload) not in ctx.seen:
                s = self.start
                return [Proposal(dict(s.payload), "published", {"published": {
                    "who": s.who, "value": s.value, "source": s.source, "construction": s.construction}})]
        return [replace(p, meta={**p.meta, "warm_start": self._credit()}) for p in self.inner.propose(ctx)]

    def stats(self) -> dict[str, Any]:
        """Return the inner proposer's stats with the construction it was started from."""
        inner = self.inner.stats()
        return {**(dict(inner) if isinstance(inner, Mapping) else {}), "warm_start": self._credit()}
