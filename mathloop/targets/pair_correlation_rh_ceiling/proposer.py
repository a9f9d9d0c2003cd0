"""Local proposer for `pair-correlation-rh-ceiling`: the LP dual, rationalised and backed off until certified.

Configurations (1/h, A, A_w, tail) are tried in the order of CONFIGS, each with point masses at alpha = 1, 3/2,
2, ..., A_w (the half-integers, where the LP with a mass at every grid point puts its weight; their
sum is about 2-3, far above the 1/2 a single mass allows, and a(t) >= 0 is certified instead), or with
A_w = 0 one mass at alpha = 1 (weight just below 1/2). Masses beyond A carry almost no weight in
the LP (measured at (1/10, 20): A_w = 40 gives 0.6811548, A_w = 20 gives 0.6811587), so the
1/h = 20 configurations take A_w = A, which halves the highest frequency and so the LP's rows and
the Arb cells. A configuration may give the LP a coarse tail (alpha_c, n): nodes beyond alpha_c are
the linear interpolation of knots 1/n apart (lp.solve's `coarse`), which cuts (1/20, 40) from 779
node columns to 219 and makes its cutting-plane rounds converge (they stall with every node free);
the candidate still lists every node of the fine grid and the checker is unchanged. A configuration may
instead give graded bands (lp_warm.Graded): the warm-started highspy LP with knots 1/n apart up to each
band's end, a non-uniform grid ((1/40, 40): 349 columns instead of 1559). For each, the LP optimum
(lp.solve with a small margin and a bounded number of cutting-plane rounds) is rounded to multiples
of 10^-12 (L rounded down, nodes on [0, 1] then exactly j h - L, the other nodes clamped to >= -L,
the weight rounded down) and pre-screened with the checker's own exact conditions and Arb
certificate. If it fails, L is backed off: duals form a convex set, so the proposer mixes it with a
strictly feasible dual of the same grid with the largest weight that the rigorous pre-screen
accepts: first a certified dual refined exactly onto the grid (the head's or the contract's seed,
whichever mixture the floats predict lower; no second LP), else the LP with a large margin. A configuration that does not beat the head by the minimum improvement is
skipped, so the proposer moves to finer grids and longer supports when it stalls. The checker
certifies whatever is proposed; HiGHS is deterministic, so the seed is only recorded.
"""

from __future__ import annotations

import math
import threading
import time
from fractions import Fraction
from typing import Any

import numpy as np

from mathloop.domain import fraction_str, payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.base import Malformed
from mathloop.targets.pair_correlation_rh_ceiling import conditions, lp, lp_warm
from mathloop.targets.pair_correlation_rh_ceiling.arb_positivity import certify_dual_positive, certify_mass_floor
from mathloop.targets.pair_correlation_rh_ceiling.candidate import DualCandidate, Mass
from mathloop.targets.pair_correlation_rh_ceiling.knots import KnotDual, expand

# (alpha_c, n): in the scipy LP, nodes beyond alpha_c interpolate knots spaced 1/n; or Graded bands: the
# warm-started highspy LP (lp_warm) with knots 1/n apart up to each band's end (a non-uniform grid in the LP)
Tail = tuple[int, int] | lp_warm.Graded | None
Config = tuple[int, int, int, Tail]  # (1/h, A, A_w, tail)
# (1/20, 40) with a coarse tail beyond 5 jumps ahead of the slower 1/h = 10 steps: its LP converges
# in ~10 rounds (~75 s) and certifies below 0.6800 as rationalised; the rest are fallbacks
# (1/40, 40) on a graded grid (every node up to 3, knots 1/10 apart up to 10, then 1/4) follows it with the
# warm-started LP: back-off towards the (1/20, 40) head refined onto its grid
FINE_40 = lp_warm.Graded(((3, 40), (10, 10), (40, 4)))
CONFIGS: tuple[Config, ...] = ((10, 3, 6, None), (10, 6, 12, None), (10, 10, 20, None), (20, 40, 40, (5, 5)),
                               (40, 40, 40, FINE_40),
                               (10, 16, 32, None), (10, 20, 40, None), (20, 20, 20, (5, 5)), (20, 30, 30, (10, 5)))
