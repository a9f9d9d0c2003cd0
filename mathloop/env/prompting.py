"""The chat messages a model is shown at a state: the model proposer's own builder and templates."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from mathloop.contract import Contract
from mathloop.propose.base import Context, Head, Rejection
from mathloop.propose.prompt import build_messages
from mathloop.check.gate import open_obligations


def context_at(contract: Contract, head: Head | None, rejections: Sequence[Rejection] = ()) -> Context:
    """Return the proposer context of one request at `head` (round 0, one sample, no memory)."""
    return Context(contract, head, open_obligations(head.ranks) if head else (), tuple(rejections), frozenset(), 0, 1)


def messages_at(contract: Contract, schema: Mapping[str, Any], head: Head | None,
                rejections: Sequence[Rejection] = (), form: Any = None) -> list[dict[str, str]]:
    """Return the system and user messages `--proposer openai` sends at `head` (in the target's proposal form)."""
    return build_messages(context_at(contract, head, rejections), schema, rejections=len(rejections), form=form)
