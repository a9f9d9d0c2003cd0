"""An authenticated executor with two in-process workers, one honest and one forging (for quarantine tests).

Checks alternate between `honest` and `forger` in submission order. The forger runs the real check and raises every
certified bound by 1/20 (the state and results unchanged): evidence that passes every contract rule, so only a
re-check in the session can tell. `rng` makes the Checker's --recheck draw scripted: `Draws([0.9, 0.9, 0.0])`
re-checks the third head-moving answer only.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from mathloop.check.outcome import CheckOutcome
from mathloop.check.runner import check_payload

HONEST, FORGER = "fake worker honest", "fake worker forger"


class _Done:
    def __init__(self, out: CheckOutcome) -> None:
        self.out = out

    def result(self, timeout: float | None = None) -> CheckOutcome:
        return self.out


class ForgingExecutor:
    """Every other check is forged; an authenticated executor, so forged answers commit unless re-checked."""

    name = "fake (2 workers)"
    workers = 2
    in_flight = 1  # one check per round: a round's later answers are judged against a head that may have moved
    authenticated = True

    def __init__(self) -> None:
        self.submitted = 0
        self.quarantined: list[str] = []

    def submit(self, contract, parent_state, payload) -> _Done:
        self.submitted += 1
        worker = FORGER if self.submitted % 2 == 0 and FORGER not in self.quarantined else HONEST
        out = check_payload(contract, parent_state, payload)
        if worker == FORGER and out.evidence is not None and out.evidence.bounds:
            out = CheckOutcome(evidence=replace(out.evidence, bounds={k: v + Fraction(1, 20)
                                                                      for k, v in out.evidence.bounds.items()}))
        return _Done(out.by(worker))

    def warm(self, contract) -> int:
        return 2

    def set_deadline(self, at) -> None:
        pass

    def quarantine(self, worker: str) -> None:
        self.quarantined.append(worker)

    def close(self) -> None:
        pass


class Draws:
    """A random.Random stand-in whose random() returns the scripted values, then 0.99 (no re-check)."""

    def __init__(self, values) -> None:
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0) if self.values else 0.99
