"""Profile one critical-line-zeros chunk by stage: per Gram interval, propose, parse, check, outcome bytes (CPU time).

    python tests/benchmarks/profile_zeros.py                                    # 512-interval point lists at g_1747000
    python tests/benchmarks/profile_zeros.py --contract critical-line-zeros --intervals 20000
    python tests/benchmarks/profile_zeros.py --cprofile                         # and cProfile of propose and check

Each figure is the median CPU time (time.process_time) of 3 runs after one warm-up run, so other
processes on a shared machine change it less than they change wall time.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _cpu(fn, runs: int = 3) -> float:
    fn()
    out = []
    for _ in range(runs):
        c0 = time.process_time()
        fn()
        out.append(time.process_time() - c0)
    return sorted(out)[len(out) // 2]


def main() -> None:
    from mathloop.check.outcome import CheckOutcome, outcome_from_bytes, outcome_to_bytes
    from mathloop.domain import canonical_dumps
    from mathloop.targets import build_target, load_contract
    from mathloop.targets.critical_line_zeros.certificate import Prefix
    from mathloop.targets.critical_line_zeros.gram import expected_sign
    from mathloop.targets.critical_line_zeros.hardy_z import definite

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--contract", default="critical-line-zeros")
    ap.add_argument("--intervals", type=int, default=512)
    ap.add_argument("--gram", type=int, default=1747000, help="start near this Gram index (the next good one)")
    ap.add_argument("--cprofile", action="store_true")
    args = ap.parse_args()
    target = build_target(load_contract(args.contract))
    lim = target.settings.limits
    target.settings = dataclasses.replace(target.settings, limits=dataclasses.replace(lim, max_blocks_per_chunk=100000))
    m0 = args.gram
    while definite("g", m0, (64, 128)).sign != expected_sign(m0):
        m0 += 1
    prop = target.local_proposer(0)
    prop.chunk = args.intervals
    chunk = prop.chunks_from(m0, 1)[0]
    state = dict(Prefix(m0, m0 - 10, tuple(range(m0 - 8, m0 + 1)), 0, 126, 5).to_json(), height=None, count=None, turing=None)
    ev = target.check(state, target.parse(chunk))
    out = outcome_to_bytes(CheckOutcome(evidence=ev))
    n = (chunk["end"] if "end" in chunk else chunk["blocks"][-1]["end"]) - chunk["start"]
    us = {
        "propose": _cpu(lambda: prop.chunks_from(m0, 1)),
        "parse": _cpu(lambda: target.parse(chunk)),
        "check": _cpu(lambda: target.check(state, target.parse(chunk))),
        "outcome->bytes": _cpu(lambda: outcome_to_bytes(CheckOutcome(evidence=ev))),
        "bytes->outcome": _cpu(lambda: outcome_from_bytes(out, "x")),
    }
    print(f"{args.contract}: {n} Gram intervals from g_{m0}; CPU per interval: "
          + ", ".join(f"{k} {v / n * 1e6:.2f} us" for k, v in us.items())
          + f"; outcome {len(out)} bytes ({len(out) / n:.2f} per interval), payload {len(canonical_dumps(chunk))} bytes")
    if args.cprofile:
        for fn in (lambda: prop.chunks_from(m0, 1), lambda: target.check(state, target.parse(chunk))):
            pr = cProfile.Profile(timer=time.process_time)
            pr.enable()
            fn()
            pr.disable()
            pstats.Stats(pr).sort_stats("cumtime").print_stats(25)


if __name__ == "__main__":
    main()
