"""Benchmark of `pair-correlation-rh-ceiling`: the bracket width over time and over (h, A, masses).

    python tests/benchmarks/bench_ceiling.py session [time_limit_s]    # a real session in a temp store
    python tests/benchmarks/bench_ceiling.py configs [1/h,A[,nomass|1|A_w[,alpha_c:n|gE:n/E:n/...]]] ...]
    python tests/benchmarks/bench_ceiling.py wide 1/h,A,E:n/E:n/... OUT.json [rounds]   # the wide lineage: LP + check
    python tests/benchmarks/bench_ceiling.py wide-check OUT.json                         # the wide checker alone

`session` runs the local proposer through the loop (checks in a child process, real SQLite store)
and prints, at every commit, the elapsed time, the certified ceiling and the bracket width against
PRIMAL (pair-correlation-rh's best certified value, 0.6792816128…; h = 1/60, A = 5). `configs` runs
the LP and the proposer's search (rationalisation, back-off, rigorous pre-screen) per configuration
and prints LP and certified ceilings, the width and the times. Run it under `nice -n 10`; nothing here is part of the test tier.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

from mathloop.targets.pair_correlation_rh_ceiling.lp_warm import Graded

PRIMAL = Fraction(6792816128, 10**10)
CERTIFICATE_40 = Path(__file__).parents[1] / "support" / "pair_correlation_ceiling_40_40.json"  # rounded down: the bracket width printed is an upper bound
DEFAULT_CONFIGS = ("10,3,nomass", "10,3,1", "10,6,1", "20,6,1", "10,3,6", "10,6,12", "10,10,10", "10,20,20",
                   "20,20,20,5:5", "20,30,30,10:5", "20,40,40,5:5", "40,40,40,g3:40/10:10/40:4")


def session(limit: float) -> None:
    from mathloop.targets import load_contract
    from mathloop.search.loop import Observer, Session, SessionLimits
    from mathloop.check.runner import ProcessRunner
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository
    from mathloop.targets import build_target

    contract = load_contract("pair-correlation-rh-ceiling")
    t0 = time.monotonic()

    class Show(Observer):
        last = None

        def candidate(self, label, head, summary):
            c = head.bounds.get("ceiling")
            if c != self.last:
                self.last = c
                print(f"{time.monotonic() - t0:8.1f} s  ceiling {float(c):.10f}  width {float(c - PRIMAL):.10f}  "
                      f"({build_target(contract).state_summary(head.state)})", flush=True)

    with tempfile.TemporaryDirectory() as d:
        repo = Repository(make_engine(str(Path(d) / "bench.db")))
        s = Session(contract, repo, ProcessRunner(float(contract.limits["check_timeout_s"])))
        root = s.ensure_root()
        print(f"{time.monotonic() - t0:8.1f} s  ceiling {float(root.bounds['ceiling']):.10f}  (seed)", flush=True)
        summary = s.run(build_target(contract).local_proposer(0), SessionLimits(10_000, limit), Show())
        print(f"done: {summary.outcome} after {summary.seconds:.1f} s, {summary.commits} commits, labels {dict(summary.labels)}")


def _tail(text: str):
    """Return (alpha_c, n) for "alpha_c:n", or the warm LP's Graded bands for "g3:40/10:10/40:4" (knots 1/n up to each end)."""
    if text.startswith("g"):
        return Graded(tuple(tuple(int(x) for x in band.split(":")) for band in text[1:].split("/")))
    return tuple(int(x) for x in text.split(":"))


def configs(specs: list[str]) -> None:
    """Print, per "1/h,A,masses[,alpha_c:n]" (masses: nomass, 1 = one mass at alpha = 1, or A_w = masses at 1, 3/2,
    ..., A_w; alpha_c:n = in the LP, nodes beyond alpha_c interpolate knots 1/n apart; gE:n/E:n/... = the
    warm-started highspy LP with knots 1/n apart from 1 up to each E, a non-uniform grid), the LP ceiling
    (optimistic) and the certified ceiling the proposer's own search reaches, with times."""
    from mathloop.targets import load_contract
    from mathloop.targets import build_target
    from mathloop.targets.pair_correlation_rh_ceiling import lp
    from mathloop.targets.pair_correlation_rh_ceiling.proposer import (GRID_FACTOR, TIGHT_MARGIN, TIGHT_ROUNDS, lp_tail,
                                                                      mass_points, prescreen, rationalise)

    target = build_target(load_contract("pair-correlation-rh-ceiling"))
    proposer = target.local_proposer(0)
    print(f"{'1/h':>4} {'A':>3} {'masses':>16} {'LP ceiling':>13} {'certified':>13} {'width':>11} {'total s':>7}  how")
    for spec in specs:
        parts = spec.split(",")
        N, A = int(parts[0]), int(parts[1])
        kind = parts[2] if len(parts) > 2 else "1"
        tail = _tail(parts[3]) if len(parts) > 3 else None
        at = () if kind == "nomass" else mass_points(N, 0 if kind == "1" else int(kind))
        label = ("none" if kind == "nomass" else ("at 1" if kind == "1" else f"1..{kind}")) + (
            "" if tail is None else f" {parts[3]}" if isinstance(tail, Graded) else f" tail {tail[0]}:{tail[1]}")
        t0 = time.perf_counter()
        if kind == "nomass":
            res = lp.solve(N, N * A, margin=TIGHT_MARGIN, at=at, grid_factor=GRID_FACTOR, max_rounds=TIGHT_ROUNDS,
                           coarse=lp_tail(N, A, tail))
            lp_ceiling = None if res is None else res.ceiling
            c = None if res is None else rationalise(res)
            got = (c, "LP margin") if c is not None and prescreen(c, target.max_cells) else None
        else:
            got = proposer._search(N, A, 0 if kind == "1" else int(kind), None, tail=tail)
            lp_ceiling = proposer.lp_ceilings.get((N, A, 0 if kind == "1" else int(kind), tail))
        total = time.perf_counter() - t0
        if lp_ceiling is None:
            print(f"{N:>4} {A:>3} {label:>16}  LP failed ({total:.1f} s)")
            continue
        if got is None:
            print(f"{N:>4} {A:>3} {label:>16} {lp_ceiling:13.10f}  no certified dual ({total:.1f} s)")
            continue
        c, how = got
        print(f"{N:>4} {A:>3} {label:>16} {lp_ceiling:13.10f} {float(c.ceiling):13.10f} "
              f"{float(c.ceiling - PRIMAL):11.8f} {total:7.1f}  {how}", flush=True)


