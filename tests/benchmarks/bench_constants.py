"""Benchmark of the step-function constants (C1a sidon-autocorrelation, C1b erdos-minimum-overlap).

    python tests/benchmarks/bench_constants.py speed                  # exact-check times (600 and 2^16 steps)
    python tests/benchmarks/bench_constants.py curve [seconds] [seed] # optimiser: certified value vs time

`speed` times parse + exact check of the published 600-step C1a construction, of a random 2^16-step
function for both targets, and of the published 95-step C1b construction. `curve` runs each target's
local optimiser for `seconds` (default 300) and, whenever it improves, certifies the proposal exactly
(the checker, not the float) and prints elapsed time, certified value and the published bounds beside
it. Run it under `nice -n 10`; nothing here is part of the test tier.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

PUBLISHED = {  # best first (each package's data/records.toml has them all)
    "C1a": [("TogetherAI 2026", "1.50286286"), ("TTT-Discover", "1.50287"), ("Matolcsi–Vinuesa 2010", "1.5098")],
    "C1b": [("SimpleTES 2026", "0.380868"), ("TogetherAI 2026", "0.380871"), ("Haugland 2016", "0.380927")],
}
FLOOR = {"C1a": ("Cloninger–Steinerberger", "1.28"), "C1b": ("White", "0.379005")}


def _target(name: str):
    from mathloop.targets import load_contract
    from mathloop.targets import build_target
    from mathloop.targets.catalogue import shipped_contract

    return build_target(load_contract(Path(str(shipped_contract(name).resource))))


def _time_check(t, payload, label: str) -> None:
    t0 = time.perf_counter()
    ev = t.check(None, t.parse(payload))
    dt = time.perf_counter() - t0
    (name, v), = ev.bounds.items()
    print(f"{label:<44} {dt * 1000:9.1f} ms   {name} <= {float(v):.9f}")


def speed() -> None:
    from mathloop.targets.erdos_minimum_overlap import value as ov

    sidon, erdos = _target("sidon-autocorrelation"), _target("erdos-minimum-overlap")
    data = Path(__file__).resolve().parents[2] / "mathloop" / "targets"
    _time_check(sidon, sidon.read_candidate_file(data / "sidon_autocorrelation/data/alphaevolve-600-1.5053.txt"),
                "C1a, 600 steps (AlphaEvolve 1.5053, decimals)")
    rng = np.random.default_rng(0)
    big = [str(int(x)) for x in rng.integers(0, 10**9, 1 << 16)]
    _time_check(sidon, {"heights": big}, "C1a, 2^16 steps (integers < 10^9)")
    floats = [str(x) for x in rng.random(1 << 16)]
    _time_check(sidon, {"heights": floats}, "C1a, 2^16 steps (17-digit decimals)")
    _time_check(erdos, erdos.read_candidate_file(Path(ov.__file__).parent / "data/alphaevolve-95-0.380924.txt"),
                "C1b, 95 steps (AlphaEvolve 0.380924)")
    half = rng.integers(2 * 10**8, 8 * 10**8, 1 << 16)  # n·a <= 2Σa: admissible
    _time_check(erdos, {"heights": [str(int(x)) for x in half]}, "C1b, 2^16 steps (integers in [2e8, 8e8))")


def curve(seconds: float, seed: int) -> None:
    from mathloop.targets.erdos_minimum_overlap import proposer as op
    from mathloop.targets.sidon_autocorrelation import proposer as sp

    for name, bound, mod, exact in (("sidon-autocorrelation", "C1a", sp, sp.integer_heights),
                                    ("erdos-minimum-overlap", "C1b", op, op.admissible_integers)):
        t = _target(name)
        print(f"\n{name}: published upper bounds " + ", ".join(f"{v} ({who})" for who, v in PUBLISHED[bound])
              + f"; floor {FLOOR[bound][1]} ({FLOOR[bound][0]})")
        start, best, last_print = time.monotonic(), None, -1e9
        for _, h in mod.optimise(seed, None):  # from scratch
            el = time.monotonic() - start
            if el > seconds:
                break
            if h is None or el - last_print < 5:  # a heartbeat, or printed recently
                continue
            ev = t.check(None, t.parse({"heights": [str(a) for a in exact(h)]}))
            v = ev.bounds[bound]
            best = v if best is None else min(best, v)
            last_print = el
            gaps = "  ".join(f"{float(v - Fraction(p)):+.6f} vs {p}" for _, p in PUBLISHED[bound][:2])
            print(f"{el:7.1f} s  n={len(h):5d}  certified {bound} <= {float(v):.8f}   {gaps}", flush=True)
        if best is not None:
            print(f"best certified {bound} <= {float(best):.8f} in {seconds:.0f} s (seed {seed})")


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "speed"
    if mode == "speed":
        speed()
    elif mode == "curve":
        curve(float(sys.argv[2]) if len(sys.argv) > 2 else 300.0, int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    else:
        sys.exit(f"unknown mode {mode!r} (speed | curve)")
