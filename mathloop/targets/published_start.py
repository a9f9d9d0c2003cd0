"""`mathloop run --start published`: propose the target's best published construction first, then refine it.

The first proposal is the construction the target ships (`Target.published_start`), under the proposer name
`published` with its authors, printed value, source and data file in the meta, so the store credits it to them.
Every later proposal is the inner proposer's (the local optimiser, which starts from the head), with
`meta.warm_start` naming the construction it was built on. If the memory has already checked that payload (a
second session on the same store), it is not proposed again: the inner proposer starts from the head as it is.
`shipped_start` is how a target with a records file picks that construction.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from importlib import resources
from typing import Any, Mapping

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import Malformed, PublishedStart, Target


def shipped_start(target: Target) -> PublishedStart | None:
    """Return the best certified published construction of the target's records file that its contract admits.

    The entries with a shipped construction and a certified value are taken best first (the first listed among
    equal values); an entry certified by another contract of the constant (`contract = ...` in the records) is
    skipped, and so is one this target's parser refuses under its contract's limits, so a narrower lineage of the
    class (C7^⊠n for n ≤ 6) starts from the best construction it can hold. None: no records, or none fits.

    Raises:
        Malformed: the records file or a construction it names cannot be read (the message names it).
    """
    from mathloop.bounded import InputError
    from mathloop.contract.model import ContractError
    from mathloop.targets.records import Direction, construction_file

    try:
        records = target.constant_records()
    except ContractError as e:
        raise Malformed(f"{target.name}: unreadable published records ({e})") from None
    if records is None:
        return None
    # An entry without `contract` is certified by the lineages of the class in the records' own package (a class
    # elsewhere that shares the file, like the recursive C7 target, reads other construction forms).
    own = type(target).__module__.startswith(f"{target.records_package}.")
    shipped = [p for p in records.published if p.construction and p.certified
               and (p.contract == target.contract.name or (own and not p.contract))]
    best_first = sorted(shipped, key=lambda p: Fraction(p.certified),
                        reverse=records.constant.direction is Direction.LOWER)
    for p in best_first:
        with resources.as_file(construction_file(type(target), p.construction)) as path:
            try:
                payload = target.read_candidate_file(path)
            except InputError as e:
                raise Malformed(str(e)) from None  # a shipped file that cannot be read is named, never skipped
        try:
            target.parse(payload)
        except Malformed:
            continue  # beyond this contract's limits (a larger power, more steps): a narrower lineage's case
        return PublishedStart(payload, p.who, p.value, p.source, p.construction)
    return None


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
