"""The sidon-autocorrelation proposal form: positive step heights, so f >= 0 with ∫f > 0 by construction.

A reply {"heights": [...]} lists n (1..MAX_STEPS_IN_REPLY) positive numbers: decimals below 10 with up to 11
places (a step can be made as small as 1e-11, standing in for 0: the value is scale-invariant and continuous in
the heights) or fractions "p/q" of up to 6 digits each. Every reply is a non-negative step function with positive
integral; the mapping to {"heights": [...]} is the identity on the exact values.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from mathloop.targets.base import Malformed
from mathloop.targets.form import Decimal, DecimalList, ProposalForm, exact, object_schema
from mathloop.targets.payload import exact_keys

HEIGHT = Decimal(int_digits=1, places=6, positive=True, ratio_digits=6)
MAX_STEPS_IN_REPLY = 64  # what a model can write in one reply; longer heads are shown in full
EXPLANATION = ("Reply with the heights of n equal steps on [-1/4, 1/4], each a positive decimal below 10 or a "
               "fraction p/q (\"0.00001\" for a step that should be almost 0). The value does not change when every height "
               "is scaled. To refine, split steps (append entries); n may be 1 to {n}.")


class SidonForm:
    """The positive-heights form; `form()` returns the ProposalForm."""

    def __init__(self, max_steps: int, parse: Callable[[Any], Any]) -> None:
        self.heights = DecimalList(HEIGHT, 1, min(max_steps, MAX_STEPS_IN_REPLY))
        self.parse = parse

    def to_payload(self, reply: Any) -> dict[str, Any]:
        """Return {"heights": [...]} (exact). Raises Malformed off the form."""
        exact_keys(reply, ("heights",))
        payload = {"heights": [exact(h) for h in self.heights.parse("heights", reply["heights"])]}
        self.parse(payload)  # the contract's limits (the shipped contracts never refuse a reply of the form)
        return payload

    def from_payload(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """Return the head in the form (rounded for display), None when it is too long or has a zero step."""
        try:
            steps = self.parse(state)
        except Malformed:
            return None
        if steps.n > self.heights.max_items or any(h <= 0 for h in steps.heights):
            return None
        top = max(steps.heights)
        scaled = [h * 9 / top for h in steps.heights] if top >= 10 else list(steps.heights)  # scale-invariant
        return {"heights": [HEIGHT.show(h) for h in scaled]}

    def form(self) -> ProposalForm:
        schema = object_schema({"heights": self.heights.schema()})
        return ProposalForm("sidon positive heights", schema, self.to_payload, self.from_payload,
                            EXPLANATION.format(n=self.heights.max_items))
