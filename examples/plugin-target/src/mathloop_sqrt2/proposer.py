"""The local proposer: convergents p/q of sqrt(2) from below (p^2 - 2 q^2 = -1), each closer than the last."""

from __future__ import annotations

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer


class PellProposer(Proposer):
    """Proposes 7/5, 41/29, 239/169, ... (every other convergent of sqrt(2)), then nothing."""

    name = "local"

    def __init__(self, max_digits: int = 60) -> None:
        self.p, self.q, self.max_digits = 1, 1, max_digits

    def propose(self, ctx: Context) -> list[Proposal]:
        out = []
        while len(out) < ctx.samples and len(str(self.q)) < self.max_digits:
            self.p, self.q = 3 * self.p + 4 * self.q, 2 * self.p + 3 * self.q  # next solution of p^2 - 2q^2 = -1
            payload = {"x": f"{self.p}/{self.q}"}
            if payload_sha(payload) not in ctx.seen:
                out.append(Proposal(payload, self.name, {"convergent": f"{self.p}/{self.q}"}))
        return out
