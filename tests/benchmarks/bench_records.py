"""Benchmark: the time to certify every stored published construction of every table constant (`mathloop records`).

Run:  flock /work/bench.lock python tests/benchmarks/bench_records.py [--repeat 3] [--cli]

For each constant with a records file and each stored construction: read the file as `mathloop check --candidate`
does, parse, check (in process), median of `--repeat` runs, and the certified value against the file's `certified`
digits. `--cli` also times the end-to-end `mathloop check CONTRACT --candidate FILE --json` (a real subprocess with
its checker child) for each constant's best stored construction. `uptime` is printed before and after (shared machine).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mathloop.targets import registered, target_class
from mathloop.targets.record_check import recertify
from mathloop.targets.records import construction_file

ROOT = Path(__file__).resolve().parents[2]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cli", action="store_true")
    args = ap.parse_args()
    print("uptime before:", uptime(), flush=True)
    print(f"{'constant':8} {'construction':42} {'certified':>16} {'matches':>7} {'median s':>9} {'max s':>7}")
    best: dict[str, tuple[str, str, float]] = {}
    seen: set[tuple[str, str]] = set()  # a records file shared by two targets (9a: explicit sets, recursive) once
    for key, reg in sorted(registered().items()):
        if not reg.own:
            continue
        cls = target_class(key)
        records = cls.constant_records()
        where = (cls.records_package, getattr(cls, "records_file", "records.toml"))
        if records is None or where in seen:
            continue
        seen.add(where)
        for p in records.published:
            if not p.construction:
                continue
            times, got = [], None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                got = recertify(cls, p.construction)
                times.append(time.perf_counter() - t0)
            print(f"{records.constant.table_id:8} {p.construction[:42]:42} {got.shown:>16} "
                  f"{str(got.shown == p.certified):>7} {statistics.median(times):9.3f} {max(times):7.3f}", flush=True)
            top = best.get(records.constant.table_id)
            if top is None or records.better(got.value, top[2]):
                best[records.constant.table_id] = (got.contract, str(construction_file(cls, p.construction)), got.value)
    if args.cli:
        print("\nend to end: mathloop check CONTRACT --candidate FILE --json (subprocess, checker child)")
        for tid, (contract, file, _) in sorted(best.items()):
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "mathloop", "check", contract, "--candidate", file, "--json"],
                                 cwd=ROOT, capture_output=True, text=True, timeout=600)
            wall = time.perf_counter() - t0
            bounds = json.loads(out.stdout)["bounds"] if out.returncode in (0, 1) and out.stdout.strip() else {}
            print(f"{tid:8} {contract:26} exit {out.returncode}  {wall:6.1f} s  {bounds}", flush=True)
    print("uptime after: ", uptime())


if __name__ == "__main__":
    main()
