"""The next round's range proposals, computed in a proposer child while this round is checked.

The proposer's float work (the Gram points' signs, to end each range at a good Gram point and predict
the state it reaches) runs in a child of its own (a check/runner.ProcessRunner the loop hands over:
a clean interpreter, killed with the session), never on a thread of the session: flint's working precision is
process-wide, and a proposing thread changed the balls of a check running in the same process. A
thread of the session only waits on the child's pipe. What the child returns is a proposal like any
other: read as strict JSON of bounded size, refused unless it has the exact shape of this head's
ranges, and then checked by the checker; its predicted states only choose what a worker checks
against ahead of time (the loop uses such a check only if the head then has exactly that state).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Mapping

from mathloop.children import kill_group
from mathloop.contract.model import Contract

AHEAD_TIMEOUT_S = 600.0  # a round of 4 x 100,000 Gram intervals near 10^9 takes ~10 s of float Z
RANGE_KEYS = {"start", "end", "refine"}


def next_round(contract: Contract, state: Mapping[str, Any], count: int) -> dict[str, Any]:
    """Run in the proposer child: the round of `count` ranges from `state` at refinement 0, as JSON."""
    from mathloop.targets import build_target

    prop = _proposers.get(contract.sha256)
    if prop is None:
        prop = _proposers[contract.sha256] = build_target(contract).local_proposer(0, ahead=False)
    chunks, expects, after = prop.round_from(state, count, 0)
    return {"chunks": chunks, "expects": expects, "after": after}


_proposers: dict[str, Any] = {}


def read_round(value: Any, state: Mapping[str, Any], count: int, cap: int) -> tuple[list, list, Any] | None:
    """Return (chunks, expected states, state after the round) from a child's JSON value, or None unless it is
    exactly `count` (or fewer at the cap) consecutive ranges from the head's last Gram index at refinement 0."""
    if not isinstance(value, dict) or set(value) != {"chunks", "expects", "after"}:
        return None
    chunks, expects, after = value["chunks"], value["expects"], value["after"]
    if not isinstance(chunks, list) or not isinstance(expects, list) or len(expects) != len(chunks):
        return None
    if not 0 < len(chunks) <= count or not (after is None or isinstance(after, dict)):
        return None
    at = state.get("last_gram_index")
    for c, e in zip(chunks, expects):
        if not isinstance(c, dict) or set(c) != RANGE_KEYS or c["refine"] != 0 or c["start"] != at:
            return None
        if not all(type(c[k]) is int for k in RANGE_KEYS) or not at < c["end"]:
            return None
        if not (e is None or isinstance(e, dict)):
            return None
        at = c["end"]
    if len(chunks) < count and at < cap:
        return None
    return chunks, expects, after


class Ahead:
    """One round computed ahead in the proposer child: `start` it from a predicted head, `take` it at that head.

    Attributes:
        hits / misses / refused: rounds taken, rounds whose head or count was not the predicted one,
            and child answers refused (unreadable, wrong shape, an error): these are computed here instead.
    """

    def __init__(self, contract: Contract, cap: int, child: Callable[[float], Any]) -> None:
        self.contract = contract
        self.cap = cap
        self.runner = child(AHEAD_TIMEOUT_S)  # check/runner.ProcessRunner, handed over by the loop
        self.hits = self.misses = self.refused = 0
        self.closed = False
        self._key: tuple[Any, int] | None = None
        self._pending: Future | None = None
        # one thread for the session's life: the child's parent-death signal fires when the thread that
        # started it ends, so a thread per round would see its child killed after the round
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="mathloop-propose-ahead")

    def start(self, state: Mapping[str, Any], count: int) -> None:
        """Begin computing the round of `count` ranges from `state` in the child (one at a time)."""
        self._wait()
        self._key = (dict(state), count)
        self._pending = self._thread.submit(self._call, dict(state), count)

    def _call(self, state: dict[str, Any], count: int) -> Any:
        out = self.runner.call(next_round, (self.contract, state, count), AHEAD_TIMEOUT_S, self.contract)
        return out.value if out.error is None and out.raised is None else None

    def take(self, state: Mapping[str, Any], count: int) -> tuple[list, list, Any] | None:
        """Return the round computed ahead for exactly this head state and count (waiting for it), or None."""
        if self._key is None:
            return None
        if self._key != (dict(state), count):
            self.misses += 1
            return None
        value = self._wait()
        self._key = None
        got = read_round(value, state, count, self.cap)
        if got is None:
            self.refused += 1
            return None
        self.hits += 1
        return got

    def _wait(self) -> Any:
        pending, self._pending = self._pending, None
        return pending.result() if pending is not None else None

    def close(self) -> None:
        """Stop the child, a round still in flight included (idempotent)."""
        if self.closed:
            return
        self.closed = True
        while self._pending is not None and not self._pending.done():  # a round nobody will take: cut it short
            if self.runner.pid is not None:  # (None while the child is still being started)
                kill_group(self.runner.pid)
            wait([self._pending], timeout=0.05)
        self._wait()
        self._thread.submit(self.runner.close).result()  # from the thread that started it
        self._thread.shutdown()
