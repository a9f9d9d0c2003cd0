"""The environment's checker processes: the one pool (mathloop/check/executors.py), started and warmed eagerly."""

from __future__ import annotations

from typing import Any, Mapping

from mathloop.check.outcome import CheckOutcome
from mathloop.check.executors import LocalPool
from mathloop.contract import Contract


class CheckerPool(LocalPool):
    """A LocalPool bound to one contract, every child warmed with its seed in the constructor (older callers)."""

    def __init__(self, contract: Contract, timeout_s: float, workers: int = 1, start_method: str | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers: must be >= 1, got {workers}")
        super().__init__(workers, timeout_s)
        self.contract = contract
        try:
            self.warm(contract)
        except BaseException:
            self.close()
            raise

    def check(self, parent_state: Mapping[str, Any] | None, payload: Any) -> CheckOutcome:  # type: ignore[override]
        """Return the outcome of one check of this pool's contract in an idle child."""
        return super().check(self.contract, parent_state, payload)
