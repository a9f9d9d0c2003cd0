"""Benchmark: wall time to prove all zeta zeros up to 10^4 (and 10^5 with --full) on the line.

Runs the local proposer and the checker chunk by chunk with an in-memory head (propose ->
parse -> check -> order.compare -> advance), exactly what the search loop does minus the
store, then times python-flint's acb.zeta_zeros computing the same zeros (unverified
isolation + refinement, FLINT's own Turing check) and prints the ratio.

    python tests/benchmarks/bench_zeros.py                 # 10^4, baseline measured in full
    python tests/benchmarks/bench_zeros.py --full          # also 10^5 (baseline: a measured subset, scaled)
    python tests/benchmarks/bench_zeros.py --baseline-zeros 2000   # baseline on a subset, scaled linearly
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mathloop.contract.load import load_contract  # noqa: E402
from mathloop.domain import Scores  # noqa: E402
from mathloop.order import compare  # noqa: E402
from mathloop.propose.base import Context, Head  # noqa: E402
from mathloop.targets import build_target  # noqa: E402


def prove_until(count: int, height: Fraction, samples: int = 2, contract_name: str = "critical-line-zeros"):
    """Return (seconds, final evidence, evidences in chain order) once count and height are certified."""
    contract = load_contract(contract_name)
    target = build_target(contract)
    specs = {b.name: b for b in contract.bounds}
    t0 = time.perf_counter()
    ev = target.check(None, target.parse(contract.seed))
    chain = [ev]
    proposer = target.local_proposer(0)
    rnd = 0
    while not (ev.bounds.get("count", 0) >= count and ev.bounds.get("height", 0) >= height):
        head = Head(f"mem{rnd}", rnd, ev.state, ev.ranks, ev.bounds)
        ctx = Context(contract, head, tuple(k for k, r in ev.ranks.items() if r), (), frozenset(), rnd, samples)
        proposals = proposer.propose(ctx)
        if not proposals:
            raise RuntimeError("proposer exhausted before the goal")
        for p in proposals:
            new = target.check(ev.state, target.parse(p.payload))
            cmp = compare(Scores.of(ev), Scores.of(new), specs)
            if not cmp.passes_gate:
                raise RuntimeError(f"chunk refused ({cmp.label.value}): {new.reasons()[:2]}")
            ev = new
            chain.append(ev)
        rnd += 1
    return time.perf_counter() - t0, ev, chain


def flint_baseline(n_zeros: int) -> float:
    """Return seconds for python-flint's acb.zeta_zeros to compute the first n_zeros zeros."""
    from flint import acb, ctx

    t0 = time.perf_counter()
    with ctx.workprec(53):
        done = 0
        while done < n_zeros:
            k = min(1000, n_zeros - done)
            acb.zeta_zeros(done + 1, k)
            done += k
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="also prove all zeros up to 10^5 (minutes)")
    ap.add_argument("--baseline-zeros", type=int, default=10142, help="zeros for the flint baseline (scaled if fewer)")
    ap.add_argument("--samples", type=int, default=2, help="chunks per proposer round")
    args = ap.parse_args()
    goals = [(10142, Fraction(10**4))] + ([(138069, Fraction(10**5))] if args.full else [])
    for count, height in goals:
        secs, ev, chain = prove_until(count, height, args.samples)
        print(f"verify all zeros up to {float(height):g}: {secs:.1f} s wall; certified height "
              f"{float(ev.bounds['height']):.6f}, count {ev.bounds['count']}, {len(chain) - 1} chunks, "
              f"{ev.state['blocks_verified']} blocks, first bad Gram point g_{ev.state['first_bad_gram']}")
        n = min(args.baseline_zeros, count)
        base = flint_baseline(n)
        scaled = base * count / n
        how = "measured" if n == count else f"measured on the first {n} zeros, scaled x{count / n:.2f}"
        print(f"  flint acb.zeta_zeros for the first {count} zeros: {scaled:.1f} s ({how}); ratio {scaled / secs:.2f}x")


if __name__ == "__main__":
    main()
