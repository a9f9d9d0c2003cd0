"""A commit or a lineage named by a hash prefix, as `git` names commits: unique, and at least MIN_PREFIX hex digits."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

MIN_PREFIX = 8
SHOWN = 5  # matches listed for an ambiguous prefix
_HEX = re.compile(r"[0-9a-f]{0,64}")


@dataclass(frozen=True)
class Resolved:
    """What a prefix names: `full` (the one hash), or `problem` (why none) with the `matches` when ambiguous."""

    full: str | None
    problem: str | None = None
    matches: tuple[str, ...] = ()


def resolve(engine: Engine, column: Any, text: str, *, what: str = "commit", min_digits: int = MIN_PREFIX) -> Resolved:
    """Return the hash in `column` (e.g. CommitRow.hash, ContractRow.sha256) that `text` is a unique prefix of.

    `text` must be lowercase hex, min_digits to 64 digits; anything else is a problem, never a query.
    """
    prefix = text.strip().lower()
    if not _HEX.fullmatch(prefix) or len(prefix) < min_digits:
        return Resolved(None, f"{text[:80]!r} is not a {what} hash: give the hash or a unique prefix of at least "
                              f"{MIN_PREFIX} hex digits")
    with Session(engine) as s:
        found = list(s.exec(select(column).where(column.startswith(prefix, autoescape=True)).limit(SHOWN + 1)))
    if not found:
        return Resolved(None, f"no {what} starts with {prefix} in this store")
    if len(found) > 1:
        more = "" if len(found) <= SHOWN else " and more"
        return Resolved(None, f"{prefix} is ambiguous: {len(found) if not more else f'over {SHOWN}'} {what}s start with "
                              f"it ({', '.join(h[:16] for h in found[:SHOWN])}{more}); give more digits",
                        tuple(found[:SHOWN]))
    return Resolved(found[0])
