"""The Levinson–Conrey proposal form: P(0) = 0, P(1) = 1, Q(0) = 1 and Q's symmetry hold by construction.

A reply {"S": [...], "T": [...], "R": "..."} of decimals means
    P(x) = x + x(1 − x)·S(x),                     S(x) = Σ_k S[k] x^k,
    Q(x) = 1 − Σ_k T[k] + Σ_k T[k]·(1 − 2x)^(2k+1),
so P(0) = 0, P(1) = 1, Q(0) = 1 and Q(x) + Q(1 − x) = 2 − 2·Σ T[k] is constant, and R > 0. The mapping to
{"P", "Q", "R"} is exact (Fractions); the seed P = x, Q = 1 − x is S = ["0"], T = ["0.5"]. Entries lie in
(−1, 1) with at most 6 places and R in (0, 2), so every expanded coefficient stays within the shipped contract's
limits. The ranges are the form's choice, not the target's: measured with a 1.5B model (issue 26), replies with
the earlier range (entries up to ±99, R < 10) jumped to T = [1.5, −39, 48, −32], R = 2.4 and κ < −1, while the
embedded optimiser's best (κ 0.408959) has |S|, |T| < 0.7 and R ≈ 1.29, as do the published choices (R = 1.3).
A full {"P", "Q", "R"} reply outside these ranges is still judged by the target's parser.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.targets.base import Malformed
from mathloop.targets.form import Decimal, DecimalList, ProposalForm, exact, object_schema
from mathloop.targets.payload import exact_keys
from mathloop.targets.polynomial import add, mul, scale, trim

KEYS = ("S", "T", "R")
ENTRY = Decimal(int_digits=1, places=6, max_lead=0)  # |entry| < 1
SHIFT = Decimal(int_digits=1, places=6, positive=True, max_lead=1)  # 0 < R < 2
EXPLANATION = """Reply in this parametrisation (every reply of this form meets P(0)=0, P(1)=1, Q(0)=1 and the symmetry of Q):
  P(x) = x + x(1-x)*S(x) with S(x) = S[0] + S[1] x + S[2] x^2 + ...
  Q(x) = 1 - (T[0] + T[1] + ...) + T[0](1-2x) + T[1](1-2x)^3 + T[2](1-2x)^5 + ...
  R is the shift, 0 < R < 2; every entry of S and T lies between -1 and 1.
Edit in small steps: change one entry by 0.01 to 0.1, or R by 0.01 to 0.1, and keep what raised kappa.
To raise the degree of P, append an entry to S (start it near 0); to raise the degree of Q, append an entry to T."""


def _power(p: tuple[Fraction, ...], n: int) -> tuple[Fraction, ...]:
    out: tuple[Fraction, ...] = (Fraction(1),)
    for _ in range(n):
        out = mul(out, p)
    return out


def expand(S: tuple[Fraction, ...], T: tuple[Fraction, ...]) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """Return (P, Q) coefficient tuples (lowest degree first, trimmed) of the parametrisation, exactly."""
    x_one_minus_x = (Fraction(0), Fraction(1), Fraction(-1))
    P = trim(add((Fraction(0), Fraction(1)), mul(x_one_minus_x, S))) or (Fraction(0),)
    Q: tuple[Fraction, ...] = (Fraction(1) - sum(T, Fraction(0)),)
    y = (Fraction(1), Fraction(-2))
    for k, t in enumerate(T):
        Q = add(Q, scale(_power(y, 2 * k + 1), t))
    return tuple(P), tuple(trim(Q)) or (Fraction(0),)


def divide_x_one_minus_x(r: tuple[Fraction, ...]) -> tuple[Fraction, ...] | None:
    """Return S with r = x(1 − x)·S exactly, or None when x(1 − x) does not divide r."""
    r = list(r) + [Fraction(0)] * 2
    if r[0] != 0:
        return None
    a = r[1:]  # r / x
    # a / (1 − x): s_k = a_k + s_{k−1}; the remainder (the sum of all a) must vanish
    s, acc = [], Fraction(0)
    for c in a:
        acc += c
        s.append(acc)
    if s[-1] != 0:
        return None
    return tuple(trim(s[:-1])) or (Fraction(0),)


def odd_part(Q: tuple[Fraction, ...]) -> tuple[Fraction, ...] | None:
    """Return T with Q = 1 − ΣT + Σ T_k (1 − 2x)^(2k+1), or None when Q(0) ≠ 1 or Q is not symmetric."""
    # Q(x) in y = 1 − 2x: x = (1 − y)/2
    half = (Fraction(1, 2), Fraction(-1, 2))
    in_y: tuple[Fraction, ...] = (Fraction(0),)
    for j, c in enumerate(Q):
        in_y = add(in_y, scale(_power(half, j), c))
    coeffs = list(in_y) + [Fraction(0)]
    if any(coeffs[j] != 0 for j in range(2, len(coeffs), 2)):
        return None
    T = tuple(coeffs[j] for j in range(1, len(coeffs), 2))
    T = tuple(trim(list(T))) or (Fraction(0),)
    if coeffs[0] != 1 - sum(T, Fraction(0)):
        return None
    return T


class LevinsonForm:
    """The S/T/R form for a contract's degree limit; `form()` returns the ProposalForm."""

    def __init__(self, max_degree: int, parse_payload: Any) -> None:
        self.s = DecimalList(ENTRY, 1, max(1, max_degree - 1))  # deg P = deg S + 2
        self.t = DecimalList(ENTRY, 1, max(1, (max_degree + 1) // 2))  # deg Q = 2·len(T) − 1
        self.parse_payload = parse_payload

    def schema(self) -> dict[str, Any]:
        return object_schema({"S": self.s.schema(), "T": self.t.schema(), "R": SHIFT.schema()})

    def to_payload(self, reply: Any) -> dict[str, Any]:
        """Return the full candidate {"P", "Q", "R"} (canonical, exact). Raises Malformed off the form."""
        exact_keys(reply, KEYS)
        S, T, R = self.s.parse("S", reply["S"]), self.t.parse("T", reply["T"]), SHIFT.parse("R", reply["R"])
        return self.payload_of(S, T, R)

    def payload_of(self, S: tuple[Fraction, ...], T: tuple[Fraction, ...], R: Fraction) -> dict[str, Any]:
        """Return the full candidate of exact S, T, R. Raises Malformed when it is over the contract's limits."""
        P, Q = expand(S, T)
        payload = {"P": [exact(c) for c in P], "Q": [exact(c) for c in Q], "R": exact(R)}
        try:
            self.parse_payload(payload)  # the target's own limits (the shipped contract never refuses here)
        except Malformed as e:
            raise Malformed(f"S/T: the expanded candidate is over the contract's limits: {e}") from None
        return payload

    def from_payload(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """Return the head in S/T/R form (decimals rounded to 6 places for display), None if it has none."""
        try:
            c = self.parse_payload(state)
        except Malformed:
            return None
        S = divide_x_one_minus_x(tuple(add(c.P, (Fraction(0), Fraction(-1)))))
        T = odd_part(c.Q)
        if S is None or T is None or not 0 < c.R < 2 or any(abs(v) >= 1 for v in (*S, *T)):
            return None  # outside the form's ranges: the prompt shows the full payload
        return {"S": [ENTRY.show(v) for v in S], "T": [ENTRY.show(v) for v in T], "R": SHIFT.show(c.R)}

    def form(self) -> ProposalForm:
        return ProposalForm("levinson-conrey S/T/R", self.schema(), self.to_payload, self.from_payload, EXPLANATION)
