"""Benchmark of the RH pair-correlation bracket: its width against time, from an empty store, as a user runs it.

    python tests/benchmarks/bench_bracket.py run OUT_DIR [--primal-limit S] [--ceiling-limit S] [--no-lean]
                                                 [--primal pair-correlation-rh-wide]
    python tests/benchmarks/bench_bracket.py plot STORE.db OUT_DIR     # the table and picture of an existing store

`run` makes OUT_DIR/bracket.db empty, then runs the user's commands as subprocesses, one after the other:

    mathloop run PRIMAL --db OUT_DIR/bracket.db --time-limit S1 --no-progress     (PRIMAL: --primal, default
                                                                                  pair-correlation-rh)
    mathloop run pair-correlation-rh-ceiling-wide --db OUT_DIR/bracket.db --time-limit S2 --no-progress
    mathloop audit PRIMAL --db ...      mathloop audit pair-correlation-rh-ceiling-wide --db ...

printing each one's wall time and the 1-minute load before and after. Then (and in `plot`) it reads the bracket's
history from the store (`view.bracket_history`: every commit that moved a side, with its certified value) and
prints a table of elapsed time (from the first commit), side, value and width, and writes
OUT_DIR/bracket_width.svg and .png (width against time, log scale). Take measured figures under the shared lock:
`flock /work/bench.lock python tests/benchmarks/bench_bracket.py run ...`. Nothing here is part of the test tier.
`--together` starts both sessions at once on the one store (WAL and a busy timeout let two lineages commit side by
side), so the bracket's time is the longer session's, not the sum.

Measured 2026-12-04 (one run, load 1.78 -> 3.84, other jobs on the 2 cores): `run OUT --primal-limit 200
--ceiling-limit 1590 --no-lean` -> primal 190.6 s, ceiling 1492.8 s (28.1 min together), bracket
[0.679307880048, 0.679455330775], width 1.4746e-4 at 27:54 after the first commit; audits ok (20.6 s, 212.8 s).
Measured 2026-12-05 (one run, load 2.56 -> 1.34, under the lock): `run OUT --primal pair-correlation-rh-wide --together
--no-audit --primal-limit 1000 --ceiling-limit 1800 --no-lean` -> both at once 1404.0 s wall, bracket
[0.679315366362, 0.679455330775], width 1.3996e-4 at 23:13 after the first commit.
Measured 2026-12-06 (one run, load 0.06 -> 1.22, test runs on the same cores): `run OUT --primal pair-correlation-rh-wide
--together --primal-limit 1500 --ceiling-limit 3300 --no-lean` -> primal 1222.2 s, ceiling 2468.3 s (both exhausted),
width 9.541e-5 at 23:03 and [0.679325764689, 0.679400064133], width 7.430e-5, at 40:53 after the first commit;
audits ok (165.8 s, 395.0 s).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from datetime import datetime
from fractions import Fraction
from pathlib import Path

PRIMAL, CEILING = "pair-correlation-rh", "pair-correlation-rh-ceiling-wide"
PRIMAL_WIDE = "pair-correlation-rh-wide"


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def _step(argv: list[str]) -> float:
    """Run one CLI command, print its wall time and the load before and after; return the wall time."""
    before = _load()
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "mathloop", *argv], capture_output=True, text=True)
    wall = time.monotonic() - t0
    tail = [line for line in done.stdout.splitlines() if line.strip()][-3:]
    print(f"$ mathloop {' '.join(argv)}\n  exit {done.returncode}, {wall:.1f} s wall, load {before} -> {_load()}", flush=True)
    for line in tail:
        print(f"  | {line}", flush=True)
    if done.returncode not in (0,):
        print(done.stderr[-2000:], flush=True)
    return wall


def _together(a: list[str], b: list[str]) -> float:
    """Run two CLI commands at once (one store: WAL and a busy timeout let two lineages commit side by side)."""
    before = _load()
    t0 = time.monotonic()
    procs = [(argv, subprocess.Popen([sys.executable, "-m", "mathloop", *argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)) for argv in (a, b)]
    for argv, proc in procs:
        out, err = proc.communicate()
        print(f"$ mathloop {' '.join(argv)}\n  exit {proc.returncode}, done {time.monotonic() - t0:.1f} s after the start",
              flush=True)
        for line in [x for x in out.splitlines() if x.strip()][-3:]:
            print(f"  | {line}", flush=True)
        if proc.returncode:
            print(err[-2000:], flush=True)
    wall = time.monotonic() - t0
    print(f"  both at once: {wall:.1f} s wall, load {before} -> {_load()}", flush=True)
    return wall


def history(db: str) -> list[tuple[float, str, Fraction, Fraction | None, Fraction | None]]:
    """Return (seconds since the first commit, side, value, primal, width) for every step of the bracket."""
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository
    from mathloop.targets import load_contract
    from mathloop.view.bracket_history import bracket_history

    repo = Repository(make_engine(db))
    steps = bracket_history(repo, load_contract(PRIMAL))
    if not steps:
        return []
    first = min(datetime.fromisoformat(s.at) for s in steps)
    out = []
    for s in steps:
        value = s.primal if s.side == "primal" else s.ceiling
        out.append(((datetime.fromisoformat(s.at) - first).total_seconds(), f"{s.side} ({s.lineage})", Fraction(value),
                    None if s.primal is None else Fraction(s.primal), None if s.width is None else Fraction(s.width)))
    return out


def _places(q: Fraction, places: int, down: bool) -> str:
    """Return q with `places` decimals rounded in its safe direction (a primal down, a ceiling or width up)."""
    n = math.floor(q * 10**places) if down else math.ceil(q * 10**places)
    return f"{n // 10**places}.{n % 10**places:0{places}d}"


def table(rows) -> None:
    print(f"{'elapsed s':>10}  {'side':<46} {'value':>15} {'width':>13}")
    for sec, side, value, _, width in rows:
        shown = _places(value, 12, down=side.startswith("primal"))
        print(f"{sec:10.1f}  {side:<46} {shown:>15} {'' if width is None else _places(width, 10, down=False):>13}")


def picture(rows, out: Path, title: str) -> None:
    """Write out/bracket_width.svg and .png: the width (where both sides exist) against elapsed time, a step line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [(sec, float(w)) for sec, _, _, _, w in rows if w is not None]
    fig, ax = plt.subplots(figsize=(7, 4))
    if pts:
        xs, ys = zip(*pts)
        ax.step([x / 60 for x in xs], ys, where="post", marker="o")
        for x, y in pts[-1:]:
            ax.annotate(f"{y:.3e}", (x / 60, y), textcoords="offset points", xytext=(4, 6))
    for level, label in ((2e-4, "2e-4"), (1e-4, "1e-4")):
        ax.axhline(level, color="grey", linestyle="--", linewidth=0.8)
        ax.text(0, level, label, va="bottom", fontsize=8, color="grey")
    ax.set_yscale("log")
    ax.set_xlabel("minutes since the first commit")
    ax.set_ylabel("bracket width (certified)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    for ext in ("svg", "png"):
        fig.savefig(out / f"bracket_width.{ext}")
    print(f"-> {out / 'bracket_width.svg'}, {out / 'bracket_width.png'}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--primal-limit", type=float, default=600.0)
    r.add_argument("--ceiling-limit", type=float, default=1200.0)
    r.add_argument("--no-lean", action="store_true")
    r.add_argument("--no-audit", action="store_true", help="skip the audits (run them apart, e.g. under their own lock)")
    r.add_argument("--together", action="store_true", help="run the two sessions at the same time, one store")
    r.add_argument("--primal", default=PRIMAL, choices=(PRIMAL, PRIMAL_WIDE),
                   help="the primal lineage (the wide one reaches past 600 nodes, issue 36)")
    p = sub.add_parser("plot")
    p.add_argument("db")
    p.add_argument("out")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.mode == "run":
        db = out / "bracket.db"
        for f in out.glob("bracket.db*"):
            f.unlink()
        lean = ["--no-lean"] if args.no_lean else []
        t0 = time.monotonic()
        first = ["run", args.primal, "--db", str(db), "--time-limit", str(args.primal_limit), "--no-progress", *lean]
        second = ["run", CEILING, "--db", str(db), "--time-limit", str(args.ceiling_limit), "--no-progress", *lean]
        if args.together:
            _together(first, second)
        else:
            _step(first)
            _step(second)
        print(f"both sessions: {time.monotonic() - t0:.1f} s wall", flush=True)
        if not args.no_audit:
            _step(["audit", args.primal, "--db", str(db), "--workers", "2"])
            _step(["audit", CEILING, "--db", str(db), "--workers", "2"])
        db_path = str(db)
    else:
        db_path = args.db
    rows = history(db_path)
    table(rows)
    primal = args.primal if args.mode == "run" else PRIMAL
    picture(rows, out, f"{primal} + {CEILING} from an empty store ({time.strftime('%Y-%m-%d')})")


if __name__ == "__main__":
    main()
