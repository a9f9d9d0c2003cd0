"""Benchmark of `critical-line-zeros`: the rigorous fast Z against the Arb path, and proofs to 10^5 / 10^6.

One run prints: (1) per certified sign, the fast path (float64 Riemann-Siegel with a proved
bound, rs_rigorous) against the Arb path (acb.zeta balls), on real chunks at t ~ 10^5, 10^6, 10^7,
with the share of points that fell back to Arb; (2) wall time to prove all zeros up to 10^5 and
10^6 with 1 and 2 workers (propose -> parse -> check -> order.compare -> advance, what the
search loop does minus the store), the certified count compared with FLINT's
arb(T).zeta_nzeros() at the certified height, and the fallback share over the whole proof. Each
proof writes a checkpoint after every chunk (--checkpoint-dir); --resume continues from it.
The load average is printed next to every figure (the machine is shared).

    nice -n 10 python tests/benchmarks/bench_zeros.py                       # everything
    python tests/benchmarks/bench_zeros.py --heights 1e5 --workers 2        # one proof
    python tests/benchmarks/bench_zeros.py --only-per-point
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mathloop.targets import load_contract  # noqa: E402
from mathloop.domain import Scores  # noqa: E402
from mathloop.order import compare  # noqa: E402
from mathloop.propose.base import Context, Head, payload_sha  # noqa: E402
from mathloop.targets import build_target  # noqa: E402
from mathloop.targets.critical_line_zeros import rs_sum_jit  # noqa: E402
from mathloop.targets.critical_line_zeros.gram import expected_sign  # noqa: E402
from mathloop.targets.critical_line_zeros.hardy_z import definite, evaluate_specs, evaluate_specs_fast  # noqa: E402


def load() -> str:
    """Return the 1-minute load average as text."""
    return f"load {os.getloadavg()[0]:.2f}"


def per_point(height: float, arb_sample: int = 120) -> dict:
    """Return per-point seconds of both paths and the fallback share on one real chunk near `height`."""
    target = build_target(load_contract("critical-line-zeros"))
    from flint import arb

    m = int(arb(height).zeta_nzeros().unique_fmpz()) - 1
    while definite("g", m, (64, 128)).sign != expected_sign(m):
        m += 1
    proposer = target.local_proposer(0)
    proposer.workers = 1
    chunk = proposer.chunks_from(m, 1)[0]
    specs = [("g", str(k)) for k in range(chunk["start"], chunk["blocks"][-1]["end"] + 1)]
    specs += [("q", t) for b in chunk["blocks"] for t in b["points"]]
    ladder = target.settings.check.ladder
    evaluate_specs_fast(specs, ladder)  # warm the tables (and compile the numba block once)
    _, (decided, fell_back) = evaluate_specs_fast(specs, ladder)

    def median_of_5() -> tuple[float, float]:
        # A chunk takes a few ms, so one timing can be hit by a context switch on the shared machine;
        # the median of 5 whole runs (fallbacks to Arb included) is the figure, wall and CPU time.
        runs = []
        for _ in range(5):
            t0, c0 = time.perf_counter(), time.process_time()
            evaluate_specs_fast(specs, ladder)
            runs.append(((time.perf_counter() - t0) / len(specs), (time.process_time() - c0) / len(specs)))
        return sorted(r[0] for r in runs)[2], sorted(r[1] for r in runs)[2]

    fast, fast_cpu = median_of_5()
    os.environ["MATHLOOP_FAST_Z_JIT"] = "0"  # the same path with the numpy block (the same bits, slower)
    fast_numpy, _ = median_of_5()
    os.environ.pop("MATHLOOP_FAST_Z_JIT")
    sub = specs[:: max(1, len(specs) // arb_sample)]
    t0, c0 = time.perf_counter(), time.process_time()
    evaluate_specs(sub, ladder)
    arb_s, arb_cpu = (time.perf_counter() - t0) / len(sub), (time.process_time() - c0) / len(sub)
    return {"height": height, "points": len(specs), "fast_s": fast, "fast_numpy_s": fast_numpy, "arb_s": arb_s, "decided": decided,
            "fell_back": fell_back, "fast_cpu_s": fast_cpu, "arb_cpu_s": arb_cpu}


def prove_until(height: Fraction, workers: int, checkpoint: Path | None, resume: bool, samples: int = 2) -> dict:
    """Return timings and the certified (height, count) once the certified height reaches `height`."""
    os.environ["MATHLOOP_WORKERS"] = str(workers)  # one process now: the figure is per process
    contract = load_contract("critical-line-zeros")
    target = build_target(contract)
    specs = {b.name: b for b in contract.bounds}
    t0 = time.perf_counter()
    state, bounds, ranks, chunks, elapsed0, decided, fell_back = None, {}, {}, 0, 0.0, 0, 0
    if resume and checkpoint and checkpoint.exists():
        cp = json.loads(checkpoint.read_text())
        state, chunks, elapsed0, decided, fell_back = cp["state"], cp["chunks"], cp["elapsed"], cp["decided"], cp["fell_back"]
        bounds = {k: Fraction(v) for k, v in cp["bounds"].items()}
        ranks = cp["ranks"]
    if state is None:
        ev = target.check(None, target.parse(contract.seed))
        state, bounds, ranks = ev.state, dict(ev.bounds), dict(ev.ranks)
        scores = Scores.of(ev)
    else:
        scores = None
    proposer = target.local_proposer(0)
    rnd, seen, refused = 0, set(), 0
    while bounds.get("height", 0) < height:
        head = Head(f"mem{rnd}", rnd, state, ranks, bounds)
        ctx = Context(contract, head, tuple(k for k, r in ranks.items() if r), (), frozenset(seen), rnd, samples)
        proposals = proposer.propose(ctx)
        if not proposals:
            raise RuntimeError("proposer exhausted before the goal")
        for p in proposals:
            new = target.check(state, target.parse(p.payload))
            if scores is not None:
                cmp = compare(scores, Scores.of(new), specs)
                if not cmp.passes_gate:
                    seen.add(payload_sha(p.payload))  # as the loop does: the proposer refines next round
                    refused += 1
                    break
            scores, state, bounds, ranks = Scores.of(new), new.state, dict(new.bounds), dict(new.ranks)
            fz = new.precision.get("fast_z", {})
            decided += fz.get("decided", 0)
            fell_back += fz.get("fell_back_to_arb", 0)
            chunks += 1
            if checkpoint:
                checkpoint.write_text(json.dumps({"state": state, "bounds": {k: str(v) for k, v in bounds.items()}, "ranks": ranks,
                                                  "chunks": chunks, "elapsed": elapsed0 + time.perf_counter() - t0,
                                                  "decided": decided, "fell_back": fell_back}))
            if bounds.get("height", 0) >= height:
                break
        rnd += 1
    from flint import arb, ctx

    with ctx.workprec(128):
        h = bounds["height"]
        flint_n = int((arb(h.numerator) / h.denominator).zeta_nzeros().unique_fmpz())
    return {"seconds": elapsed0 + time.perf_counter() - t0, "height": bounds["height"], "count": int(bounds["count"]),
            "flint_count": flint_n, "chunks": chunks, "decided": decided, "fell_back": fell_back,
            "blocks": state["blocks_verified"], "refused": refused}


def _dask_processes(workers: int, tmp: Path):
    """Start `dask scheduler` and `workers` × `dask worker --no-nanny --nthreads 1` as separate processes
    (what a deployment runs); return (address, processes)."""
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    logs = [open(tmp / f"dask{i}.log", "wb") for i in range(workers + 1)]
    # As the README says to start workers: checks in killable children, and no stack profiler (it samples
    # the worker's thread every 10 ms, and that thread only waits for the checker child).
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False", DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED="False")
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], stdout=logs[0], stderr=subprocess.STDOUT, env=env)]
    procs += [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                "--no-nanny", "--no-dashboard"], stdout=logs[i + 1], stderr=subprocess.STDOUT, env=env)
              for i in range(workers)]
    from distributed import Client

    try:
        with Client(address, timeout=60) as c:
            c.wait_for_workers(workers, timeout=60)
    except BaseException:
        for p in procs:
            p.kill()
        raise
    finally:
        for f in logs:
            f.close()  # the children hold their own copies
    return address, procs


def executor_throughput(kind: str, budget: int, workers: int = 2, samples: int | None = None) -> dict:
    """Return chunks/s of a real session (SQLite store, gate, commits) with `kind` = none | local | dask | dask-inproc.

    `dask`: a scheduler and `workers` workers as separate processes (`dask scheduler`, `dask worker`);
    `dask-inproc`: distributed.LocalCluster, whose scheduler runs in the session's own process.
    """
    import tempfile

    from mathloop.check.dask import DaskExecutor

    from mathloop.check.executors import LocalPool
    from mathloop.search.loop import Session, SessionLimits
    from mathloop.check.runner import ProcessRunner
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository

    contract = load_contract("critical-line-zeros")
    target = build_target(contract)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Repository(make_engine(str(Path(tmp) / "x.db"), create=True))
        runner = ProcessRunner(600)
        cluster = ex = None
        procs = []
        if kind == "local":
            ex = LocalPool(workers, 600)
        elif kind == "dask-inproc":
            import dask
            from distributed import LocalCluster

            with dask.config.set({"distributed.worker.daemon": False}):
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            ex = DaskExecutor(cluster.scheduler_address, 600)
        elif kind == "dask":
            address, procs = _dask_processes(workers, Path(tmp))
            ex = DaskExecutor(address, 600)
        try:
            session = Session(contract, repo, runner, executor=ex)
            session.ensure_root()  # warms the sequential runner's child with the seed's check
            if ex:
                ex.warm(contract)  # and each worker's, as `mathloop run` does
            prop = target.local_proposer(0)
            import psutil

            def cpu() -> float:  # CPU seconds of the session and the dask processes, checker children excluded
                return sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in [os.getpid()] + [p.pid for p in procs])

            c0 = cpu()
            t0 = time.perf_counter()
            samples = (samples or ex.in_flight) if ex else 1
            summary = session.run(prop, SessionLimits(budget=budget, samples=samples))
            secs = time.perf_counter() - t0
            overhead = cpu() - c0
        finally:
            runner.close()
            if ex:
                ex.close()
            if cluster:
                cluster.close()
            for p in procs:
                p.terminate()
                p.wait(30)
    return {"kind": kind, "samples": samples, "seconds": secs, "commits": summary.commits, "rate": summary.commits / secs,
            "height": float(summary.head.bounds.get("height", 0)), "cpu_s": overhead}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--heights", default="1e5,1e6", help="comma-separated proof heights")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    ap.add_argument("--checkpoint-dir", type=Path, default=Path(".bench-zeros"))
    ap.add_argument("--resume", action="store_true", help="continue each proof from its checkpoint")
    ap.add_argument("--only-per-point", action="store_true")
    ap.add_argument("--skip-per-point", action="store_true")
    ap.add_argument("--executors", type=int, default=0, metavar="CHUNKS",
                    help="only compare session throughput: sequential, local pool and dask with 2 workers, CHUNKS commits each")
    ap.add_argument("--executor-samples", type=int, default=None,
                    help="proposals per round for every executor (default: each executor's own in_flight, as `mathloop run` uses)")
    ap.add_argument("--executor-kinds", default="none,local,dask,dask-inproc",
                    help="which sessions --executors runs (none | local | dask | dask-inproc)")
    args = ap.parse_args()
    if args.executors:
        for kind in args.executor_kinds.split(","):
            r = executor_throughput(kind, args.executors, samples=args.executor_samples)
            print(f"session with executor {kind:11s} ({r['samples']} per round): {r['commits']} commits in {r['seconds']:.1f} s = {r['rate']:.2f} chunks/s "
                  f"(height {r['height']:.0f}); session + scheduler + worker processes used {r['cpu_s']:.1f} CPU-s "
                  f"besides the checks  [{load()}]", flush=True)
        return
    if not args.skip_per_point:
        for h in (1e5, 1e6, 1e7):
            r = per_point(h)
            share = r["fell_back"] / max(1, r["decided"] + r["fell_back"])
            jit = "numba block" if rs_sum_jit.available() else "numpy block (numba not installed)"
            print(f"per point at t ~ {h:.0e}: fast {r['fast_s'] * 1e6:.2f} us ({jit}), Arb {r['arb_s'] * 1e6:.0f} us, ratio "
                  f"{r['arb_s'] / r['fast_s']:.0f}x; numpy block {r['fast_numpy_s'] * 1e6:.2f} us ({r['arb_s'] / r['fast_numpy_s']:.0f}x); "
                  f"CPU time {r['fast_cpu_s'] * 1e6:.2f} us vs {r['arb_cpu_s'] * 1e6:.0f} us ({r['arb_cpu_s'] / r['fast_cpu_s']:.0f}x); "
                  f"fell back to Arb {r['fell_back']}/{r['points']} ({100 * share:.2f} %)  [{load()}]", flush=True)
    if args.only_per_point:
        return
    args.checkpoint_dir.mkdir(parents=True, exist_ok=True)
    for h in [float(x) for x in args.heights.split(",")]:
        for w in [int(x) for x in args.workers.split(",")]:
            cp = args.checkpoint_dir / f"prove-{h:.0e}-w{w}.json"
            r = prove_until(Fraction(int(h)), w, cp, args.resume)
            share = r["fell_back"] / max(1, r["decided"] + r["fell_back"])
            ok = "equal" if r["count"] == r["flint_count"] else f"DIFFERENT (flint {r['flint_count']})"
            print(f"prove to {h:.0e} with {w} worker{'s' if w > 1 else ''}: {r['seconds']:.1f} s; certified height "
                  f"{float(r['height']):.6f}, count {r['count']} ({ok} to arb(T).zeta_nzeros()), {r['chunks']} chunks, "
                  f"{r['blocks']} blocks, {r['refused']} refused and re-proposed; fast-path signs {r['decided']}, fell back {r['fell_back']} ({100 * share:.3f} %)  [{load()}]",
                  flush=True)


if __name__ == "__main__":
    main()
