"""Local proposer for the wide lineage (knot form): the dense LP, then mixing, all inside the session.

Per configuration (1/h, A, knot bands, masses at alpha = 1, 3/2, ..., A_w), in the order of WIDE_CONFIGS:

1. the cutting-plane LP (`lp_dense.solve`) at a tiny margin, its first rows warm-started from the previous
   configuration's active points and from the head's near-zero minima, both carried over in x = t/h (a new
   session resumes from the store's head, not from the seed);
2. the optimum rounded onto its knots (`proposer.rationalise_knots`); if its floats dip below `mixing.SAFETY`,
   it is mixed (`mixing.weight`, `mixing.mix`) with each strictly feasible partner on the same grid (the same
   rows re-solved at the partner margin; the head refined exactly onto the grid) and the mixtures are offered
   lowest predicted ceiling first, then more cautious ones (smaller lam), so that a refused candidate is
   followed by the next one in the next round. The checker decides each; no Arb pre-screen runs here.

While the checker works on a candidate (a child process, one core), the next configuration's LP runs in a
background thread of this process (numpy releases the GIL in BLAS; one BLAS thread), warm-started from this
configuration's active points: the two cores are both busy.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from mathloop.domain import fraction_str, payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import Malformed
from mathloop.targets.pair_correlation_rh_ceiling import lp_dense, mixing
from mathloop.targets.pair_correlation_rh_ceiling.knots import KnotDual
from mathloop.targets.pair_correlation_rh_ceiling.lp_warm import Graded
from mathloop.targets.pair_correlation_rh_ceiling.proposer import mass_points, rationalise_knots, refine
from mathloop.targets.pair_correlation_rh_ceiling.sample import local_minima, refine as zoom, sample_dual

PARTNER_MARGIN = 1e-4
HEAD_NEAR_ZERO = 1e-3  # the head's minima below this become warm rows of the next LP
CAUTION = (Fraction(1), Fraction(9, 10), Fraction(1, 2))  # offered lam, as shares of the floats' largest lam


@dataclass(frozen=True)
class WideConfig:
    """A configuration: 1/h = N, support A, knot bands, masses at alpha = 1, 3/2, ..., Aw; LP grid points per unit."""

    N: int
    A: int
    bands: Graded
    Aw: int
    grid_factor: int = 2

    def knots(self) -> tuple[int, ...]:
        return self.bands.knots(self.N, self.N * self.A)

    def at(self) -> tuple[int, ...]:
        return mass_points(self.N, self.Aw)

    def describe(self) -> str:
        return f"(1/{self.N}, {self.A}), {self.bands.describe()}, masses to {self.Aw}"


# Measured (LP ceilings at margin ~0): (1/20, 40) 0.67991, (1/40, 60) 0.67951, (1/80, 60) 0.679455; warm from the
# (1/80, 60) head's minima: (1/80, 80) 0.6794209 (12 rounds, 249 s idle), (1/80, 120) 0.6793992 (13 rounds in a session): the
# support A is worth more than a finer grid once h = 1/80 (the (1/160, 60) rounds did not get below 0.679455).
WIDE_CONFIGS: tuple[WideConfig, ...] = (
    WideConfig(10, 10, Graded(((10, 10),)), 10, 4),
    WideConfig(20, 40, Graded(((5, 20), (40, 5))), 40, 4),
    WideConfig(40, 60, Graded(((4, 40), (12, 20), (24, 8), (60, 4))), 60),
    WideConfig(80, 60, Graded(((2, 80), (4, 40), (12, 20), (24, 8), (60, 4))), 60),
    WideConfig(80, 80, Graded(((2, 80), (4, 40), (12, 20), (24, 8), (80, 4))), 80),
    WideConfig(80, 120, Graded(((2, 80), (4, 40), (12, 20), (24, 8), (120, 4))), 120),
)


def head_minima_x(head: KnotDual, below: float = HEAD_NEAR_ZERO) -> np.ndarray:
    """Return x = t/h of the head's refined local minima of f with f < below (its near-active points)."""
    d = mixing.as_float(head)
    s = sample_dual(d, 16 * d.top)
    t = zoom(d.f_at, s.t[local_minima(s.t, s.f, below)], float(s.t[1]), 0.0, 1.0)
    return t[d.f_at(t) < below] * head.N


def inside_head(cfg: WideConfig, head: KnotDual | None) -> bool:
    """Return True if the configuration's grid lies in the head's and it has no more knots (nothing to gain)."""
    if head is None:
        return False
    return head.N % cfg.N == 0 and cfg.A <= head.A and len(cfg.knots()) <= len(head.knots)


