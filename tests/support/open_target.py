"""Stand-in checkers for the gate's strict bound rule and the targets' OpenByDesign declaration (tests on every path).

The contract: x-input, in-range (0 <= x <= 1), coverage (a lemma whose rank counts the work left, 10 - 10x rounded
up: a progress measure) and value-bound (the bound x, goal 9/10, depending on in-range and coverage). Honest evidence
for 0 <= x < 9/10: in-range PROVED, coverage UNKNOWN (open), value-bound UNKNOWN ("certified, short of the goal"),
the bound x certified.

`open-goal` declares coverage a progress measure (and, by the default, value-bound a goal): honest evidence counts.
`strict-goal` declares nothing open: the same honest evidence is refused (the bound's obligation is not PROVED).
Candidate {"x": "p/q", "spoil": KIND} spoils the honest evidence as KIND says (SPOILS).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import Evidence, ObligationResult, Trust, Verdict
from mathloop.propose.base import Proposal, Proposer
from mathloop.targets.base import Malformed, OpenByDesign, Target

GOAL = Fraction(9, 10)
OPEN_CONTRACT = '''
[target]
implementation = "open-goal"
title = "Toy bound with a goal and a progress measure"
statement = "Find x in [0, 1] as large as possible; the goal is 9/10."

[limits]
check_timeout_s = 20
default_budget = 20

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
id = "coverage"
kind = "lemma"
title = "coverage"
statement = "The unit interval is covered up to x; rank = tenths left."
depends_on = ["in-range"]
checker = "coverage"

[[obligations]]
id = "value-bound"
kind = "bound"
title = "value"
statement = "The certified value x."
depends_on = ["in-range", "coverage"]
checker = "exact"
[obligations.bound]
name = "value"
direction = "maximize"
min_improvement = "1/100"
class_maximum = "1"
goal = "9/10"
digits = 6

[seed]
x = "1/10"
'''
STRICT_CONTRACT = OPEN_CONTRACT.replace('implementation = "open-goal"', 'implementation = "strict-goal"').replace(
    'x = "1/10"', 'x = "1"')

# Each spoils one result of honest evidence; every one is refused by the gate on open-goal.
SPOILS = {
    "unknown-dep": "in-range UNKNOWN (an upstream check not declared open)",
    "refuted-progress": "coverage REFUTED (a progress measure may be open, never refuted)",
    "goal-unknown-reached": "value-bound UNKNOWN while x reaches the goal",
    "goal-proved-short": "value-bound PROVED while x is short of the goal",
}

# A payload per kind whose honest evidence counts (x short of the goal, or reaching it for goal-unknown-reached).
SPOILED = {k: {"x": "95/100" if k == "goal-unknown-reached" else "6/10", "spoil": k} for k in SPOILS}


def _spoil(ev: Evidence, kind: str) -> Evidence:
    oid, verdict, rank = {"unknown-dep": ("in-range", Verdict.UNKNOWN, 1),
                          "refuted-progress": ("coverage", Verdict.REFUTED, 1),
                          "goal-unknown-reached": ("value-bound", Verdict.UNKNOWN, 1),
                          "goal-proved-short": ("value-bound", Verdict.PROVED, 0)}[kind]
    return replace(ev, results=tuple(ObligationResult(r.id, verdict, rank, r.trust) if r.id == oid else r
                                     for r in ev.results))


class OpenGoalTarget(Target):
    name = "open-goal"
    version = "1"
    checks = {"parse": Trust.EXACT, "exact": Trust.EXACT, "coverage": Trust.EXACT}
    progress_measures = ("coverage",)
    decides_by_goal = True  # value-bound is UNKNOWN short of the goal

    def parse(self, payload: Any) -> dict:
        if not isinstance(payload, dict) or not isinstance(payload.get("x"), str) or len(payload["x"]) > 40:
            raise Malformed("payload: an object with a short rational string 'x'")
        if set(payload) - {"x", "spoil"} or payload.get("spoil", "honest") not in (*SPOILS, "honest"):
            raise Malformed(f"spoil: one of {sorted(SPOILS)}")
        try:
            x = Fraction(payload["x"])
        except (ValueError, ZeroDivisionError):
            raise Malformed("x: not a rational") from None
        return {"x": x, "spoil": payload.get("spoil")}

    def check(self, parent_state: Mapping[str, Any] | None, c: dict) -> Evidence:
        x = c["x"]
        ok = 0 <= x <= 1
        left = -((x - 1) * 10 // 1) if ok else 10  # tenths of [0, 1] not yet covered, rounded up
        results = (
            ObligationResult("x-input", Verdict.PROVED, 0, Trust.EXACT),
            ObligationResult("in-range", Verdict.PROVED if ok else Verdict.REFUTED, 0 if ok else 1, Trust.EXACT),
            ObligationResult("coverage", Verdict.PROVED if left == 0 else Verdict.UNKNOWN, int(left), Trust.EXACT,
                             () if left == 0 else (f"open: {left} tenths left",)),
            ObligationResult("value-bound", Verdict.PROVED if ok and x >= GOAL else Verdict.UNKNOWN,
                             0 if ok and x >= GOAL else 1, Trust.EXACT,
                             ("certified, short of the goal 9/10",) if ok and x < GOAL else ()),
        )
        ev = Evidence(self.name, self.version, results, {"value": x} if ok else {}, {"x": x}, {"certificate": {"x": x}},
                      {"exact": True})
        return _spoil(ev, c["spoil"]) if c.get("spoil") else ev

    def local_proposer(self, seed: int) -> Proposer:
        return Sequence([{"x": "1/2"}, *SPOILED.values()])


class StrictGoalTarget(OpenGoalTarget):
    """The same checker, declaring nothing open: only PROVED obligations let a bound count."""

    name = "strict-goal"

    @classmethod
    def open_by_design(cls, contract) -> OpenByDesign:
        return OpenByDesign()


class Sequence(Proposer):
    """Proposes the given payloads one per round, then nothing."""

    name = "local"

    def __init__(self, payloads: list) -> None:
        self.payloads = list(payloads)

    def propose(self, ctx) -> list[Proposal]:
        out, self.payloads = self.payloads[: ctx.samples], self.payloads[ctx.samples:]
        return [Proposal(p, self.name) for p in out]
