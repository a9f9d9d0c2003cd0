"""The model proposer's table of its own attempts: each reply as the move it was, on which head, and what came of it.

For an edit form (a reply is a change of the head) the most useful history for a small model is the moves
themselves: which ones raised the certified value (and became the head: the same move may raise it again), which
were tried from the current head and did not (never to be sent again; the other direction may work), best
first. The refused candidates of the loop's context carry only the full payload and the checkers' reasons; this
table remembers the reply and the head it was applied to, and learns the outcome from the next context (a
rejection with this payload, or the head now being this payload). Display only: nothing here is judged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from mathloop.domain import payload_sha
from mathloop.propose.base import Context

# "kappa: certified 0.371234 is worse than ...", "certified κ >= 0.371234 is below the goal": the first is the value.
_CERTIFIED = re.compile(r"certified (?:\S+ >= )?(-?\d+(?:\.\d+)?)")
_RAISED, _SAME_HEAD, _EARLIER = 8, 12, 4  # lines per section (most recent raised, best of the current head)


@dataclass
class Attempt:
    """One reply: the move as written, the head it moved (commit and value), and its outcome once known."""

    reply: Any
    payload_sha: str
    head_commit: str
    head_value: str
    head_sha: str
    outcome: str | None = None  # "raised", "repeat", "unknown" (not shown as refused, not the head), or a label
    value: str | None = None  # the certified value, when the checkers gave one
    reason: str = ""


@dataclass
class AttemptLog:
    """The attempts of this session in order; `text(ctx)` is the prompt's history (empty before any outcome)."""

    attempts: list[Attempt] = field(default_factory=list)

    def record(self, reply: Any, payload: Any, ctx: Context) -> None:
        """Remember a well-formed reply and the head it was applied to."""
        head = ctx.head
        self.attempts.append(Attempt(reply, payload_sha(payload), head.commit if head else "",
                                     _value(head) if head else "-", payload_sha(dict(head.state)) if head else ""))

    def learn(self, ctx: Context) -> None:
        """Fill in outcomes from this context: refused candidates by payload, the head by its state."""
        by_sha: dict[str, Any] = {}
        for r in ctx.rejections:  # newest first; a checked one is kept over a later repeat of it (it has the value)
            sha = payload_sha(r.payload)
            if sha not in by_sha or _is_repeat(by_sha[sha]):
                by_sha[sha] = r
        head_sha = payload_sha(dict(ctx.head.state)) if ctx.head else None
        raised = {a.payload_sha for a in self.attempts if a.outcome == "raised"}
        for a in self.attempts:
            if a.outcome is not None:
                continue
            if a.payload_sha == a.head_sha or a.payload_sha in raised:
                a.outcome = "repeat"  # the head it moved, unchanged (at an edge), or a head already reached
            elif a.payload_sha == head_sha:
                a.outcome, a.value = "raised", _value(ctx.head)
                raised.add(a.payload_sha)
            elif a.payload_sha not in by_sha and ctx.head is not None and a.head_commit != ctx.head.commit:
                # neither in the refusals shown nor the head: committed and passed by a later commit of the same
                # round, or an `error` (the context never lists those), or pushed out of the last K refusals.
                # The table cannot tell which, so it never claims the move raised the value.
                a.outcome = "unknown"
            elif a.payload_sha in by_sha:
                r = by_sha[a.payload_sha]
                first = str(r.reasons[0]) if r.reasons else ""
                found = next((m.group(1) for x in r.reasons if (m := _CERTIFIED.search(str(x)))), None)
                a.outcome = "repeat" if _is_repeat(r) and found is None else str(r.label)
                a.value, a.reason = found, first[:160]

    def text(self, ctx: Context) -> str:
        """Return the history table for this context (learning outcomes first); "" when nothing is known yet."""
        self.learn(ctx)
        head = ctx.head.commit if ctx.head else ""
        raised = [a for a in self.attempts if a.outcome == "raised"][-_RAISED:][::-1]
        here = sorted((a for a in self.attempts if a.head_commit == head and a.outcome not in (None, "raised")),
                      key=_best_first)[:_SAME_HEAD]
        earlier = [a for a in self.attempts if a.head_commit != head and a.outcome not in (None, "raised")]
        earlier = sorted(earlier[-4 * _EARLIER:], key=_best_first)[:_EARLIER]
        parts = []
        if raised:
            parts.append(f"Moves that raised {_bound(ctx.head)} (each became the head; the same move may raise it "
                         "again):\n"
                         + "\n".join(f"- {_show(a.reply)}: {a.head_value} -> {a.value or 'raised'}" for a in raised))
        if here:
            parts.append("Tried from the current head without raising it (do not send these again; the other "
                         "direction or another coordinate may work), best first:\n"
                         + "\n".join(f"- {_show(a.reply)}: {_outcome(a)}" for a in here))
        if earlier:
            parts.append("Tried from earlier heads, best first:\n"
                         + "\n".join(f"- from {a.head_value}: {_show(a.reply)}: {_outcome(a)}" for a in earlier))
        return "\n".join(parts)


def _is_repeat(r: Any) -> bool:
    return bool(r.reasons) and str(r.reasons[0]).startswith("repeat of stored candidate")


def _value(head: Any) -> str:
    """Return the head's first certified bound in decimals (display), "-" when it has none."""
    for _, v in sorted(head.bounds.items()):
        return f"{float(v):.6f}"
    return "-"


def _bound(head: Any) -> str:
    """Return the name of the head's first certified bound ("the value" when it has none)."""
    return next(iter(sorted(head.bounds)), "the value") if head is not None else "the value"


def _best_first(a: Attempt) -> tuple[int, float]:
    return (0, -float(Fraction(a.value))) if a.value is not None else (1, 0.0)


def _show(reply: Any) -> str:
    return json.dumps(reply, ensure_ascii=False, sort_keys=False)[:300]


def _outcome(a: Attempt) -> str:
    if a.outcome == "repeat":
        return "a repeat (not checked again)"
    if a.outcome == "unknown":
        return "checked; not the head now (committed and passed, or not certified)"
    if a.value is not None:
        return f"{a.value} ({a.outcome})"
    return f"{a.outcome}: {a.reason}"
