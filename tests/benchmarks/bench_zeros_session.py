"""Benchmark of a real `critical-line-zeros` session: zeros per second, memory, store bytes, FLINT counts, audit time.

A `Session` (SQLite store, gate, commits) on the shipped compact lineage with the local pool
(check/executors.py) of N checker children, run until the certified height reaches --to. Resumable: a
second run with the same --db continues from the stored head (the figures then cover this run).
It prints the rate overall and per decade of height, the resident memory (session + its children)
when the height passes 10^5, 10^6 and 10^7, the store's bytes per 10^6 zeros, the session's own CPU
per chunk against the workers', ten stored (height, count) pairs against FLINT's
`arb(T).zeta_nzeros()`, and with --audit the time of `audit` re-checking the whole store on the same
number of checker children (--audit-serial: on one), against this run's proof time.

    flock /work/wt/bench.lock python tests/benchmarks/bench_zeros_session.py --to 1e6 --db /tmp/z.db --audit
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mathloop.propose.base import Proposer, StopSession  # noqa: E402
from mathloop.search.loop import Observer  # noqa: E402
from mathloop.targets import build_target, load_contract  # noqa: E402


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


class UntilHeight(Proposer):
    """The target's proposer, stopping the session once the head's certified height reaches `goal`."""

    def __init__(self, inner, goal: Fraction) -> None:
        self.inner, self.goal, self.name = inner, goal, inner.name
        self.seconds = 0.0
        self.cpu = 0.0

    def propose(self, ctx):
        h = ctx.head.bounds.get("height") if ctx.head is not None else None
        if h is not None and Fraction(h) >= self.goal:
            raise StopSession(f"height {float(h):.0f} reached")
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            return self.inner.propose(ctx)
        finally:
            self.seconds += time.perf_counter() - t0
            self.cpu += time.thread_time() - c0

    def use_child(self, child) -> None:
        """Hand the loop's proposer child on (the inner proposer then proposes each next round ahead)."""
        self.inner.use_child(child)


class Watch(Observer):
    """Observer: the height over time, and the memory when the height passes each decade."""

    def __init__(self, procs) -> None:
        self.procs = procs
        self.t0 = time.perf_counter()
        self.marks: list[tuple[float, float, int]] = []  # (seconds, height, count)
        self.rss: dict[int, float] = {}

    def candidate(self, label, head, summary) -> None:
        h = head.bounds.get("height")
        if h is None:
            return
        h, n = float(h), int(head.bounds["count"])
        self.marks.append((time.perf_counter() - self.t0, h, n))
        for e in (5, 6, 7):
            if h >= 10**e and e not in self.rss:
                self.rss[e] = self.procs()


