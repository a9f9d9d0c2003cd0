"""Benchmark: certify κ for 50 candidates exactly+rigorously vs a 30-digit mpmath.quad 2-D evaluation.

Run:  python tests/benchmarks/bench_kappa.py [--n 50] [--quad-subset 3] [--dps 30]

The exact path is the full checker (admissibility, closed form a + b·e^{2R} in rationals, mpmath
cross-check at two precisions, Taylor certificate N1 <= N2 on the 10^-12 grid). The baseline
evaluates c = 1 + (1/θ)∫∫ e^{2Rv}(P'Q + θP(Q' + RQ))² by mpmath.quad over the unit square at
`--dps` digits, which takes many seconds per candidate, so by default it is timed on a documented
subset of the same candidates and its mean is compared with the exact path's mean over all of them.
Every figure printed is measured in this run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from fractions import Fraction as F
from math import comb

import mpmath

from mathloop.targets import load_contract
from mathloop.targets import build_target
from mathloop.targets.levinson_conrey.certificate import GRID, verify_certificate
from tests.support.contracts import shipped

CONREY_RANGE = F(4, 7)  # theta_sup of the levinson-conrey contract (Conrey 1989)

CONTRACT = shipped("levinson-conrey")


def candidates(n: int, seed: int = 2024) -> list[dict]:
    """Return n random admissible payloads (P(0)=0, P(1)=1, Q(0)=1, Q symmetric), degrees <= 5."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        dP, dQ = rng.randint(1, 5), rng.choice([1, 3, 5])
        high = [F(rng.randint(-300, 300), 1000) for _ in range(dP - 1)]
        P = [F(0), 1 - sum(high, F(0)), *high]
        d = {k: F(rng.randint(-800, 800), 1000) for k in range(1, dQ + 1, 2)}
        Q = [F(0)] * (dQ + 1)
        Q[0] = 1 - sum(d.values(), F(0))
        for k, v in d.items():  # + d_k (1 − 2x)^k
            for j in range(k + 1):
                Q[j] += v * comb(k, j) * (-2) ** j
        R = F(rng.randint(500, 3000), 1000)
        s = lambda q: str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
        out.append({"P": [s(x) for x in P], "Q": [s(x) for x in Q], "R": s(R)})
    return out


def quad_c(payload: dict, theta: F, dps: int) -> mpmath.mpf:
    """Return c by mpmath.quad over [0,1]² at `dps` digits (the baseline)."""
    with mpmath.workdps(dps):
        mp = lambda q: mpmath.mpf(q.numerator) / q.denominator
        P = [mp(F(x)) for x in payload["P"]]
        Q = [mp(F(x)) for x in payload["Q"]]
        dP = [i * c for i, c in enumerate(P)][1:] or [mpmath.mpf(0)]
        dQ = [i * c for i, c in enumerate(Q)][1:] or [mpmath.mpf(0)]
        th, R = mp(theta), mp(F(payload["R"]))
        ev = lambda c, x: mpmath.polyval(c[::-1], x)
        f = lambda u, v: mpmath.exp(2 * R * v) * (ev(dP, u) * ev(Q, v) + th * ev(P, u) * (ev(dQ, v) + R * ev(Q, v))) ** 2
        return +(1 + mpmath.quad(f, [0, 1], [0, 1]) / th)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50, help="candidates certified by the exact path")
    ap.add_argument("--quad-subset", type=int, default=3, help="how many of them the mpmath.quad baseline times (all: --quad-subset N)")
    ap.add_argument("--dps", type=int, default=30, help="mpmath.quad working precision")
    args = ap.parse_args()

    target = build_target(load_contract(CONTRACT))
    theta = target.settings.theta
    payloads = candidates(args.n)
    target.check(None, target.parse(payloads[0]))  # warm-up (imports, mpmath caches)

    exact_times, evidences = [], []
    cpu0 = time.process_time()
    for p in payloads:
        t0 = time.perf_counter()
        ev = target.check(None, target.parse(p))
        exact_times.append(time.perf_counter() - t0)
        evidences.append(ev)
    exact_cpu = (time.process_time() - cpu0) / args.n
    certified = sum(1 for ev in evidences if "kappa" in ev.bounds)
    verified = sum(1 for ev in evidences if "certificate" in ev.artifacts and verify_certificate(ev.artifacts["certificate"], CONREY_RANGE))

    m = min(args.quad_subset, args.n)
    quad_times, rel_diffs = [], []
    cpu0 = time.process_time()
    for p, ev in zip(payloads[:m], evidences[:m]):
        t0 = time.perf_counter()
        c = quad_c(p, theta, args.dps)
        quad_times.append(time.perf_counter() - t0)
        with mpmath.workdps(args.dps):
            rel_diffs.append(abs(c / mpmath.mpf(ev.artifacts["highprec"]["c"]) - 1))

    quad_cpu = (time.process_time() - cpu0) / m
    exact_mean = statistics.fmean(exact_times)
    quad_mean = statistics.fmean(quad_times)
    print(f"candidates: {args.n} random admissible (deg P <= 5, deg Q in {{1,3,5}}), θ = {theta} (levinson-conrey)")
    print(f"exact+rigorous path: {args.n} checks, {certified} certified on the grid {GRID}, {verified} certificates re-verified")
    print(f"  total {sum(exact_times):.4f} s, mean {exact_mean * 1e3:.3f} ms, median {statistics.median(exact_times) * 1e3:.3f} ms, max {max(exact_times) * 1e3:.3f} ms")
    subset = "all" if m == args.n else f"a subset of the first {m} (each takes seconds; pass --quad-subset {args.n} for all)"
    print(f"mpmath.quad 2-D at {args.dps} digits: timed on {subset}")
    print(f"  total {sum(quad_times):.2f} s, mean {quad_mean:.3f} s per candidate; max |c_quad/c_exact − 1| = {mpmath.nstr(max(rel_diffs), 3)}")
    print(f"  estimated for all {args.n}: {quad_mean * args.n:.1f} s (mean × n)")
    print(f"speed-up (mean per candidate, measured in this run): {quad_mean / exact_mean:.0f}x wall, "
          f"{quad_cpu / exact_cpu:.0f}x CPU time  (target >= 100x)")


if __name__ == "__main__":
    main()
