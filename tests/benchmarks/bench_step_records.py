"""Benchmark: the time to certify each published record of C1a and C1b (each package's data/records.toml).

    flock /work/bench.lock python tests/benchmarks/bench_step_records.py [--no-lean]

For every construction the records file lists: reading the file, parsing it exactly and the exact check (the
target's checker, in this process), then the Lean kernel on the commit's rendering (standalone: the support
modules' text, the statement and the proofs in one file; only constructions of at most MAX_LEAN_STEPS steps
are rendered). Prints one row per construction with the certified value and the load before and after.
"""

from __future__ import annotations

import os
import sys
import time
import tomllib
from importlib import resources

PACKAGES = {"sidon-autocorrelation": "mathloop.targets.sidon_autocorrelation",
            "erdos-minimum-overlap": "mathloop.targets.erdos_minimum_overlap"}


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(lean: bool) -> None:
    from mathloop.domain import decimal_str
    from mathloop.lean.check import check_source
    from mathloop.targets import build_target, load_contract

    print(_load(), flush=True)
    for name, pkg in PACKAGES.items():
        target = build_target(load_contract(name))
        data = resources.files(pkg) / "data"
        entries = tomllib.loads((data / "records.toml").read_text(encoding="utf-8"))["published"]
        for e in entries:
            if not e["construction"]:
                continue
            with resources.as_file(data / e["construction"]) as path:
                t0 = time.perf_counter()
                steps = target.parse(target.read_candidate_file(path))
                t1 = time.perf_counter()
                ev = target.check(None, steps)
                t2 = time.perf_counter()
            value = ev.bounds[target.bound_name]
            row = (f"{name:22} {e['who']:26} n={steps.n:6d} {decimal_str(value, 12, round_down=False)}  "
                   f"read+parse {t1 - t0:6.2f} s  exact {t2 - t1:6.2f} s")
            if lean:
                rendered = target.lean_render("0" * 64, ev)
                if rendered is None:
                    row += "  Lean: not rendered (more steps than the Lean rendering takes)"
                else:
                    t3 = time.perf_counter()
                    res = check_source(rendered.standalone_source(), rendered.theorems, timeout_s=900)
                    row += f"  Lean {res.verdict.value} {time.perf_counter() - t3:6.1f} s"
            print(row, flush=True)
    print(_load(), flush=True)


if __name__ == "__main__":
    main(lean="--no-lean" not in sys.argv[1:])