def rss_mib() -> str:
    """Return the resident memory of the session process and of its checker children, in MiB."""
    import psutil

    me = psutil.Process()
    kids = [c.memory_info().rss / 2**20 for c in me.children(recursive=True)]
    return f"session {me.memory_info().rss / 2**20:.0f} + children " + "/".join(f"{k:.0f}" for k in kids)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--to", type=float, default=1e6, help="certified height to reach")
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--contract", default="critical-line-zeros")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--samples", type=int, default=0, help="proposals per round (default: the pool's in_flight)")
    ap.add_argument("--no-ahead", action="store_true", help="propose every round in the session, between checks")
    ap.add_argument("--audit", action="store_true", help="then time `audit` of the whole store on --workers children")
    ap.add_argument("--audit-serial", action="store_true", help="then time the serial audit (one child) too")
    ap.add_argument("--time-limit", type=float, default=None, help="stop after this many seconds (resume with the same --db)")
    args = ap.parse_args()

    import psutil

    from mathloop.check.executors import LocalPool
    from mathloop.search.loop import Session, SessionLimits
    from mathloop.check.runner import ProcessRunner
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository

    contract = load_contract(args.contract)
    target = build_target(contract)
    repo = Repository(make_engine(str(args.db), create=True))
    runner = ProcessRunner(float(contract.check_timeout_s))
    pool = LocalPool(args.workers, float(contract.check_timeout_s))
    print(f"[{load()}] {args.contract}: to {args.to:.4g} with {pool.name}; store {args.db}", flush=True)
    try:
        session = Session(contract, repo, runner, executor=pool)
        start = session.ensure_root()
        pool.warm(contract)
        n0 = int(start.bounds.get("count") or 0)
        prop = UntilHeight(target.local_proposer(0, ahead=not args.no_ahead), Fraction(int(args.to)))
        watch = Watch(rss_mib)
        kids = lambda: [c for c in psutil.Process().children(recursive=True)]  # noqa: E731
        cpu_kids0 = {c.pid: sum(c.cpu_times()[:2]) for c in kids()}
        c0, t0 = time.process_time(), time.perf_counter()
        summary = session.run(prop, SessionLimits(budget=10**9, time_limit_s=args.time_limit,
                                                        samples=args.samples or pool.in_flight), observer=watch)
        wall, session_cpu = time.perf_counter() - t0, time.process_time() - c0
        checkers = set(pool.pids()) | {runner.pid}
        cpu = {c.pid: sum(c.cpu_times()[:2]) - cpu_kids0.get(c.pid, 0.0) for c in kids()}
        worker_cpu = sum(v for pid, v in cpu.items() if pid in checkers)
        ahead_cpu = sum(v for pid, v in cpu.items() if pid not in checkers)  # the proposer child (ahead.py)
    finally:
        pool.close()
        runner.close()
        getattr(prop.inner, "close", lambda: None)()
    head = summary.head
    n1 = int(head.bounds.get("count") or 0)
    zeros = n1 - n0
    print(f"[{load()}] {summary.outcome}: {summary.commits} commits, {zeros} zeros in {wall:.1f} s = {zeros / wall:,.0f} zeros/s; "
          f"height {float(head.bounds.get('height', 0)):.3f}, N = {n1}; labels {dict(summary.labels)}", flush=True)
    print(f"proposer {prop.seconds:.1f} s wall, {prop.cpu:.1f} s CPU in the session, {ahead_cpu:.1f} s CPU in its child "
          f"({prop.inner.stats()}); session process CPU {session_cpu:.1f} s "
          f"({1000 * session_cpu / max(1, summary.commits):.0f} ms per commit), checker children CPU {worker_cpu:.1f} s "
          f"({1000 * worker_cpu / max(1, summary.commits):.0f} ms per commit)", flush=True)
    for lo, hi in ((0, 1e5), (1e5, 1e6), (1e6, 1e7)):
        w = [(s, n) for s, h, n in watch.marks if lo <= h < hi * 1.05]
        if len(w) > 2:
            (s_a, n_a), (s_b, n_b) = w[0], w[-1]
            if s_b > s_a:
                print(f"  height {lo:.0e}..{hi:.0e}: {(n_b - n_a) / (s_b - s_a):,.0f} zeros/s over {s_b - s_a:.1f} s", flush=True)
    print("  RSS (session + children) when the height passed " + "; ".join(f"10^{e}: {v} MiB" for e, v in sorted(watch.rss.items())), flush=True)
    size = sum(p.stat().st_size for p in args.db.parent.glob(args.db.name + "*"))
    print(f"  store {size / 2**20:.1f} MiB for N = {n1}: {size / max(1, n1) * 1e6 / 2**20:.2f} MiB per 10^6 zeros", flush=True)
    _flint_counts(repo, contract)
    if args.audit:
        _time_audit(contract, repo, args.workers, wall)
    if args.audit_serial:
        _time_audit(contract, repo, 1, wall)


def _time_audit(contract, repo, workers: int, proof_s: float) -> None:
    """Print the time of `audit` re-checking the whole store on `workers` checker children (1: the serial audit)."""
    from mathloop.check.executors import LocalPool
    from mathloop.audit.report import audit_store
    from mathloop.check.runner import ProcessRunner

    t0 = time.perf_counter()  # the children's start counts: `mathloop audit` pays it too
    r = ProcessRunner(float(contract.check_timeout_s))
    pool = LocalPool(workers, float(contract.check_timeout_s)) if workers > 1 else None
    try:
        report = audit_store(contract, repo, r, executor=pool)
    finally:
        r.close()
        if pool is not None:
            pool.close()
    took = time.perf_counter() - t0
    print(f"[{load()}] audit ({pool.name if pool else 'serial, 1 child'}): {report.commits} commits re-checked in "
          f"{took:.1f} s, {len(report.findings)} findings; this run's proof took {proof_s:.1f} s "
          f"(audit / proof = {took / max(proof_s, 1e-9):.2f})", flush=True)


def _flint_counts(repo, contract) -> None:
    """Print ten stored (height, count) pairs, evenly spread over the chain, against FLINT's zeta_nzeros."""
    from flint import arb, ctx

    from mathloop.store import raw
    from mathloop.store.repository import CommitRecord

    rows = [CommitRecord.of(r) for r in raw.commit_rows(repo.engine, contract.sha256)]
    rows = [r for r in rows if r.bounds.get("height") is not None]
    picks = [rows[int(i * (len(rows) - 1) / 9)] for i in range(10)] if len(rows) >= 10 else rows
    ok = 0
    for r in picks:
        h = Fraction(r.bounds["height"])
        with ctx.workprec(128):
            f = int((arb(h.numerator) / h.denominator).zeta_nzeros().unique_fmpz())
        ok += f == int(r.bounds["count"])
        print(f"  T = {float(h):.6f}: N = {int(r.bounds['count'])}, FLINT {f} {'equal' if f == int(r.bounds['count']) else 'DIFFERENT'}", flush=True)
    print(f"  {ok}/{len(picks)} counts equal to FLINT's", flush=True)


if __name__ == "__main__":
    main()
