"""Benchmark: the start-up cost of one sandboxed program run, against the alternatives it was chosen over.

    plain            the interpreter alone (`python -S -c pass`), no isolation
    unshare          namespaces only (`unshare --net --pid --ipc --uts --mount --fork`; no file-system view: the store,
                     the home and mathloop's source stay visible, so not a sandbox by itself)
    sandbox          `mathloop.sandbox.Sandbox.run` (bubblewrap, the read-only view, the launcher, limits) of `pass`
    plain numpy      `python -c "import numpy"` without isolation
    sandbox numpy    the same program in the sandbox

    flock /work/bench.lock python tests/benchmarks/bench_sandbox.py --runs 30

Prints the median and the 90th percentile in milliseconds and the load before and after. Not part of any test tier.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mathloop.sandbox import Sandbox  # noqa: E402


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    exe = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    box = Sandbox()
    numpy_env = {"PYTHONPATH": os.path.dirname(os.path.dirname(__import__("numpy").__file__)),
                 "OPENBLAS_NUM_THREADS": "1"}

    def run(cmd: list[str], env: dict | None = None) -> None:
        subprocess.run(cmd, check=True, capture_output=True, env=env)

    def sandboxed(src: str) -> None:
        r = box.run(src)
        assert r.ok, r.failure()

    cases = {"plain": lambda: run([exe, "-S", "-c", "pass"]),
             "sandbox": lambda: sandboxed("pass"),
             "plain numpy": lambda: run([exe, "-S", "-c", "import numpy"], numpy_env),
             "sandbox numpy": lambda: sandboxed("import numpy")}
    if shutil.which("unshare") and os.geteuid() == 0:
        cases["unshare"] = lambda: run(["unshare", "--net", "--pid", "--ipc", "--uts", "--mount", "--fork",
                                        exe, "-S", "-c", "pass"])
    print(f"load before: {Path('/proc/loadavg').read_text().split()[0]}; {args.runs} runs each "
          f"({'root: own uid' if box.as_root else 'user namespace'})")
    for name, fn in cases.items():
        fn()  # warm the page cache
        ms = sorted(timed(fn, args.runs))
        print(f"{name:<14} median {statistics.median(ms):7.1f} ms   p90 {ms[int(0.9 * (len(ms) - 1))]:7.1f} ms")
    print(f"load after: {Path('/proc/loadavg').read_text().split()[0]}")


if __name__ == "__main__":
    main()