GRID_FACTOR = 4  # initial LP grid points per unit of the highest frequency; cutting planes add the rest
TIGHT_MARGIN, TIGHT_ROUNDS = 1e-5, 40
INNER_MARGINS, INNER_ROUNDS = (2e-2, 1e-1), 8
DENOMINATOR = 10**12


def rationalise(res: lp.DualLp, denominator: int = DENOMINATOR) -> DualCandidate:
    """Return the exact candidate nearest the LP's floats that satisfies (i), (ii) and the mass rules exactly."""
    h = Fraction(1, res.N)
    L = Fraction(math.floor(res.L * denominator), denominator)
    nodes = [j * h - L for j in range(res.N + 1)]
    nodes += [max(Fraction(round(float(v) * denominator), denominator), -L) for v in res.nodes[res.N + 1:-1]]
    nodes.append(Fraction(0))
    ws = [Fraction(math.floor(max(float(w), 0.0) * denominator), denominator) for w in res.weights]
    if len(ws) == 1 and ws[0] >= Fraction(1, 2):  # a single mass stays light (w < 1/2: a > 0 exactly)
        ws[0] = Fraction(1, 2) - Fraction(1, denominator)
    masses = tuple(Mass(b * h, w) for b, w in zip(res.at, ws))
    if len(masses) == 1 and ws[0] == 0:
        masses = ()
    return DualCandidate(h, Fraction(res.M, res.N), L, tuple(nodes), masses)


def rationalise_knots(res: lp.DualLp, knots: tuple[int, ...], denominator: int = DENOMINATOR) -> KnotDual:
    """Return the knot-form candidate nearest a knot LP's floats (the wide lineage): L rounded down, each knot's
    value rounded and clamped to >= -L, the weights rounded down; the nodes between knots are exact interpolation,
    so the second differences vanish off the knots (what the kink checker's cost follows)."""
    h = Fraction(1, res.N)
    L = Fraction(math.floor(res.L * denominator), denominator)
    kt = tuple((j, max(Fraction(round(float(res.nodes[j]) * denominator), denominator), -L)) for j in knots)
    ws = [Fraction(math.floor(max(float(w), 0.0) * denominator), denominator) for w in res.weights]
    masses = tuple(Mass(b * h, w) for b, w in zip(res.at, ws))
    return KnotDual(h, Fraction(res.M, res.N), L, expand(res.N, res.M, L, kt), masses, kt)


def as_knots(c: DualCandidate) -> KnotDual:
    """Return the same dual in knot form: a knot wherever the nodes bend beyond alpha = 1 (exact, same k)."""
    N, M = c.N, len(c.nodes) - 1
    kt = tuple((j, c.nodes[j]) for j in range(N + 1, M) if c.nodes[j + 1] - 2 * c.nodes[j] + c.nodes[j - 1])
    return KnotDual(c.h, c.A, c.L, c.nodes, c.masses, kt)


def convex_combination(a: DualCandidate, b: DualCandidate, lam: Fraction) -> DualCandidate:
    """Return lam a + (1 - lam) b for duals on the same grid with masses at the same points.

    The duals form a convex set (conditions (i)-(iii) are preserved, L mixes linearly), so mixing a
    slightly infeasible dual with a strictly feasible one backs L off until (iii) holds.
    """
    if (a.h, a.A) != (b.h, b.A) or [m.at for m in a.masses] != [m.at for m in b.masses]:
        raise ValueError("convex combination needs the same h, A and mass positions")
    mix = lambda x, y: lam * x + (1 - lam) * y  # noqa: E731
    return DualCandidate(a.h, a.A, mix(a.L, b.L), tuple(mix(x, y) for x, y in zip(a.nodes, b.nodes)),
                         tuple(Mass(m.at, mix(m.weight, n.weight)) for m, n in zip(a.masses, b.masses)))


def lp_tail(N: int, A: int, tail: Tail) -> tuple[int, int] | None:
    """Return the LP's coarse tail (c0, step) in grid units for h = 1/N, or None (every node free)."""
    if tail is None or isinstance(tail, lp_warm.Graded):
        return None
    alpha_c, per_unit = tail
    if N % per_unit or not 1 <= alpha_c < A:
        raise ValueError("a coarse tail needs 1/h a multiple of its knots per unit and 1 <= alpha_c < A")
    return alpha_c * N, N // per_unit


