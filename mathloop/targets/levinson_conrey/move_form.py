"""The Levinson–Conrey move form: a reply names ONE coordinate, a direction and a size from enums; nothing else.

The coordinates keep every side condition by construction and are chosen so that one move changes one feature:
    P(x) = x + x(1 − x)·(p0 + p1·x + p2·x² + …)                         (P(0) = 0, P(1) = 1)
    Q(x) = 1 − 2q·x + Σ_{k≥1} q_k·[(1 − 2x)^(2k+1) − (1 − 2x)]          (Q(0) = 1, Q(1) = 1 − 2q)
so a shape coordinate q_k changes Q only inside (0, 1) and Q(x) + Q(1 − x) = 2 − 2q stays constant. In the S/T/R
form's terms (`form.py`) S = p, T = [q − Σ q_k, q_1, q_2, …]; the seed P = x, Q = 1 − x is p = [0], q = 1/2.
The head is shown by coordinate name ({"R": "1.3", "p0": "0", "q": "0.5"} for the seed).
A reply {"coordinate": "q1", "direction": "-", "size": "large"} adds −1/10 to q1 of the head exactly as the prompt
shows it (every coordinate to 6 places); sizes are large 1/10, small 1/20, tiny 1/100. A coordinate past the head's
length appends it (the zeros between included): a higher degree, starting at ± the size. A coordinate leaving
[−0.999999, 0.999999] (R: [0.001, 1.999]) stops at that edge, so every reply maps exactly to an admissible candidate
within the shipped limits (`tests/unit/test_proposal_forms_moves.py`).

Why (issue 26, measured with Qwen2.5-Coder-1.5B): with S/T/R steps the model changed 2–5 numbers per reply at the
bound, nearly all positive; and in the S/T/R coordinates T[0] and T[1] are coupled through Q(1) (moving T[0] alone
by 0.1 from the seed gives κ 0.22), while one move of q1 by −0.1 gives κ 0.3999 (float estimate). With one move
per reply the shape of the reply is the only choice the model has to get right. Replies in the S/T/R form (S, T,
R), the edit form (dS, dT, dR) and the full payload (P, Q, R) are still read.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import payload_sha
from mathloop.targets.base import Malformed
from mathloop.targets.form import Decimal, ProposalForm, object_schema
from mathloop.targets.levinson_conrey.edit_form import KEYS as EDIT_KEYS, LevinsonEditForm
from mathloop.targets.levinson_conrey.form import KEYS as ABSOLUTE_KEYS, divide_x_one_minus_x, odd_part
from mathloop.targets.payload import exact_keys
from mathloop.targets.polynomial import add

KEYS = ("coordinate", "direction", "size")
# Largest first: measured, the 1.5B model took the first size of the enum nearly always ("tiny" 0.01 when it was
# listed first: 17 candidates from κ 0.3868 to 0.3934 by tiny steps, while one large move of q1 gives 0.3999).
SIZES = {"large": Fraction(1, 10), "small": Fraction(1, 20), "tiny": Fraction(1, 100)}
DIRECTIONS = {"+": 1, "-": -1}
EDGE = Fraction(999999, 10**6)
R_LOW, R_HIGH = Fraction(1, 1000), Fraction(1999, 1000)
SHOWN = Decimal(int_digits=1, places=6, max_lead=1)  # display of the head's coordinates (6 places)
EXPLANATION = """The form (every candidate of it meets P(0)=0, P(1)=1, Q(0)=1 and the symmetry of Q):
  P(x) = x + x(1-x)*(p0 + p1*x + p2*x^2 + ...)
  Q(x) = 1 - 2q*x + q1*((1-2x)^3 - (1-2x)) + q2*((1-2x)^5 - (1-2x)) + ...
  q sets Q(1) = 1 - 2q; q1, q2, ... change the shape of Q inside (0, 1) only; R is the shift.
Reply with ONE move: {"coordinate": ..., "direction": "+" or "-", "size": "large" | "small" | "tiny"}.
  The move adds (direction) 0.1 (large), 0.05 (small) or 0.01 (tiny) to that one coordinate; all others stay.
  A coordinate the head does not have yet (the next pN or qN) is added: it raises the degree of P or Q.
