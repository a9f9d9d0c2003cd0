"""Benchmark: the best certified value of a table constant after `mathloop run` sessions, from the seed and from
the best published construction (`--start published`).

    flock /work/bench.lock python tests/benchmarks/bench_sessions.py OUT_DIR TARGET START SECONDS [SECONDS...]
    python tests/benchmarks/bench_sessions.py --table RESULTS...      # markdown rows of printed results

TARGET: any lineage with one bound (sidon-autocorrelation[-fine], erdos-minimum-overlap[-fine],
shannon-capacity-c7-wide, spencer-discrepancy, furstenberg-sarkozy, sum-difference-3b/3c, ...); START: head (from
the seed in a fresh store) | published. One fresh store per (target, start, seconds) in OUT_DIR; the real CLI runs
as a child (`mathloop run ... --time-limit SECONDS --no-progress`, Lean on, as a user runs it), then `mathloop
audit` re-checks every commit. Printed: the load before and after, the session's wall time (Lean's wait included)
and CPU time (its processes, Lean included: on a shared machine the share of the cores it got), the best
certified value (in the bound's direction, printed in its safe direction) reached by 30, 60, 120, 300, 600, 1200
and 1800 s of the session (from the commit times in the store), the number of commits (the root aside), the
latest Lean status of every commit (root included), the audit's verdict and how the session ended.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

MARKS = (30, 60, 120, 300, 600, 1200, 1800)
MATHLOOP = [sys.executable, "-m", "mathloop"]  # the interpreter running this benchmark, whatever PATH says


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _history(target: str, db: Path):
    from collections import Counter

    from mathloop.domain import Direction, decimal_str
    from mathloop.lean.attest import latest
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository
    from mathloop.targets import load_contract
    from mathloop.view.history import history

    contract = load_contract(target)
    engine = make_engine(str(db))
    h = history(contract, Repository(engine))
    lean = Counter(a.status for a in latest(engine, contract.sha256).values())
    (bound,) = contract.bounds
    top = min if bound.direction is Direction.MINIMIZE else max
    down = bound.direction is Direction.MAXIMIZE  # a lower bound printed down, an upper bound up

    started = datetime.fromisoformat(h.sessions[-1].started_at)
    points = [((p.at - started).total_seconds(), p.value) for p in h.bounds[bound.name]]
    best = {}
    for mark in MARKS:
        before = [v for t, v in points if t <= mark]
        best[mark] = decimal_str(top(before), 12, round_down=down) if before else "-"
    return best, len(points) - 1, decimal_str(top(v for _, v in points), 12, round_down=down), dict(lean)


def run(out: Path, target: str, start: str, seconds: float) -> None:
    db = out / f"{target}-{start}-{int(seconds)}.db"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    before = _load()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    # the time limit, not the contract's candidate budget, ends the session (from the seed 400 candidates
    # were spent in about 200 s)
    cmd = [*MATHLOOP, "run", target, "--start", start, "--time-limit", str(seconds), "--budget", "1000000",
           "--db", str(db), "--no-progress"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)  # the session, Lean included
    audit = subprocess.run([*MATHLOOP, "audit", target, "--db", str(db)], capture_output=True, text=True)
    best, commits, final, statuses = _history(target, db)
    print(json.dumps({"target": target, "start": start, "seconds": seconds, "exit": done.returncode,
                      "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_before": before, "load_after": _load(), "commits": commits,
                      "best": final, "best_by": best, "lean": statuses,
                      "audit": " ".join(audit.stdout.split()) if audit.returncode == 0 else
                      "FAILED: " + " ".join(audit.stdout.split())[-400:],
                      "ended": _ending(done.stdout)}), flush=True)


def _ending(stdout: str) -> str:
    """Return how the session ended, as run's summary says it (time limit, proposer exhausted, budget)."""
    words = " ".join(stdout.split())
    for why in ("proposer exhausted", "proposer stopped", "time limit", "budget spent"):
        if why in words:
            return why
    return "-"


def table(lines: list[str]) -> str:
    """Return the markdown rows of printed results (one JSON object a line), with the gap to the published best."""
    from fractions import Fraction

    from mathloop.targets import build_target, load_contract

    rows = ["| lineage | start | best by 300 s | best by 1800 s | published best (certified) | gap | commits | CPU s | load | ended | audit |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for line in lines:
        r = json.loads(line)
        records = build_target(load_contract(r["target"])).constant_records()
        pub = records.best
        ref = Fraction(pub.certified or pub.value)  # its certified 12 digits, as `best` is printed
        gap = Fraction(r["best"]) - ref
        worse = records.better(ref, Fraction(r["best"]))
        ended = r.get("ended") or ("time limit" if r["wall_s"] >= r["seconds"] else "-")
        by = r["best_by"]
        rows.append(f"| `{r['target']}` | {'seed' if r['start'] == 'head' else 'published'} | {by['300']} | "
                    f"{by[str(int(r['seconds']))] if str(int(r['seconds'])) in by else r['best']} | "
                    f"{pub.certified or pub.value} ({pub.who}) | {'+' if gap > 0 else ''}{float(gap):.3g}{' (behind)' if worse else ''} | "
                    f"{r['commits']} | {r['cpu_s']:.0f} (wall {r['wall_s']:.0f}) | {r['load_before'].split()[0]} → "
                    f"{r['load_after'].split()[0]} | {ended} | "
                    f"{'ok' if str(r['audit']).startswith(('audit ok', '[')) else 'FAILED'} |")
    return "\n".join(rows)


if __name__ == "__main__":
    if sys.argv[1] == "--table":  # bench_sessions.py --table RESULTS...: the docs' table from printed results
        print(table([ln for f in sys.argv[2:] for ln in Path(f).read_text().splitlines() if ln.startswith("{")]))
        sys.exit(0)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for s in sys.argv[4:]:
        run(out, sys.argv[2], sys.argv[3], float(s))
