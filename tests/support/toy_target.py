"""A deliberately tiny target for testing the core (gate, loop, store, audit) without real mathematics.

Candidate {"x": "p/q"}: the check `in-range` proves 0 <= x <= 1 exactly; the bound `value` = x is
certified only when in range. {"x": ..., "crash": true} makes the checker crash; {"sleep": s}
makes it hang for s seconds (to test timeouts). `cheat` certifies a value beyond the class maximum.
"""

from __future__ import annotations

import os
import time
from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import Evidence, ObligationResult, Trust, Verdict
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import CheckerCrash, Malformed, Target

TOY_CONTRACT = '''
[target]
implementation = "toy"
title = "Toy bound"
statement = "Find x in [0, 1] as large as possible."

[limits]
check_timeout_s = 5
default_budget = 20

[[obligations]]
id = "axiom-of-toys"
kind = "hypothesis"
title = "Toys exist"
statement = "Taken as given."
citation = "Folklore (1900)"

[[obligations]]
id = "x-input"
kind = "input"
title = "x"
statement = "A rational x."
checker = "parse"

[[obligations]]
id = "in-range"
kind = "check"
title = "0 <= x <= 1"
statement = "x lies in the unit interval."
depends_on = ["x-input"]
checker = "exact"

[[obligations]]
id = "value-bound"
kind = "bound"
title = "value"
statement = "The certified value x."
depends_on = ["in-range", "axiom-of-toys"]
checker = "exact"
[obligations.bound]
name = "value"
direction = "maximize"
min_improvement = "1/100"
class_maximum = "1"
digits = 6

[seed]
x = "1/10"
'''


class ToyTarget(Target):
    name = "toy"
    version = "1"
    checks = {"parse": Trust.EXACT, "exact": Trust.EXACT}

    def parse(self, payload: Any) -> dict:
        if not isinstance(payload, dict) or "x" not in payload:
            raise Malformed("payload: must be an object with key 'x'")
        extra = set(payload) - {"x", "crash", "sleep", "cheat", "pidfile"}
        if extra:
            raise Malformed(f"{sorted(extra)[0]}: unknown key")
        if not isinstance(payload["x"], str) or len(payload["x"]) > 40:
            raise Malformed("x: must be a short rational string")
        try:
            x = Fraction(payload["x"])
        except (ValueError, ZeroDivisionError):
            raise Malformed(f"x: not a rational: {payload['x']!r}") from None
        return {"x": x, **{k: payload[k] for k in ("crash", "sleep", "cheat", "pidfile") if k in payload}}

    def check(self, parent_state: Mapping[str, Any] | None, c: dict) -> Evidence:
        if c.get("crash"):
            raise CheckerCrash("asked to crash")
        if c.get("sleep"):
            child = os.fork()  # a grandchild that would outlive a naive kill
            if child == 0:
                if c.get("pidfile"):
                    with open(c["pidfile"], "w") as f:
                        f.write(str(os.getpid()))
                time.sleep(float(c["sleep"]) * 10)
                os._exit(0)
            time.sleep(float(c["sleep"]))
        x = c["x"]
        ok = 0 <= x <= 1
        results = (
            ObligationResult("x-input", Verdict.PROVED, 0, Trust.EXACT),
            ObligationResult("in-range", Verdict.PROVED if ok else Verdict.REFUTED, 0 if ok else 1, Trust.EXACT,
                             () if ok else (f"x = {x} is not in [0, 1]",)),
            ObligationResult("value-bound", Verdict.PROVED if ok else Verdict.UNKNOWN, 0 if ok else 1, Trust.EXACT,
                             () if ok else ("not certified: x out of range",)),
        )
        bounds = {"value": x * 2 if c.get("cheat") else x} if ok else {}
        return Evidence("toy", self.version, results, bounds, {"x": x}, {"certificate": {"x": x}}, {"exact": True})

    def local_proposer(self, seed: int):
        return StepProposer()


class StepProposer(Proposer):
    """Proposes x = 2/10, 3/10, ..., 1, then nothing."""

    name = "local"

    def __init__(self) -> None:
        self.k = 1

    def propose(self, ctx: Context) -> list[Proposal]:
        out = []
        while len(out) < ctx.samples and self.k < 10:
            self.k += 1
            out.append(Proposal({"x": f"{self.k}/10"}, self.name))
        return out
