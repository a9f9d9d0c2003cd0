"""The erdos-minimum-overlap proposal form: step values in [0, 1], moved to mean 1/2, so every reply is admissible.

A reply {"values": [...]} lists n (1..MAX_STEPS_IN_REPLY) decimals u_i in [0, 1] (at most 6 places): the values of
n equal steps on [−1, 1]. ∫f = 1 means mean(f) = 1/2, so the mean m of the u_i is moved to 1/2 exactly:
    m >= 1/2:  f_i = u_i / (2m)                      (scaled towards 0),
    m <  1/2:  f_i = 1 − (1 − u_i) / (2(1 − m))      (scaled towards 1).
Both keep every f_i in [0, 1] (1/(2m) <= 1 and 1/(2(1 − m)) < 1) and give mean 1/2, so 0 <= f <= 1 and ∫f = 1 for
every reply; a reply whose mean is already 1/2 maps to itself. The stored payload is {"heights": [f_i]} exactly
(the checker's normalisation n·h_i/(2Σh) is then f_i itself).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

from mathloop.targets.base import Malformed
from mathloop.targets.form import Decimal, DecimalList, ProposalForm, exact, object_schema
from mathloop.targets.payload import exact_keys
from mathloop.targets.sidon_autocorrelation.form import MAX_STEPS_IN_REPLY  # longer heads have no form view

VALUE = Decimal(places=6, unit=True)
HALF = Fraction(1, 2)
EXPLANATION = ("Reply with the values f_1..f_n of n equal steps on [-1, 1] (n = 1 to {n}), each a decimal in [0, 1]; "
               "g = 1 - f. The integral of f must be 1, i.e. the mean of the values 1/2: if the mean m of your "
               "values differs, they are moved exactly (m > 1/2: f = u/(2m); m < 1/2: f = 1 - (1-u)/(2(1-m))). "
               "The value to minimise is the largest overlap max_x ∫ f(t) g(x+t) dt over all shifts x. "
               "To refine, split steps (more entries).")


def to_mean_half(u: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    """Return the values moved to mean 1/2 (scaled towards 0 or towards 1; see the module docstring), exactly."""
    m = sum(u, Fraction(0)) / len(u)
    if m >= HALF:
        return tuple(x / (2 * m) for x in u)
    return tuple(1 - (1 - x) / (2 * (1 - m)) for x in u)


class OverlapForm:
    """The values-in-[0, 1] form; `form()` returns the ProposalForm."""

    def __init__(self, max_steps: int, parse: Callable[[Any], Any]) -> None:
        self.values = DecimalList(VALUE, 1, min(max_steps, MAX_STEPS_IN_REPLY))
        self.parse = parse

    def to_payload(self, reply: Any) -> dict[str, Any]:
        """Return {"heights": [f_i]} (exact, mean 1/2, each in [0, 1]). Raises Malformed off the form."""
        exact_keys(reply, ("values",))
        f = to_mean_half(self.values.parse("values", reply["values"]))
        payload = {"heights": [exact(x) for x in f]}
        self.parse(payload)  # the contract's limits (the shipped contract never refuses a reply of the form)
        return payload

    def from_payload(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """Return the head's normalised values n·h/(2Σh) (6 places, display only), None when it has no form view."""
        try:
            steps = self.parse(state)
        except Malformed:
            return None
        total = sum(steps.heights, Fraction(0))
        if steps.n > self.values.max_items or total <= 0:
            return None
        f = [steps.n * h / (2 * total) for h in steps.heights]
        if any(not 0 <= x <= 1 for x in f):
            return None
        return {"values": [VALUE.show(x) for x in f]}

    def form(self) -> ProposalForm:
        schema = object_schema({"values": self.values.schema()})
        return ProposalForm("erdos values in [0, 1]", schema, self.to_payload, self.from_payload,
                            EXPLANATION.format(n=self.values.max_items))
