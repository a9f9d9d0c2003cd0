"""The Levinson–Conrey edit form: a reply is a bounded step from the head's S/T/R, so a small step is the only one.

A reply {"dS": [...], "dT": [...], "dR": "..."} of decimal steps, each |d| <= 0.2 with at most 3 places, means
    S = S_head + dS,  T = T_head + dT,  R = R_head + dR      (entry-wise; missing entries are 0),
where S_head, T_head, R_head are the head exactly as the prompt shows it (the S/T/R form's decimals: entries to 6
places, R to 11), and an entry of dS or dT past the head's length appends a new entry equal to it (a raised
degree starts within the step). A sum leaving the S/T/R form's ranges stops at its edge (entries in
[−0.999999, 0.999999], R in [0.001, 1.999]), so every reply maps exactly to S, T, R within the S/T/R form's
ranges and places (`form.py`; R may have up to 11 places below 1 too), hence to a candidate meeting P(0) = 0,
P(1) = 1, Q(0) = 1, Q's symmetry and the shipped limits (`tests/unit/test_proposal_forms_edits.py`).

Why (issue 26, measured with Qwen2.5-Coder-1.5B): with absolute S/T/R replies the model raised degrees with large
new entries (T = [0.5, 0.6], κ −2.7) and never moved S[0], while single steps of 0.1–0.2 from the seed reach
κ 0.405. A reply in the S/T/R form itself (keys S, T, R) or the full payload (P, Q, R) is still read as before.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.targets.base import Malformed
from mathloop.targets.form import DecimalList, ProposalForm, Step, object_schema
from mathloop.targets.levinson_conrey.form import KEYS as ABSOLUTE_KEYS, ENTRY, SHIFT, LevinsonForm
from mathloop.targets.payload import exact_keys

KEYS = ("dS", "dT", "dR")
STEP = Step(tenths=2, places=3)
ENTRY_EDGE = Fraction(999999, 10**6)
R_LOW, R_HIGH = Fraction(1, 1000), Fraction(1999, 1000)
EXPLANATION = """The form (every candidate of it meets P(0)=0, P(1)=1, Q(0)=1 and the symmetry of Q):
  P(x) = x + x(1-x)*S(x) with S(x) = S[0] + S[1] x + S[2] x^2 + ...
  Q(x) = 1 - (T[0] + T[1] + ...) + T[0](1-2x) + T[1](1-2x)^3 + T[2](1-2x)^5 + ...
  R is the shift, 0 < R < 2; every entry of S and T lies between -1 and 1.
Reply with CHANGES to the head, not new values: {"dS": [...], "dT": [...], "dR": "..."}.
  dS[k] is added to S[k], dT[k] to T[k], dR to R; every change lies between -0.2 and 0.2 (e.g. "-0.1", "0.05", "0").
  Leave a list short to keep the rest unchanged. One entry past the end of S or T appends a new entry (a higher degree).
Change only one or two numbers per reply and leave the others "0". Changes can be negative: when a change lowered
kappa, try the opposite sign. The earlier attempts below are written as changes of the head."""


def _clamp(v: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    return min(max(v, lo), hi)


def _add(head: tuple[Fraction, ...], step: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    n = max(len(head), len(step))
    h, d = list(head) + [Fraction(0)] * (n - len(head)), list(step) + [Fraction(0)] * (n - len(step))
    return tuple(_clamp(a + b, -ENTRY_EDGE, ENTRY_EDGE) for a, b in zip(h, d)) or (Fraction(0),)


class LevinsonEditForm:
    """Bounded edits of the head over the S/T/R form; `form()` returns the ProposalForm (edits=True)."""

    def __init__(self, max_degree: int, parse_payload: Any) -> None:
        self.absolute = LevinsonForm(max_degree, parse_payload)
        self.ds = DecimalList(STEP, 0, self.absolute.s.max_items)
        self.dt = DecimalList(STEP, 0, self.absolute.t.max_items)

    def schema(self) -> dict[str, Any]:
        return object_schema({"dS": self.ds.schema(), "dT": self.dt.schema(), "dR": STEP.schema()})

    def shown_head(self, head: Mapping[str, Any] | None) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...], Fraction]:
        """Return the head's (S, T, R) exactly as the prompt shows it. Raises Malformed when it has no S/T/R form."""
        shown = self.absolute.from_payload(head) if isinstance(head, Mapping) else None
        if shown is None:
            raise Malformed("dS: the head has no S/T/R form to edit; reply with the full P, Q, R instead")
        return (tuple(ENTRY.parse("S", v) for v in shown["S"]), tuple(ENTRY.parse("T", v) for v in shown["T"]),
                SHIFT.parse("R", shown["R"]))

    def to_payload(self, reply: Any, head: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return the full candidate {"P", "Q", "R"} for an edit of `head` (exact). Raises Malformed off the form."""
        if isinstance(reply, dict) and set(reply) == set(ABSOLUTE_KEYS):
            return self.absolute.to_payload(reply)  # the S/T/R form itself, as before edits existed
        exact_keys(reply, KEYS)
        dS, dT, dR = self.ds.parse("dS", reply["dS"]), self.dt.parse("dT", reply["dT"]), STEP.parse("dR", reply["dR"])
        S, T, R = self.shown_head(head)
        S2, T2 = _add(S, dS), _add(T, dT)
        R2 = _clamp(R + dR, R_LOW, R_HIGH)
        return self.absolute.payload_of(S2, T2, R2)

    def as_edit(self, payload: Mapping[str, Any], head: Mapping[str, Any]) -> dict[str, Any] | None:
        """Return `payload` as the edit {"dS", "dT", "dR"} of `head` (display: 6 places), None without S/T/R forms."""
        p, h = self.absolute.from_payload(payload), self.absolute.from_payload(head)
        if p is None or h is None:
            return None

        def diff(a: list[str], b: list[str]) -> list[str]:
            n = max(len(a), len(b))
            x = [Fraction(v) for v in a] + [Fraction(0)] * (n - len(a))
            y = [Fraction(v) for v in b] + [Fraction(0)] * (n - len(b))
            d = [u - w for u, w in zip(x, y)]
            while d and d[-1] == 0:
                d.pop()
            return [ENTRY.show(v) for v in d]

        return {"dS": diff(p["S"], h["S"]), "dT": diff(p["T"], h["T"]),
                "dR": ENTRY.show(Fraction(p["R"]) - Fraction(h["R"]))}

    def form(self) -> ProposalForm:
        return ProposalForm("levinson-conrey S/T/R edits", self.schema(), self.to_payload, self.absolute.from_payload,
                            EXPLANATION, edits=True, as_edit=self.as_edit)
