"""The reward table: one float per label, in the order the commit rule ranks them.

Defaults (every value configurable, the order enforced):

| label | reward | why |
|---|---|---|
| correct | 1.0 | strict progress and every obligation discharged |
| progress | 0.5 | strict progress (plus `gain_scale` x the certified gain, capped at `gain_cap`) |
| no_progress | 0.0 | nothing better, nothing worse (a gain below the minimum improvement included) |
| incomparable | -0.25 | something better and something worse |
| regression | -0.5 | something worse, nothing better |
| malformed | -1.0 | no JSON, a schema or limit violation, prose instead of a candidate |
| error | -1.0 | the checker could not answer (timeout, crash) |

A table must keep correct, progress > 0, no_progress = 0, regression, incomparable < 0, and
malformed, error below every other label: a reward that paid for prose or for breaking an
obligation would teach exactly what the gate refuses.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from typing import Any, Mapping

from mathloop.contract import Contract
from mathloop.domain import Evidence, Label, Scores
from mathloop.order import oriented


@dataclass(frozen=True)
class RewardTable:
    """Rewards per label; see the module docstring for the defaults and the enforced order.

    Attributes:
        correct / progress / no_progress / regression / incomparable / malformed / error: the
            reward of each label.
        gain_scale: added to correct/progress per unit of certified gain (oriented bound difference
            to the reference, summed over bounds); 0 = off.
        gain_cap: the certified gain counted is at most this (keeps rewards bounded).
    """

    correct: float = 1.0
    progress: float = 0.5
    no_progress: float = 0.0
    regression: float = -0.5
    incomparable: float = -0.25
    malformed: float = -1.0
    error: float = -1.0
    gain_scale: float = 0.0
    gain_cap: float = 1.0

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"rewards.{f.name}: must be a finite number, got {v!r}")
        for name in ("correct", "progress"):
            if not getattr(self, name) > 0:
                raise ValueError(f"rewards.{name}: must be > 0 (strict progress is rewarded), got {getattr(self, name)}")
        if self.no_progress != 0:
            raise ValueError(f"rewards.no_progress: must be 0, got {self.no_progress}")
        for name in ("regression", "incomparable"):
            if not getattr(self, name) < 0:
                raise ValueError(f"rewards.{name}: must be < 0 (something got worse), got {getattr(self, name)}")
        floor = min(self.regression, self.incomparable)
        for name in ("malformed", "error"):
            if not getattr(self, name) < floor:
                raise ValueError(f"rewards.{name}: must be below regression and incomparable ({floor}), "
                                 f"got {getattr(self, name)}")
        if self.gain_scale < 0 or self.gain_cap < 0:
            raise ValueError("rewards.gain_scale and rewards.gain_cap: must be >= 0")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "RewardTable":
        """Return the table with `values` overriding the defaults.

        Raises:
            ValueError: "rewards.<key>: ..." for an unknown key or a value that breaks the order.
        """
        known = {f.name for f in fields(cls)}
        for key in values:
            if key not in known:
                raise ValueError(f"rewards.{key}: unknown key (known: {', '.join(sorted(known))})")
        return cls(**dict(values))

    def value(self, label: Label, gain: Fraction = Fraction(0)) -> float:
        """Return the reward of a label (correct/progress plus the scaled, capped certified gain).

        >>> RewardTable(gain_scale=10).value(Label.PROGRESS, Fraction(1, 100))
        0.6
        >>> RewardTable().value(Label.MALFORMED)
        -1.0
        """
        base = float(getattr(self, label.value))
        if label in (Label.CORRECT, Label.PROGRESS) and self.gain_scale:
            base += self.gain_scale * min(float(gain), self.gain_cap)
        return base

    def to_json(self) -> dict[str, float]:
        return asdict(self)


def certified_gain(contract: Contract, reference: Scores | None, evidence: Evidence) -> Fraction:
    """Return the summed oriented gain of the certified bounds over the reference (>= 0 each).

    A bound the reference does not certify counts 0: there is nothing to measure the gain from.
    """
    total = Fraction(0)
    if reference is None:
        return total
    for spec in contract.bounds:
        new, old = evidence.bounds.get(spec.name), reference.bounds.get(spec.name)
        if new is not None and old is not None:
            total += max(Fraction(0), oriented(new, spec) - oriented(old, spec))
    return total


def load_reward_table(path: str | os.PathLike[str]) -> RewardTable:
    """Return the reward table of a TOML file's `[rewards]` table (defaults for keys it leaves out).

    Raises:
        ValueError: "<file>: rewards.<key>: reason" (unreadable file, not TOML, unknown key, wrong order).
    """
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, ValueError) as e:  # ValueError: TOMLDecodeError, or an integer beyond the digit limit
        raise ValueError(f"{path}: {str(e)[:200]}") from None
    table = data.get("rewards", {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: rewards: must be a table")
    try:
        return RewardTable.from_mapping(table)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
