"""The local proposer: climbs structures (piece degrees, deg Q) and R with the exact quadratic form.

From the head (at first the contract's seed, the K = 1 optimum with P₂ = P₃ = 0) it builds, for one
structure and one R, the quadratic form of c in the P and Q coefficients (quadform.py; one build is
~15 s at degrees 5/3/3 and deg Q 5), alternates the two linear solves, and proposes the rationalised
optimum when it expects it to beat the head. R moves by a step that halves when neither neighbour
improves; then the next, larger structure. PRZZ's polynomials are not used: the pieces P₂, P₃ start
at 0 and their shape comes from the solve. Every build checks the session deadline between pairs.
"""

from __future__ import annotations

import time
from math import comb
from fractions import Fraction
from typing import Any, Protocol

import mpmath

from mathloop.contract.model import Contract
from mathloop.domain import fraction_str, payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.feng_przz.config import Settings
from mathloop.targets.feng_przz.quadform import QuadForm, WORK_DPS
from mathloop.targets.feng_przz.schema import Candidate, parse_payload
from mathloop.targets.seed_proposal import seed_proposals

COEFF_DEN = 10**12  # coefficients rounded to 10^-12
R_DEN = 10**4       # R on a 10^-4 grid (the exact tensor build is cheaper with small denominators)
R_STEP, R_STEP_MIN = Fraction(1, 100), Fraction(1, 1000)
# (degree of P1, degree of every other piece, deg Q): PRZZ's structure first, then larger ones
STRUCTURES = ((5, 3, 5), (6, 4, 5), (7, 5, 7), (8, 6, 7))


class _Target(Protocol):
    settings: Settings
    contract: Contract

    def seed_payload(self) -> Any: ...


class _Deadline(Exception):
    pass


def _round(x, den: int = COEFF_DEN) -> Fraction:
    return Fraction(int(mpmath.nint(x * den)), den)


def rationalise(qf: QuadForm, v, R: Fraction) -> dict[str, Any]:
    """Return the exact payload: P₁(0) = 0, P₁(1) = 1, P_i(0) = 0, Q(0) = 1 and Q symmetric by construction."""
    polys = qf.polynomials(v)
    out: dict[str, Any] = {}
    for i, p in enumerate(polys):
        c = [Fraction(0)] + [_round(x) for x in p[1:]]
        if i == 0:
            c[1] = 1 - sum(c[2:], Fraction(0))
        out[f"P{i + 1}"] = [fraction_str(x) for x in c]
    q = [_round(x) for x in qf.last_q[1:]]
    Q = [Fraction(0)] * (qf.dQ + 1)
    for k, qk in zip(range(1, qf.dQ + 1, 2), q):
        for i in range(k + 1):
            Q[i] += qk * comb(k, i) * (-2) ** i
    Q[0] += 1 - sum(q, Fraction(0))
    out["Q"] = [fraction_str(x) for x in Q]
    out["R"] = fraction_str(R)
    return out


class LocalProposer(Proposer):
    """Deterministic optimiser-driven proposer; see the module docstring."""

    name = "local"

    def __init__(self, target: _Target, seed: int) -> None:
        self.target = target
        self.settings = target.settings
        self.head_key: str | None = None
        self.rung = 0
        self.evals: dict[Fraction, float] = {}
        self.step = R_STEP
        self.Q0: list[Fraction] = []
        self.mine: set[str] = set()  # payload shas this proposer made

    def _structure(self, head: Candidate) -> tuple[tuple[int, ...], int]:
        d1, d, dQ = STRUCTURES[self.rung]
        lim = self.settings.limits.max_degree
        hd = [len(p) - 1 for p in head.P]
        degs = [min(lim, max(d1, hd[0]))] + [min(lim, max(d, h)) for h in hd[1:]]
        return tuple(degs), min(lim if lim % 2 else lim - 1, max(dQ, len(head.Q) - 1))

    def _next_r(self) -> Fraction | None:
        while self.step >= R_STEP_MIN:
            best = max(self.evals, key=lambda r: self.evals[r])
            for r in (best + self.step, best - self.step):
                if r > 0 and r <= self.settings.limits.r_max and r not in self.evals:
                    return r
            self.step /= 2
            self.step = Fraction(round(self.step * R_DEN), R_DEN)
        return None

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one candidate expected to beat the head, or [] when out of ideas or time."""
        if ctx.head is None:
            return seed_proposals(self.target, self.name, ctx, {"how": "seed"})
        head = parse_payload(ctx.head.state, self.settings.limits, len(self.settings.pieces))
        spec = self.target.contract.bound_spec("kappa")
        threshold = ctx.head.bounds.get("kappa", Fraction(-1)) + 2 * spec.min_improvement
        if ctx.head.commit != self.head_key and payload_sha(dict(ctx.head.state)) not in self.mine:
            # a head this proposer did not make: start the climb again from it
            self.rung, self.step, self.Q0, self.evals = 0, R_STEP, list(head.Q), {}
        self.head_key = ctx.head.commit
        while self.rung < len(STRUCTURES):
            degs, dQ = self._structure(head)
            R = Fraction(round(head.R * R_DEN), R_DEN) if not self.evals else self._next_r()
            if R is None:
                self.rung, self.step, self.evals = self.rung + 1, R_STEP, {}
                continue
            try:
                kappa, payload = self._evaluate(degs, dQ, R, ctx.deadline)
            except _Deadline:
                return []
            self.evals[R] = kappa
            if spec.class_maximum is not None and Fraction(kappa) > spec.class_maximum:
                continue  # above the contract's cap (e.g. the hold at PRZZ's record): it would be refused, not checked
            if Fraction(kappa) >= threshold and payload_sha(payload) not in ctx.seen:
                self.mine.add(payload_sha(payload))
                meta = {"how": "quadratic form", "degrees": list(degs), "deg_Q": dQ,
                        "expected_kappa": f"{kappa:.12f}"}
                return [Proposal(payload, self.name, meta)]
        return []

    def _evaluate(self, degs, dQ: int, R: Fraction, deadline: float | None) -> tuple[float, dict[str, Any]]:
        def check() -> None:
            if deadline is not None and time.monotonic() > deadline:
                raise _Deadline

        qf = QuadForm(self.settings.pieces, degs, dQ, R, self.settings.theta, deadline_check=check)
        with mpmath.workdps(WORK_DPS):
            v, Q, c = qf.optimise([mpmath.mpf(x.numerator) / x.denominator for x in self.Q0])
            if not c > 0:
                return float("-inf"), {}
            kappa = float(1 - mpmath.log(c) / (mpmath.mpf(R.numerator) / R.denominator))
            payload = rationalise(qf, v, R)
        self.Q0 = [Fraction(x) for x in payload["Q"]]
        return kappa, payload