How to search: start with large moves; repeat a move that raised kappa; when a move lowered kappa, try the other
direction or another coordinate; use small or tiny moves only when large ones stop raising kappa; never send a move
already tried from the current head."""


def _clamp(v: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    return min(max(v, lo), hi)


def _named(p: list[Fraction], q: Fraction, qs: list[Fraction], R: Fraction) -> dict[str, Fraction]:
    """Return the coordinates by name: R, p0, p1, …, q, q1, …"""
    return {"R": R, **{f"p{k}": v for k, v in enumerate(p)}, "q": q, **{f"q{k + 1}": v for k, v in enumerate(qs)}}


def _trim(v: list[Fraction]) -> list[Fraction]:
    while v and v[-1] == 0:
        v.pop()
    return v


class LevinsonMoveForm:
    """One-coordinate moves of the head; `form()` returns the ProposalForm (edits=True, per-head schema)."""

    def __init__(self, max_degree: int, parse_payload: Any) -> None:
        self.edit = LevinsonEditForm(max_degree, parse_payload)
        self.absolute = self.edit.absolute
        self.max_p = self.absolute.s.max_items  # p0 .. p{max_p - 1}: deg P = len(p) + 1
        self.max_q = self.absolute.t.max_items - 1  # q1 .. q{max_q}: deg Q = 2·len + 1
        self.coordinates = ("R", *(f"p{k}" for k in range(self.max_p)), "q",
                            *(f"q{k}" for k in range(1, self.max_q + 1)))

    def _schema(self, coordinates: Any, directions: Any = tuple(DIRECTIONS), sizes: Any = tuple(SIZES)) -> dict[str, Any]:
        return object_schema({"coordinate": {"type": "string", "enum": list(coordinates)},
                              "direction": {"type": "string", "enum": list(directions)},
                              "size": {"type": "string", "enum": list(sizes)}})

    def schema(self) -> dict[str, Any]:
        """Return the reply schema over every coordinate the contract's degrees allow (what the parser accepts)."""
        return self._schema(self.coordinates)

    def coordinates_of(self, head: Mapping[str, Any] | None) -> tuple[str, ...]:
        """Return the head's coordinates plus the next new pN and qN (all of them when the head has no form)."""
        c = self.coords(head) if isinstance(head, Mapping) else None
        if c is None:
            return self.coordinates
        p, _, qs, _ = c
        return ("R", *(f"p{k}" for k in range(min(len(p) + 1, self.max_p))), "q",
                *(f"q{k}" for k in range(1, min(len(qs) + 1, self.max_q) + 1)))

    def head_note(self, head: Mapping[str, Any] | None) -> str:
        """Return the prompt's line naming the coordinates a move may name at this head (new ones marked)."""
        c = self.coords(head) if isinstance(head, Mapping) else None
        names = self.coordinates_of(head)
        if c is None:
            return "Coordinates: " + ", ".join(names)
        have = set(_named(*c))
        return ("Coordinates you may move: " + ", ".join(n if n in have else f"{n} (new: raises the degree)"
                                                          for n in names))

    def schema_for(self, head: Mapping[str, Any] | None, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Return the reply schema offered for this head: its coordinates and the next new ones, without the moves
        whose candidate is already stored (`seen`: payload sha256s), so that a reply cannot repeat one.

        Moves are grouped by the sizes still open per (direction, coordinates) into `anyOf` branches; with nothing
        tried it is the plain schema; when every move was tried, the plain schema too (the loop records repeats).
        """
        names = self.coordinates_of(head)
        if not seen or not isinstance(head, Mapping) or self.coords(head) is None:
            return self._schema(names)
        groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}  # (directions, sizes) -> coordinates
        for name in names:
            open_sizes = {d: tuple(size for size in SIZES if payload_sha(self.to_payload(
                {"coordinate": name, "direction": d, "size": size}, head)) not in seen) for d in DIRECTIONS}
            if open_sizes["+"] == open_sizes["-"]:
                keys = [(tuple(DIRECTIONS), open_sizes["+"])]
            else:
                keys = [((d,), sizes) for d, sizes in open_sizes.items()]
            for key in keys:
                if key[1]:
                    groups.setdefault(key, []).append(name)
        if not groups or list(groups) == [(tuple(DIRECTIONS), tuple(SIZES))]:
            return self._schema(names)  # nothing tried yet, or everything (the loop then records the repeat)
        branches = [self._schema(coords, directions, sizes) for (directions, sizes), coords in groups.items()]
        return branches[0] if len(branches) == 1 else {"anyOf": branches}

    def coords(self, state: Mapping[str, Any]) -> tuple[list[Fraction], Fraction, list[Fraction], Fraction] | None:
        """Return (p, q, [q1, …], R) of a state exactly as the prompt shows it (6 places), None without the form."""
        try:
            c = self.absolute.parse_payload(state)
        except Malformed:
            return None
        S = divide_x_one_minus_x(tuple(add(c.P, (Fraction(0), Fraction(-1)))))
        T = odd_part(c.Q)
        if S is None or T is None:
            return None
        p, qs, q = list(S), list(T[1:]), sum(T, Fraction(0))
        shown = [Fraction(round(v * 10**6), 10**6) for v in (*p, q, *qs, c.R)]  # as SHOWN.show writes it
        p, q, qs, R = shown[:len(p)], shown[len(p)], shown[len(p) + 1:-1], shown[-1]
        if any(abs(v) > EDGE for v in (*p, q, *qs)) or not R_LOW <= R <= R_HIGH:
            return None
        if len(_trim(list(p))) > self.max_p or len(_trim(list(qs))) > self.max_q:
            return None
        return p or [Fraction(0)], q, _trim(qs), R

    def from_payload(self, state: Mapping[str, Any]) -> dict[str, str] | None:
        """Return a state by coordinate name {"R", "p0", …, "q", "q1", …} (6 places; display), None without the form."""
        c = self.coords(state)
        return None if c is None else {name: SHOWN.show(v) for name, v in _named(*c).items()}

    def payload_of(self, p: list[Fraction], q: Fraction, qs: list[Fraction], R: Fraction) -> dict[str, Any]:
        """Return the full candidate of exact coordinates (S = p, T = [q − Σ q_k, q_1, …])."""
        T = (q - sum(qs, Fraction(0)), *qs)
        return self.absolute.payload_of(tuple(p) or (Fraction(0),), T, R)

    def to_payload(self, reply: Any, head: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return the full candidate {"P", "Q", "R"} for one move of `head` (exact). Raises Malformed off the form."""
        if isinstance(reply, dict) and set(reply) in (set(ABSOLUTE_KEYS), set(EDIT_KEYS)):
            return self.edit.to_payload(reply, head)  # the S/T/R and edit forms, as before moves existed
        exact_keys(reply, KEYS)
        name, direction, size = reply["coordinate"], reply["direction"], reply["size"]
        if not isinstance(name, str) or name not in self.coordinates:
            raise Malformed(f"coordinate: must be one of {', '.join(self.coordinates)}, got {str(name)[:24]!r}")
        if not isinstance(direction, str) or direction not in DIRECTIONS:
            raise Malformed(f"direction: must be \"+\" or \"-\", got {str(direction)[:24]!r}")
        if not isinstance(size, str) or size not in SIZES:
            raise Malformed(f"size: must be one of {', '.join(SIZES)}, got {str(size)[:24]!r}")
        c = self.coords(head) if isinstance(head, Mapping) else None
        if c is None:
            raise Malformed("coordinate: the head has no form to move in; reply with the full P, Q, R instead")
        p, q, qs, R = c
        step = DIRECTIONS[direction] * SIZES[size]
        if name == "R":
            R = _clamp(R + step, R_LOW, R_HIGH)
        elif name == "q":
            q = _clamp(q + step, -EDGE, EDGE)
        else:
            v, k = (p, int(name[1:])) if name[0] == "p" else (qs, int(name[1:]) - 1)
            v += [Fraction(0)] * (k + 1 - len(v))
            v[k] = _clamp(v[k] + step, -EDGE, EDGE)
        return self.payload_of(p, q, _trim(qs), R)

    def as_edit(self, payload: Mapping[str, Any], head: Mapping[str, Any]) -> dict[str, str] | None:
        """Return the one move of `head` that gives `payload`, None when no single move does."""
        want, have = self.coords(payload), self.coords(head)
        if want is None or have is None:
            return None
        w, h = _named(*want), _named(*have)
        changed = [n for n in sorted(set(w) | set(h)) if w.get(n, Fraction(0)) != h.get(n, Fraction(0))]
        if len(changed) != 1 or changed[0] not in self.coordinates_of(head):
            return None
        for direction in DIRECTIONS:
            for size in SIZES:
                move = {"coordinate": changed[0], "direction": direction, "size": size}
                if self.coords(self.to_payload(move, head)) == want:
                    return move
        return None

    def form(self) -> ProposalForm:
        return ProposalForm("levinson-conrey moves", self.schema(), self.to_payload, self.from_payload, EXPLANATION,
                            edits=True, as_edit=self.as_edit, schema_for=self.schema_for,
                            head_note=self.head_note)
