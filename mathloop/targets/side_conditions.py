"""Side conditions: named exact checks that each return None when they hold, else the reason they fail."""

from __future__ import annotations

from typing import Any, Callable, Mapping


def failures(conditions: Mapping[str, Callable[..., str | None]], *args: Any) -> dict[str, str]:
    """Return {checker name: reason} for every condition in `conditions` that fails on `args`, in their order."""
    out = {}
    for name, check in conditions.items():
        why = check(*args)
        if why is not None:
            out[name] = why
    return out