def within(deadline: float | None, fn, *args) -> tuple[bool, Any]:
    """Return (True, fn(*args)) if it returns before `deadline` (time.monotonic), else (False, None).

    Without a deadline fn runs inline. With one it runs in a daemon thread that is abandoned at the
    deadline: one Arb pre-screen of a fine grid (~50 s) cannot be interrupted, and `--time-limit` is a
    promise. An abandoned pre-screen only computes (it never writes the store) and dies with the process.
    Only pure Python/flint work goes here: HiGHS keeps C++ worker threads, which abort the interpreter at
    exit when a solve is abandoned in another thread, so the LP runs inline under its own time_limit.
    """
    if deadline is None:
        return True, fn(*args)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # re-raised in the caller's thread below
            box["error"] = e

    worker = threading.Thread(target=work, name="ceiling-proposer", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        return False, None
    if "error" in box:
        raise box["error"]
    return True, box.get("value")


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def mass_points(N: int, Aw: int) -> tuple[int, ...]:
    """Return the grid indices of masses at alpha = 1, 3/2, ..., Aw (h = 1/N, N even); (N,) alone if Aw = 0."""
    return lp.mass_points(N, N // 2, N * Aw) if Aw else (N,)


def prescreen(c: DualCandidate, max_cells: int) -> bool:
    """Return whether the checker's exact conditions and Arb certificates would accept the candidate."""
    if not all(ok for ok, _ in (conditions.on_the_line(c), conditions.above_floor(c), conditions.supported(c),
                                conditions.masses_ok(c))):
        return False
    if not conditions.light_masses(c) and certify_mass_floor(
            c, Fraction(conditions.period(c), 2), max_cells=max_cells).status != "positive":
        return False
    return certify_dual_positive(c, conditions.reduced_range(c).end, max_cells=max_cells).status == "positive"


def back_off(c: DualCandidate, interior: DualCandidate, max_cells: int, steps: int = 12) -> tuple[Fraction, DualCandidate] | None:
    """Return (lam, lam c + (1 - lam) interior) for the largest lam = 2^-i (i < steps) that prescreens."""
    for i in range(steps):
        lam = Fraction(1, 2**i)
        mixed = convex_combination(c, interior, lam)
        if prescreen(mixed, max_cells):
            return lam, mixed
    return None


def refine(c: DualCandidate, N: int, A: Fraction, at: tuple[Fraction, ...]) -> DualCandidate:
    """Return the same dual k as c written on the finer grid h = 1/N, support [-A, A], masses at `at`.

    A function piecewise linear on c's grid is piecewise linear on any grid it divides (nodes
    interpolated exactly), zero beyond c.A, and a mass that c lacks has weight 0: (i)-(iii) and L are
    unchanged, so a certified coarse dual (the seed) is a strictly feasible partner for back-off.
    """
    step = c.h * N
    if step.denominator != 1 or A < c.A or not {m.at for m in c.masses} <= set(at):
        raise ValueError("refine needs 1/h a multiple of c's, A >= c.A and c's masses among `at`")
    m, last = int(step), len(c.nodes) - 1
    nodes = []
    for j in range(int(A * N) + 1):
        q, r = divmod(j, m)
        nodes.append(c.nodes[q] + (c.nodes[q + 1] - c.nodes[q]) * Fraction(r, m) if q < last else
                     (c.nodes[last] if q == last and r == 0 else Fraction(0)))
    w = {x.at: x.weight for x in c.masses}
    return DualCandidate(Fraction(1, N), A, c.L, tuple(nodes), tuple(Mass(a, w.get(a, Fraction(0))) for a in at))


def _float_parts(c: DualCandidate) -> tuple[float, np.ndarray, np.ndarray, tuple[int, ...]]:
    return (float(c.h), np.array([float(v) for v in c.nodes]), np.array([float(x.weight) for x in c.masses]),
            tuple(int(x.at / c.h) for x in c.masses))


def mixing_weights(c: DualCandidate, inner: DualCandidate) -> list[Fraction]:
    """Return the lam to try for lam c + (1 - lam) inner, largest first, from floats of both.

    f (and a) are affine in the dual, so the mixture is >= 0 at t for lam <= f_in(t)/(f_in(t) - f_c(t))
    wherever f_c(t) < 0: the smallest such ratio over a fine sample, then over the refined local
    minima of the mixture at that lam, a few times (as far as floats see; the checker decides).
    Pointwise, since inner is rarely at its minimum where c dips.
    """
    (h, k, w, at), (_, ki, wi, ati) = _float_parts(c), _float_parts(inner)
    top = max([len(k)] + list(at))
    lam0 = 1.0
    for fc, fi, end in ((lambda t: lp.f_values(t, h, k, w, at), lambda t: lp.f_values(t, h, ki, wi, ati), 1.0),
                        (lambda t: lp.a_values(t, w, at), lambda t: lp.a_values(t, wi, ati), 0.5)):
        t = np.linspace(0.0, end, 16 * top + 1)
        for _ in range(4):
            vc, vi = fc(t), fi(t)
            bad = vc < 0
            if bad.any():
                lam0 = min(lam0, float(np.min(vi[bad] / (vi[bad] - vc[bad]))))
            lam = lam0 * (1 - 1e-9)
            t = lp.local_minima(lambda x: lam * fc(x) + (1 - lam) * fi(x), 0.0, end, 16 * top + 1, 0.0)
            if len(t) == 0:
                break
    return [Fraction(lam0 * (1 - s)).limit_denominator(10**6) for s in (1e-3, 1e-2, 0.1, 0.5, 0.9)]  # short: digit limit


def _size(state: Any) -> int:
    """Return A/h of a head state (0 if unreadable): the proposer only tries larger grids."""
    try:
        return int(Fraction(state["A"]) / Fraction(state["h"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return 0


class CeilingProposer(Proposer):
    """Deterministic LP proposer (see module doc); honours the session deadline."""

    name = "local"

    def __init__(self, target: Any, seed: int, configs: tuple[Config, ...] = CONFIGS) -> None:
        self.target = target
        self.seed = seed
        self.configs = configs
        if any(isinstance(c[3], lp_warm.Graded) for c in configs):
            lp_warm.require_highspy()  # before the session starts: a missing extra is the user's exit 2, not a crash mid-run
        self._cache: dict[Config, tuple[DualCandidate, float, str] | None] = {}
        self.lp_ceilings: dict[Config, float] = {}  # the tight LP's float ceiling (benchmarks)

    def stats(self) -> dict[str, Any]:
        """Return the configurations tried and how many gave a certified-looking dual."""
        return {"configurations": len(self._cache), "certified": sum(v is not None for v in self._cache.values())}

    def _fits(self, N: int, A: int, Aw: int) -> bool:
        lim = self.target.limits
        return (N <= lim.max_inv_h and A <= lim.A_max and N * A + 1 <= lim.max_nodes and N % 2 == 0
                and len(mass_points(N, Aw)) <= lim.max_masses and Aw <= 4 * lim.A_max)

    def _solve(self, N: int, A: int, Aw: int, margin: float, rounds: int, deadline: float | None,
               tail: Tail = None) -> DualCandidate | None:
        if isinstance(tail, lp_warm.Graded):
            res = lp_warm.solve(N, N * A, knots=tail.knots(N, N * A), at=mass_points(N, Aw), margin=margin,
                                max_rounds=rounds, deadline=deadline, grid_factor=GRID_FACTOR, method="ipm")
        else:
            res = lp.solve(N, N * A, margin=margin, max_rounds=rounds, deadline=deadline, at=mass_points(N, Aw),
                           grid_factor=GRID_FACTOR, coarse=lp_tail(N, A, tail))
        if res is not None and margin == TIGHT_MARGIN:
            self.lp_ceilings[(N, A, Aw, tail)] = res.ceiling
        return None if res is None else rationalise(res)

    def _inners(self, c: DualCandidate, head: Any) -> list[tuple[DualCandidate, str]]:
        """Return certified duals refined onto c's grid and masses (the head's state, then the seed), where they refine."""
        out = []
        for src, name in ((head, "the head"), (dict(self.target.contract.seed), "the seed")):
            try:
                out.append((refine(self.target.parse(src), c.N, c.A, tuple(m.at for m in c.masses)), name))
            except (ValueError, TypeError, KeyError, AttributeError, Malformed):
                continue
        return out

    @staticmethod
    def _screen(c: DualCandidate, cells: int, deadline: float | None) -> bool:
        """Return whether c prescreens; False if the session's deadline comes first (the Arb cells run on)."""
        done, ok = within(deadline, prescreen, c, cells)
        return done and bool(ok)

    def _mix(self, tight: DualCandidate, inner: DualCandidate, cells: int,
             weights: list[Fraction] | None = None, deadline: float | None = None) -> tuple[DualCandidate, Fraction] | None:
        for lam in mixing_weights(tight, inner) if weights is None else weights:
            if _past(deadline):  # an abandoned search (see `within`) stops at its next step
                return None
            mixed = convex_combination(tight, inner, lam)
            if self._screen(mixed, cells, deadline):
                return mixed, lam
        return None

    def _search(self, N: int, A: int, Aw: int, deadline: float | None, head: Any = None,
                tail: Tail = None) -> tuple[DualCandidate, str] | None:
        """Return (candidate that prescreens, how it was obtained) for a configuration, or None."""
        cells = self.target.max_cells
        tight = self._solve(N, A, Aw, TIGHT_MARGIN, TIGHT_ROUNDS, deadline, tail)
        if tight is None or _past(deadline):
            return None
        if self._screen(tight, cells, deadline):
            return tight, f"LP margin {TIGHT_MARGIN:g}"
        # certified duals refined onto the grid: back off towards the one whose mixture the floats
        # predict lowest (the head: a small step; the seed: a large margin), no second LP
        options = []
        for inner, name in self._inners(tight, head):
            weights = mixing_weights(tight, inner)
            lam = float(weights[0])
            options.append((lam * float(tight.ceiling) + (1 - lam) * float(inner.ceiling), inner, name, weights))
        for _, inner, name, weights in sorted(options, key=lambda o: o[0]):
            if (got := self._mix(tight, inner, cells, weights, deadline)) is not None:
                return got[0], f"lam = {got[1]} of the LP (margin {TIGHT_MARGIN:g}) + {name} refined onto its grid"
        for margin in INNER_MARGINS:  # a strictly feasible dual on the same grid, then back L off towards it
            inner = self._solve(N, A, Aw, margin, INNER_ROUNDS, deadline, tail)
            if inner is None or _past(deadline):
                return None
            if not self._screen(inner, cells, deadline):
                continue
            if (got := self._mix(tight, inner, cells, deadline=deadline)) is not None:
                return got[0], f"lam = {got[1]} of the LP (margin {TIGHT_MARGIN:g}) + the LP with margin {margin:g}"
            return inner, f"LP margin {margin:g}"
        return None

    def _candidate(self, N: int, A: int, Aw: int, deadline: float | None, head: Any = None,
                   tail: Tail = None) -> tuple[DualCandidate, float, str] | None:
        key = (N, A, Aw, tail)
        if key not in self._cache:
            got = self._search(N, A, Aw, deadline, head, tail)
            if got is None and deadline is not None and time.monotonic() >= deadline:
                return None  # not cached: a later session with more time retries it
            self._cache[key] = None if got is None else (got[0], float(got[0].ceiling), got[1])
        return self._cache[key]

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return the smallest configuration whose certified-looking ceiling beats the head."""
        spec = ctx.contract.bound_spec("ceiling")
        head = ctx.head.bounds.get("ceiling") if ctx.head else None
        roof = None if head is None else head - spec.min_improvement
        size = _size(ctx.head.state) if ctx.head else 0
        for N, A, Aw, tail in self.configs:
            if not self._fits(N, A, Aw) or N * A <= size:  # raise 1/h and A beyond the head's grid
                continue
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            got = self._candidate(N, A, Aw, ctx.deadline, ctx.head.state if ctx.head else None, tail)
            if got is None:
                continue
            c, _, how = got
            payload = as_knots(c).payload() if self.target.knot_form else c.payload()
            if (roof is None or c.ceiling <= roof) and payload_sha(payload) not in ctx.seen:
                meta = {"h": fraction_str(c.h), "A": fraction_str(c.A), "masses_up_to": Aw,
                        "lp_tail": None if tail is None else tail.describe() if isinstance(tail, lp_warm.Graded)
                        else list(tail), "how": how, "seed": self.seed}
                return [Proposal(payload, self.name, meta)]
        return []
