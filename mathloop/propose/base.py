"""The proposer protocol: what a proposer sees (Context) and what it returns (Proposal)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from mathloop.contract.model import Contract
from mathloop.domain import Head, Rejection  # re-exported: proposers import them from here
from mathloop.domain import payload_sha as payload_sha


class StopSession(Exception):
    """A proposer cannot go on (budget spent, endpoint dead); the message says why."""


@dataclass(frozen=True)
class Proposal:
    """An untrusted candidate payload and who made it.

    Attributes:
        payload: JSON value (dict, usually) as proposed; validated only by the target's parser.
        proposer: proposer name (`local`, `openai:MODEL`, `replay`, ...).
        meta: model name, latency, tokens, raw response, the model's own claims. Stored; never
            read by the gate.
        malformed: set when the proposer already knows the output is unusable (truncated reply,
            no JSON found); the loop records it as `malformed` with this reason.
        expects_state: the head state this candidate is meant to extend when it is not the current
            head (consecutive chunks of one round); an executor may check it against this state
            ahead of time, and the result is used only if the head then has exactly this state.
    """

    payload: Any
    proposer: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    malformed: str | None = None
    expects_state: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Context:
    """Everything a proposer may read for one round.

    Attributes:
        contract: the target's contract (statement, obligations, limits).
        head: the head state; None only before the root commit.
        open_obligations: ids with rank > 0 at the head.
        rejections: the last K refused candidates, newest first.
        seen: payload sha256s of every candidate in the memory (do not resubmit).
        round: 0-based round number within this session.
        samples: how many proposals are wanted this round.
        deadline: `time.monotonic()` value at which the session's time limit ends (None = no
            limit); long-running proposers should return what they have by then.
    """

    contract: Contract
    head: Head | None
    open_obligations: tuple[str, ...]
    rejections: tuple[Rejection, ...]
    seen: frozenset[str]
    round: int
    samples: int = 1
    deadline: float | None = None


@runtime_checkable
class Proposer(Protocol):
    """Anything that turns a Context into proposals. An empty list means: nothing more to offer.

    `propose` is required; `stats` and `use_child` are optional and declared here with their defaults, so a
    proposer that subclasses this protocol inherits them and the loop calls them without probing.
    """

    name: str

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return up to ctx.samples proposals. Raises StopSession when it cannot go on."""
        ...

    def stats(self) -> Any:
        """Return the proposer's run statistics (a mapping or a dataclass), or None when it keeps none."""
        return None

    def use_child(self, child: Callable[[float], Any]) -> None:
        """Take the maker of a checker-style child (`child(timeout_s)`) for work proposed ahead; default: unused."""
        return None