class WideProposer(Proposer):
    """The wide lineage's local proposer (module doc); deterministic for a given head, honours the deadline."""

    name = "local"

    def __init__(self, target: Any, seed: int, configs: tuple[WideConfig, ...] = WIDE_CONFIGS) -> None:
        lp_dense.single_thread_blas()  # before the session: a missing extra is the user's exit 2, not a crash mid-run
        self.target, self.seed, self.configs = target, seed, configs
        self._runs: dict[WideConfig, lp_dense.LpRun | None] = {}
        self._active: np.ndarray = np.zeros(0)  # x of the last LP's active points
        self._ahead: dict[WideConfig, threading.Thread] = {}
        self._lock = threading.Lock()
        self.timings: dict[str, float] = {}
        self.lp_ceilings: dict[str, float] = {}

    def stats(self) -> dict[str, Any]:
        return {"configurations": len(self._runs), "lp_ceilings": dict(self.lp_ceilings),
                "lp_seconds": {k: round(v, 1) for k, v in self.timings.items()}}

    def _fits(self, cfg: WideConfig) -> bool:
        lim = self.target.knot_limits
        return (cfg.N <= lim.max_inv_h and cfg.A <= lim.A_max and cfg.N * cfg.A + 1 <= lim.max_nodes
                and len(cfg.knots()) <= lim.max_knots and len(cfg.at()) <= lim.max_masses and cfg.N % 2 == 0)

    def _solve(self, cfg: WideConfig, warm_x: np.ndarray, deadline: float | None) -> None:
        started = time.monotonic()
        run = lp_dense.solve(cfg.N, cfg.N * cfg.A, knots=cfg.knots(), at=cfg.at(), grid_factor=cfg.grid_factor,
                             deadline=deadline, warm=warm_x / cfg.N, partner_margin=PARTNER_MARGIN)
        with self._lock:
            if run is None and deadline is not None and time.monotonic() >= deadline:
                return  # not cached: a later session with more time retries it
            self._runs[cfg] = run
            self.timings[cfg.describe()] = time.monotonic() - started
            if run is not None:
                self.lp_ceilings[cfg.describe()] = run.result.ceiling

    def _run(self, cfg: WideConfig, head: KnotDual | None, deadline: float | None) -> lp_dense.LpRun | None:
        thread = self._ahead.pop(cfg, None)
        if thread is not None:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        with self._lock:
            if cfg in self._runs:
                return self._runs[cfg]
        if thread is not None and thread.is_alive():
            return None  # the deadline came first
        warm = np.concatenate([self._active, head_minima_x(head) if head is not None else np.zeros(0)])
        self._solve(cfg, warm, deadline)
        return self._runs.get(cfg)

    def _start_ahead(self, after: WideConfig, run: lp_dense.LpRun, head: KnotDual | None, deadline: float | None) -> None:
        """Start the LP of the next configuration that fits, warm from this one's active points (module doc)."""
        later = [c for c in self.configs[self.configs.index(after) + 1:] if self._fits(c) and not inside_head(c, head)]
        if not later or later[0] in self._runs or later[0] in self._ahead:
            return
        warm = run.active * after.N
        thread = threading.Thread(target=self._solve, args=(later[0], warm, deadline), name="ceiling-lp-ahead",
                                  daemon=True)
        self._ahead[later[0]] = thread
        thread.start()

    def candidates(self, cfg: WideConfig, run: lp_dense.LpRun, head: KnotDual | None) -> list[tuple[KnotDual, str]]:
        """Return the configuration's candidates, best predicted ceiling first (module doc)."""
        knots = cfg.knots()
        c = rationalise_knots(run.result, knots)
        if mixing.float_minimum(c) >= mixing.SAFETY:
            return [(c, "LP optimum rounded onto its knots")]
        partners: list[tuple[Any, str]] = []
        if run.partner is not None:
            partners.append((rationalise_knots(run.partner, knots), f"the same rows at margin {PARTNER_MARGIN:g}"))
        if head is not None:
            try:
                partners.append((refine(head, cfg.N, Fraction(cfg.A), tuple(m.at for m in c.masses)),
                                 "the head refined onto the grid"))
            except ValueError:
                pass
        options = []
        cf = mixing.as_float(c)
        for p, name in partners:
            w = mixing.weight(c, p, c_float=cf)
            if w is not None:
                options.append((float(w.lam * c.ceiling + (1 - w.lam) * p.ceiling), w.lam, p, name))
        out = []
        for _, lam, p, name in sorted(options, key=lambda o: o[0]):
            for share in CAUTION:
                mixed = mixing.mix(c, p, lam * share)
                out.append((mixed, f"lam = {fraction_str(lam * share)} of the LP (margin {lp_dense.VIOLATION:g} "
                                   f"violations) + {name}"))
        return out

    def _admitted(self, payload: dict[str, Any]) -> bool:
        """Return whether the contract's parser admits the payload: a mixture with the refined head can carry more
        digits than `max_digits` allows, and offering it would only be refused as malformed."""
        try:
            self.target.parse(payload)
        except Malformed:
            return False
        return True

    def _head(self, ctx: Context) -> KnotDual | None:
        if ctx.head is None:
            return None
        try:
            return self.target.parse(dict(ctx.head.state))
        except Malformed:
            return None

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return the next candidate that could beat the head (module doc), or nothing when every configuration is spent."""
        spec = ctx.contract.bound_spec("ceiling")
        bound = ctx.head.bounds.get("ceiling") if ctx.head else None
        roof = None if bound is None else bound - spec.min_improvement
        head = self._head(ctx)
        for cfg in self.configs:
            if not self._fits(cfg) or inside_head(cfg, head):
                continue
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            run = self._run(cfg, head, ctx.deadline)
            if run is None:
                continue
            if len(run.active):
                self._active = run.active * cfg.N
            for cand, how in self.candidates(cfg, run, head):
                payload = cand.payload()
                if (roof is None or cand.ceiling <= roof) and payload_sha(payload) not in ctx.seen \
                        and self._admitted(payload):
                    self._start_ahead(cfg, run, cand, ctx.deadline)
                    meta = {"h": fraction_str(cand.h), "A": fraction_str(cand.A), "config": cfg.describe(),
                            "lp_ceiling": f"{run.result.ceiling:.10f}", "lp_rounds": run.result.rounds,
                            "how": how, "seed": self.seed}
                    return [Proposal(payload, self.name, meta)]
        return []
