"""Side conditions: named exact checks that each return None when they hold, else the reason they fail."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from mathloop.domain import Trust, Verdict
from mathloop.targets.evidence import Outcome


def failures(conditions: Mapping[str, Callable[..., str | None]], *args: Any) -> dict[str, str]:
    """Return {checker name: reason} for every condition in `conditions` that fails on `args`, in their order."""
    out = {}
    for name, check in conditions.items():
        why = check(*args)
        if why is not None:
            out[name] = why
    return out


def outcomes(conditions: Iterable[str], fails: Mapping[str, str]) -> dict[str, Outcome]:
    """Return {checker name: exact Outcome} in `conditions` order: REFUTED with its reason in `fails`, else PROVED."""
    return {name: (Outcome(Verdict.REFUTED, Trust.EXACT, (fails[name],)) if name in fails
                   else Outcome(Verdict.PROVED, Trust.EXACT)) for name in conditions}
