"""The pair-correlation proposal form: the grid fixed, node counts exact, r-hat <= 0 on [1, A] by construction.

The grid (h, A) is the contract seed's; a reply {"body": [...], "tail": [...]} gives the node values r-hat(j h)
for j h < 1 (`body`, exactly #{j : j h < 1} decimals) and the magnitudes of the nodes with j h >= 1 (`tail`,
exactly A/h − len(body) non-negative decimals, entered as −tail[i]). With 1/h an integer, r-hat(1) is a tail node,
so every reply meets the tail-sign condition; mass and positivity stay the checkers' to decide.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import Any, Callable, Mapping

from mathloop.targets.base import Malformed
from mathloop.targets.form import Decimal, DecimalList, ProposalForm, exact, object_schema
from mathloop.targets.payload import exact_keys

KEYS = ("body", "tail")
BODY = Decimal(int_digits=3, places=8)
TAIL = Decimal(int_digits=3, places=8, signed=False)


class PairCorrelationForm:
    """The body/tail form on the grid (h, A); `form()` returns the ProposalForm (None when 1/h is no integer)."""

    def __init__(self, h: Fraction, A: Fraction, parse: Callable[[Any], Any]) -> None:
        self.h, self.A, self.parse = h, A, parse
        self.n = int(A / h)
        self.n_body = min(self.n, ceil(1 / h))  # j h < 1  <=>  j < 1/h
        self.body = DecimalList(BODY, self.n_body, self.n_body)
        self.tail = DecimalList(TAIL, self.n - self.n_body, self.n - self.n_body)

    def explanation(self) -> str:
        return (f"The grid is fixed: h = {exact(self.h)}, A = {exact(self.A)}, so there are A/h = {self.n} nodes "
                f"r-hat(j h), j = 0..{self.n - 1}.\n"
                f"  body: exactly {self.n_body} values r-hat(j h) for j h < 1 (j = 0..{self.n_body - 1});\n"
                f"  tail: exactly {self.n - self.n_body} non-negative numbers t; the nodes j h >= 1 are -t "
                f"(so r-hat <= 0 on [1, A] by construction).")

    def to_payload(self, reply: Any) -> dict[str, Any]:
        """Return the full candidate {"h", "A", "nodes"} (exact). Raises Malformed off the form."""
        exact_keys(reply, KEYS)
        body = self.body.parse("body", reply["body"])
        tail = self.tail.parse("tail", reply["tail"])
        payload = {"h": exact(self.h), "A": exact(self.A), "nodes": [exact(v) for v in body] + [exact(-t) for t in tail]}
        self.parse(payload)  # the target's own limits: a Malformed here is a contract the form does not fit
        return payload

    def from_payload(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """Return the head in body/tail form (decimals rounded to 8 places for display), None off this grid."""
        try:
            c = self.parse(state)
        except Malformed:
            return None
        if c.h != self.h or c.A != self.A or any(v > 0 for v in c.nodes[self.n_body:]):
            return None
        return {"body": [BODY.show(v) for v in c.nodes[: self.n_body]],
                "tail": [TAIL.show(-v) for v in c.nodes[self.n_body:]]}

    def form(self) -> ProposalForm | None:
        if (1 / self.h).denominator != 1 or self.n_body >= self.n:
            return None  # r-hat(1) would interpolate between body and tail: the sign is not by construction
        schema = object_schema({"body": self.body.schema(), "tail": self.tail.schema()})
        return ProposalForm("pair-correlation body/tail", schema, self.to_payload, self.from_payload, self.explanation())
