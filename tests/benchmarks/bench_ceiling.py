"""Benchmark of `pair-correlation-rh-ceiling`: the bracket width over time and over (h, A, masses).

    python tests/benchmarks/bench_ceiling.py session [time_limit_s]    # a real session in a temp store
    python tests/benchmarks/bench_ceiling.py configs [1/h,A[,nomass] ...]

`session` runs the local proposer through the loop (checks in a child process, real SQLite store)
and prints, at every commit, the elapsed time, the certified ceiling and the bracket width against
PRIMAL (pair-correlation-rh's best certified value, 0.6792816128…; h = 1/60, A = 5). `configs` runs
the LP, the rationalisation and the rigorous check per configuration and prints LP and certified
ceilings, the width and the times. Run it under `nice -n 10`; nothing here is part of the test tier.
"""

from __future__ import annotations

import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

PRIMAL = Fraction(6792816128, 10**10)  # rounded down: the bracket width printed is an upper bound
DEFAULT_CONFIGS = ("10,3,nomass", "10,3", "10,6", "20,6", "20,8", "20,10", "30,10", "40,8", "40,10")


def session(limit: float) -> None:
    from mathloop.contract.load import load_contract
    from mathloop.search.loop import Session, SessionLimits
    from mathloop.search.runner import ProcessRunner
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository
    from mathloop.targets import build_target

    contract = load_contract("pair-correlation-rh-ceiling")
    t0 = time.monotonic()

    class Show:
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


def configs(specs: list[str]) -> None:
    from mathloop.targets.pair_correlation_rh_ceiling import conditions, lp
    from mathloop.targets.pair_correlation_rh_ceiling.arb_positivity import certify_dual_positive
    from mathloop.targets.pair_correlation_rh_ceiling.proposer import rationalise
    MARGINS = (1e-5, 1e-4, 1e-3)

    print(f"{'1/h':>4} {'A':>3} {'mass':>5} {'LP ceiling':>13} {'certified':>13} {'width':>11} {'margin':>7} "
          f"{'cells':>7} {'LP s':>7} {'cert s':>7}")
    for spec in specs:
        parts = spec.split(",")
        N, A, mass = int(parts[0]), int(parts[1]), not (len(parts) > 2 and parts[2] == "nomass")
        t0 = time.perf_counter()
        lp_s = cert_s = 0.0
        got = None
        for margin in MARGINS:
            a = time.perf_counter()
            res = lp.solve(N, N * A, mass=mass, margin=margin)
            b = time.perf_counter()
            lp_s += b - a
            if res is None:
                break
            c = rationalise(res)
            rep = certify_dual_positive(c, conditions.reduced_range(c).end, max_cells=3_000_000)
            cert_s += time.perf_counter() - b
            if rep.status == "positive":
                got = (res, c, margin, rep.certificate["cell_count"])
                break
        if got is None:
            print(f"{N:>4} {A:>3} {str(mass):>5}  no certified dual ({time.perf_counter() - t0:.1f} s)")
            continue
        res, c, margin, cells = got
        print(f"{N:>4} {A:>3} {str(mass):>5} {res.ceiling:13.10f} {float(c.ceiling):13.10f} "
              f"{float(c.ceiling - PRIMAL):11.8f} {margin:7.0e} {cells:7d} {lp_s:7.1f} {cert_s:7.1f}", flush=True)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "configs"
    if mode == "session":
        session(float(sys.argv[2]) if len(sys.argv) > 2 else 300.0)
    else:
        configs(sys.argv[2:] or list(DEFAULT_CONFIGS))
