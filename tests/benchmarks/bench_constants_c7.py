"""Benchmark: shannon-capacity-c7 — the exact check of a 367-vertex set, and a `mathloop run` session.

Run:  python tests/benchmarks/bench_constants_c7.py [--time-limit 300] [--seed 0] [--repeat 20]

1. Times the full checker (parse + pairwise independence + certified root) on the Polak–Schrijver
   367-set in C7^⊠5 (issue 21: <= 50 ms), median of `--repeat` runs.
2. Runs `mathloop run shannon-capacity-c7 --time-limit T --no-lean` from the contract's seed on a
   fresh store (the same command a user types) and prints every commit: seconds since the session
   started, |S| and n, the certified Θ(C7) >= r, with the published lower bounds beside it.
Every figure printed is measured in this run; `uptime` is printed first (shared machine).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from importlib import resources
from pathlib import Path

from mathloop.targets import load_contract
from mathloop.domain import decimal_str
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target
from mathloop.targets.shannon_capacity_c7.formats import read_candidate
from mathloop.targets import target_class
from mathloop.targets.records import published_records
from tests.support.contracts import shipped

DATA = resources.files("mathloop.targets.shannon_capacity_c7") / "data"


def check_speed(repeat: int) -> None:
    target = build_target(load_contract(shipped("shannon-capacity-c7")))
    payload = read_candidate(DATA / "polak_schrijver_367.txt")
    target.check(None, target.parse(payload))  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        ev = target.check(None, target.parse(payload))
        times.append(time.perf_counter() - t0)
    print(f"check of the 367-set (parse + independence + root): median {1000 * statistics.median(times):.1f} ms, "
          f"max {1000 * max(times):.1f} ms over {repeat}; certified {decimal_str(ev.bounds['capacity'], 12)}")


def _published() -> list[tuple[str, Fraction]]:
    """Return (who, printed value) of the published lower bounds (data/records.toml)."""
    return [(p.who, Fraction(p.value)) for p in published_records(target_class("shannon-capacity-c7")).published]


def session(time_limit: float, seed: int) -> None:
    print("published lower bounds: " + "  ".join(f"{who}: {v}" for who, v in _published()))
    contract = load_contract(shipped("shannon-capacity-c7"))  # the lineage the session writes
    with tempfile.TemporaryDirectory(prefix="bench-c7-") as tmp:
        db = Path(tmp) / "c7.db"
        exe = Path(sys.executable).with_name("mathloop")
        cmd = [str(exe), "run", "shannon-capacity-c7", "--db", str(db), "--time-limit", str(time_limit), "--seed",
               str(seed), "--no-lean", "--no-progress"]
        print("$ " + " ".join(cmd[1:]), flush=True)
        t0 = dt.datetime.now(dt.timezone.utc)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "120"})
        wall = (dt.datetime.now(dt.timezone.utc) - t0).total_seconds()
        commits = Repository(make_engine(f"sqlite:///{db}", create=False)).commits(contract.sha256)
    start = dt.datetime.fromisoformat(commits[0].created_at)
    print(f"{'t (s)':>7}  {'|S|':>5} {'n':>2}  {'certified Θ(C7) >=':<18}  ≥ published")
    for c in commits:
        t = (dt.datetime.fromisoformat(c.created_at) - start).total_seconds()
        size, n = len(c.state["vertices"]), c.state["n"]
        beaten = [who for who, v in _published() if c.bounds["capacity"] >= v and v > 3]
        print(f"{t:7.1f}  {size:5d} {n:2d}  {decimal_str(c.bounds['capacity'], 12):<18}  {', '.join(beaten) or '-'}")
    best = commits[-1]
    who, record = max(_published(), key=lambda p: p[1])
    gap = record - best.bounds["capacity"]
    print(f"session wall {wall:.0f} s, {len(commits) - 1} commits after the seed; gap to the published best "
          f"({who}, {record}): {decimal_str(gap, 6, round_down=False)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    check_speed(args.repeat)
    session(args.time_limit, args.seed)


if __name__ == "__main__":
    main()
