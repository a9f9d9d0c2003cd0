"""Seed proposal: a local proposer's first candidate, on an empty chain, is the contract's seed."""

from __future__ import annotations

from typing import Any, Mapping, Protocol

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal


class Seeded(Protocol):
    """Anything with the contract's seed payload (a Target)."""

    def seed_payload(self) -> Mapping[str, Any]: ...


def seed_proposals(target: Seeded, proposer: str, ctx: Context, meta: Mapping[str, Any]) -> list[Proposal]:
    """Return [the contract's seed as `proposer`'s Proposal with `meta`], or [] when the seed was already seen."""
    seed = dict(target.seed_payload())
    return [] if payload_sha(seed) in ctx.seen else [Proposal(seed, proposer, dict(meta))]