def _load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def wide(spec: str, out: str, rounds: int = 20) -> None:
    """Run the wide lineage's pipeline for "1/h,A,E:n/E:n/..." (masses at 1, 3/2, ..., A; knots 1/n apart from 1 up
    to each E): the warm LP keeping every cut (a line per round: LP ceiling, min f, rows, seconds), the knot-form
    rationalisation written to `out`, then the wide checker (`wide_check`)."""
    import json

    from mathloop.targets.pair_correlation_rh_ceiling import lp_warm
    from mathloop.targets.pair_correlation_rh_ceiling.proposer import mass_points, rationalise_knots

    parts = spec.split(",")
    N, A = int(parts[0]), int(parts[1])
    bands = Graded(tuple(tuple(int(x) for x in b.split(":")) for b in parts[2].split("/")))
    knots, at = bands.knots(N, N * A), mass_points(N, A)
    print(f"LP (1/{N}, {A}), {bands.describe()}: {1 + len(knots) + len(at)} columns; {_load()}", flush=True)
    t0 = time.monotonic()

    def log(res, rows, secs):
        print(f"  round {res.rounds:2d}: LP ceiling {res.ceiling:.10f}  min f {res.min_f:+.2e}  rows {rows}  "
              f"{secs:6.1f} s (total {time.monotonic() - t0:6.1f} s; {_load()})", flush=True)

    res = lp_warm.solve(N, N * A, knots=knots, at=at, margin=1e-5, grid_factor=4, max_rounds=rounds, method="ipm",
                        keep_cuts=True, log=log)
    c = rationalise_knots(res, knots)
    print(f"LP done in {time.monotonic() - t0:.1f} s: {res.rounds} rounds, rationalised ceiling {float(c.ceiling):.12f}",
          flush=True)
    if res.min_f < 0:
        c = back_off_40(c)
    Path(out).write_text(json.dumps(c.payload()))
    print(f"-> {out}", flush=True)
    wide_check(out)


def back_off_40(c):
    """Return lam c + (1 - lam) inner in knot form, inner the (1/40, 40) certificate projected onto its own graded
    knots and refined onto c's grid (a strictly feasible dual whose ceiling is close, so the step costs little);
    lam the second-largest the floats allow (`mixing_weights`): the checker decides."""
    import json

    from mathloop.targets import build_target, load_contract
    from mathloop.targets.pair_correlation_rh_ceiling.knots import KnotDual, expand
    from mathloop.targets.pair_correlation_rh_ceiling.proposer import (as_knots, convex_combination, mixing_weights,
                                                                      refine)

    old = build_target(load_contract("pair-correlation-rh-ceiling")).parse(json.loads(CERTIFICATE_40.read_text()))
    kt = tuple((j, old.nodes[j]) for j in Graded(((3, 40), (10, 10), (40, 4))).knots(40, 1600))
    inner = refine(KnotDual(old.h, old.A, old.L, expand(40, 1600, old.L, kt), old.masses, kt), c.N, c.A,
                   tuple(m.at for m in c.masses))
    lam = mixing_weights(c, inner)[1]
    mixed = as_knots(convex_combination(c, inner, lam))
    print(f"backed off: lam = {lam} towards the (1/40, 40) certificate, ceiling {float(mixed.ceiling):.12f}", flush=True)
    return mixed


def wide_check(path: str) -> None:
    """Check a knot-form payload with the wide lineage's checker and print the verdict, ceiling, width and times."""
    import json

    from mathloop.targets import build_target, load_contract

    target = build_target(load_contract("pair-correlation-rh-ceiling-wide"))
    c = target.parse(json.loads(Path(path).read_text()))
    print(f"check (1/{c.N}, {c.A}), {len(c.knots)} knots, {len(c.masses)} masses; {_load()}", flush=True)
    t0 = time.monotonic()
    ev = target.check(None, c)
    ok = all(r.rank == 0 for r in ev.results)
    pos = ev.artifacts.get("positivity", {})
    print(f"{'certified' if ok else 'NOT certified'}: ceiling {float(c.ceiling):.12f}  width "
          f"{float(c.ceiling - PRIMAL):.10f}  in {time.monotonic() - t0:.1f} s ({pos.get('cell_count')} cells, "
          f"timings {ev.timings}); {_load()}", flush=True)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "configs"
    if mode == "session":
        session(float(sys.argv[2]) if len(sys.argv) > 2 else 300.0)
    elif mode == "wide":
        wide(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 20)
    elif mode == "wide-check":
        wide_check(sys.argv[2])
    else:
        configs(sys.argv[2:] or list(DEFAULT_CONFIGS))
