"""The local proposer: a float optimiser over (P, Q, R) that emits exact candidates.

It climbs a ladder of degree pairs (dP, dQ) — (1,1), (2,1), (3,1), (3,3), (4,3), ... — and at each
rung optimises κ from the head (projected onto the rung's degrees). It proposes the rung's
optimum when it expects it to beat the head by more than the contract's minimum improvement,
and otherwise (or when the memory already holds that payload, or it came back refused) it
raises the degrees. At the top it tries a few seeded random restarts, then returns [].
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Protocol

import numpy as np

from mathloop.contract.model import Contract
from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey.config import Settings
from mathloop.targets.levinson_conrey.optimise import Evaluator
from mathloop.targets.levinson_conrey.rationalise import degrees, project, to_payload
from mathloop.targets.levinson_conrey.schema import Candidate, parse_payload, parse_rational


class _Target(Protocol):
    """What the proposer reads from the target (LevinsonConrey): its settings, contract and seed.

    A protocol rather than the class, so that this module never imports target.py (which imports it).
    """

    settings: Settings
    contract: Contract

    def seed_payload(self) -> Mapping[str, Any]: ...


RESTARTS = 4
MAX_ODD_Q = 11  # a symmetric Q has odd degree; 11 is the largest under the default limit 12


def max_odd_degree(max_degree: int) -> int:
    """Return the largest odd degree a symmetric Q may have under the limit (at least 1)."""
    return max(1, min(MAX_ODD_Q, max_degree if max_degree % 2 else max_degree - 1))


def ladder(max_degree: int) -> list[tuple[int, int]]:
    """Return the degree pairs the proposer climbs.

    >>> ladder(4)
    [(1, 1), (2, 1), (3, 1), (3, 3), (4, 3)]
    """
    out = []
    for dQ in range(1, max_odd_degree(max_degree) + 1, 2):
        for dP in range(dQ, dQ + 3):
            if dP <= max_degree and (dP, dQ) not in out:
                out.append((dP, dQ))
    return out


class LocalProposer(Proposer):
    """Deterministic (for a seed) optimiser-driven proposer; see the module docstring."""

    name = "local"

    def __init__(self, target: _Target, seed: int) -> None:
        self.target = target
        self.limits = target.settings.limits
        self.theta = float(target.settings.theta)
        self.rng = np.random.default_rng(seed)
        self.rungs = ladder(self.limits.max_degree)
        self.climb: list[tuple[int, int]] = []  # the ladder lifted to the head's degrees
        self.rung = 0
        self.restarts_left = RESTARTS
        self.head_key: str | None = None
        self.sent: dict[str, int] = {}  # payload sha -> rung it came from
        self.evaluators: dict[tuple[int, int], Evaluator] = {}

    def _evaluator(self, dP: int, dQ: int) -> Evaluator:
        if (dP, dQ) not in self.evaluators:
            self.evaluators[(dP, dQ)] = Evaluator(self.theta, dP, dQ)
        return self.evaluators[(dP, dQ)]

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return up to ctx.samples candidates expected to beat the head; [] when out of ideas."""
        if ctx.head is None:
            seed = dict(self.target.seed_payload())
            return [] if payload_sha(seed) in ctx.seen else [Proposal(seed, self.name, {"rung": "seed"})]
        head = parse_payload(ctx.head.state, self.limits)
        head_kappa = ctx.head.bounds.get("kappa", Fraction(-(10**6)))
        margin = 2 * self.target.contract.bound_spec("kappa").min_improvement
        if ctx.head.commit != self.head_key:  # a new head: climb again from its degrees
            self.head_key, self.rung, self.restarts_left = ctx.head.commit, 0, RESTARTS
            hP, hQ = degrees(head)
            lifted = [(max(dP, hP), max(dQ, hQ)) for dP, dQ in self.rungs]
            self.climb = [r for i, r in enumerate(lifted) if r not in lifted[:i]]
        self._skip_refused(ctx)
        out: list[Proposal] = []
        while len(out) < ctx.samples:
            found = self._next(head, head_kappa + margin, ctx.seen | {p for p in self.sent})
            if found is None:
                break
            payload, meta = found
            self.sent[payload_sha(payload)] = self.rung
            out.append(Proposal(payload, self.name, meta))
        return out

    def _skip_refused(self, ctx: Context) -> None:
        """Move past a rung whose proposal came back refused (its optimum is no use at this head)."""
        for r in ctx.rejections:
            rung = self.sent.get(payload_sha(r.payload))
            if rung is not None and rung >= self.rung:
                self.rung = rung + 1

    def _next(self, head: Candidate, threshold: Fraction, seen: set[str] | frozenset[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """Return the next (payload, meta) worth proposing, advancing rungs as they stall."""
        while self.rung < len(self.climb):
            dP, dQ = self.climb[self.rung]
            found = self._try(head, dP, dQ, project(head, dQ), float(head.R), threshold, seen, "ladder")
            if found is not None:
                return found
            self.rung += 1  # stalled at these degrees: raise them
        while self.restarts_left > 0:
            self.restarts_left -= 1
            dP, dQ = self.climb[-1]
            q0 = project(head, dQ) + self.rng.normal(0.0, 0.3, (dQ + 1) // 2)
            R0 = float(head.R) * float(np.exp(self.rng.normal(0.0, 0.2)))
            found = self._try(head, dP, dQ, q0, R0, threshold, seen, "restart")
            if found is not None:
                return found
        return None

    def _try(self, head, dP, dQ, q0, R0, threshold, seen, how) -> tuple[dict[str, Any], dict[str, Any]] | None:
        opt = self._evaluator(dP, dQ).optimise(q0, R0)
        if not np.isfinite(opt.kappa) or Fraction(opt.kappa) < threshold:
            return None
        payload = to_payload(opt, self.limits)
        if payload is None or payload_sha(payload) in seen or payload == head.payload():
            return None
        meta = {"how": how, "degrees": [dP, dQ], "expected_kappa": f"{opt.kappa:.12f}"}
        return payload, meta


def polish_payload(target: _Target, payload: Any, seed: int) -> dict[str, Any] | None:
    """Return the local optimum with the degrees, R and (symmetrised) Q of `payload` as the start.

    A payload that does not parse is used for its structure only (list lengths, R); None when
    even that is missing.
    """
    limits = target.settings.limits
    try:
        cand = parse_payload(payload, limits)
    except Malformed:
        cand = _structure(payload, limits)
        if cand is None:
            return None
    dP, dQ = degrees(cand)
    dP, dQ = min(dP, limits.max_degree), min(dQ, max_odd_degree(limits.max_degree))
    R0 = float(cand.R) if 0 < cand.R <= limits.r_max else 1.3
    opt = Evaluator(float(target.settings.theta), dP, dQ).optimise(project(cand, dQ), R0)
    return to_payload(opt, limits) if np.isfinite(opt.kappa) else None


def _structure(payload: Any, limits) -> Candidate | None:
    """Return a stand-in candidate with the payload's list lengths and (if readable) R."""
    if not isinstance(payload, dict) or not isinstance(payload.get("P"), list) or not isinstance(payload.get("Q"), list):
        return None
    nP = min(max(len(payload["P"]), 2), limits.max_degree + 1)
    nQ = min(max(len(payload["Q"]), 2), limits.max_degree + 1)
    try:
        R = parse_rational("R", payload.get("R"), limits)
    except Malformed:
        R = Fraction(13, 10)
    P = (Fraction(0),) * (nP - 1) + (Fraction(1),)
    Q = (Fraction(1),) + (Fraction(0),) * (nQ - 2) + (Fraction(1),)
    return Candidate(P, Q, R)
