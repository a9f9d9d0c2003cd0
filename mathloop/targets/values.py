"""The value objects a target hands back to its callers: a published start, a re-verified chain, open-by-design ids."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from mathloop.domain import Evidence


@dataclass(frozen=True)
class PublishedStart:
    """A published construction a target ships, as a candidate payload with its credit (`run --start published`).

    Attributes:
        payload: the candidate (validated by the target's parser like any other).
        who: the authors, as the records list them.
        value: the value as published (printed digits).
        source: where it was published and where the data was read.
        construction: the data file it was read from.
    """

    payload: Mapping[str, Any]
    who: str
    value: str
    source: str
    construction: str


@dataclass(frozen=True)
class ChainCheck:
    """The re-verification of an exported certificate chain, from the contract's seed.

    Attributes:
        evidences: the evidence of every file re-verified, in chain order.
        reasons: why the re-verification stopped early (empty when every file re-verified).
        files: how many files the manifest lists.
    """

    evidences: tuple[Evidence, ...]
    reasons: tuple[str, ...]
    files: int


@dataclass(frozen=True)
class OpenByDesign:
    """Which obligations of a contract may be UNKNOWN (rank >= 1) while a certified bound that rests on them counts.

    The gate's rule is strict (check/rules.py): a certified bound counts only when its bound obligation and every
    obligation it depends on are PROVED in the same evidence. A target declares here, by obligation id, the two
    ways an obligation can be open without putting a certified value in doubt; the gate reads this declaration,
    never a verdict's reasons, and the audit reads the same one.

    Attributes:
        goals: bound obligations whose verdict says only whether the contract's `goal` is reached: UNKNOWN means
            "certified, short of the goal" (counted only when the certified value is short of it), PROVED means
            "the goal is reached" (refused when the certified value is short of it).
        progress: obligations whose rank counts the work left, e.g. critical-line-zeros' `blocks` (Gram intervals
            not yet covered up to the cap): UNKNOWN means "not finished", and the bounds that depend on them count.
    """

    goals: frozenset[str] = frozenset()
    progress: frozenset[str] = frozenset()
