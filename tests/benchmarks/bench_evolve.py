"""Benchmark: the evolve loop with the pinned small model — certified commits from model-written programs.

For each target (C1b = erdos-minimum-overlap, C1a = sidon-autocorrelation), one `mathloop run --proposer openai
--form program` session of `--minutes` wall-clock minutes on a fresh store, with Qwen2.5-Coder-1.5B-Instruct (Q4_K_M,
llama-cpp-python's server on the same 2 cores), then per session:

    commits/new   certified commits after the root (each the output of a program the model wrote or edited) / those
                  whose program is not a copy of program A as shown (the starter, or the best program then)
    starter       the value the target's starter program (program A before any program exists) certifies alone
    best          the best certified value of the session (the head), exact digits
    cands         candidates recorded; programs: programs run in the sandbox; diff/full: reply shapes
    off-form      replies that gave no program; failed: programs that printed no usable candidate
    repeats       outputs equal to a stored candidate (recorded, not checked)
    copies        programs that only copied program A as shown (up to blanks)
    tok/cand      prompt + completion tokens per candidate; s/cand wall-clock seconds per candidate
    tok/s         completion tokens per second of request time (the server's generation speed, prompt included)
    audit         `mathloop audit` of the store

Run under the shared lock, with the load printed before and after:

    flock /work/bench.lock python tests/benchmarks/bench_evolve.py --minutes 20 --json /tmp/evolve.jsonl

Not part of any test tier (20 minutes per target).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_model_tier import MODELS, serve, sha256_of  # noqa: E402
from tests.integration.model_server import stop  # noqa: E402

TARGETS = {"erdos-minimum-overlap": "C1b", "sidon-autocorrelation": "C1a"}


def mathloop(*args: str, env: dict[str, str], timeout: float = 7200) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathloop", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def starter_value(target: str, workdir: Path, env: dict[str, str]) -> str:
    from mathloop.propose.program_prompt import starter

    path = workdir / f"{target}-starter.py"
    path.write_text(starter(target, {}))
    out = mathloop("check", target, "--program", str(path), "--json", env=env)
    return json.loads(out.stdout)["bounds"].get(TARGETS[target], "none") if out.stdout.strip() else "failed"


def session(target: str, model: str, base_url: str, args, workdir: Path, env: dict[str, str]) -> dict:
    db = workdir / f"{target}.sqlite"
    t0 = time.monotonic()
    run = mathloop("run", target, "--proposer", "openai", "--form", "program", "--model", model, "--base-url",
                   base_url, "--db", str(db), "--budget", "100000", "--time-limit", str(args.minutes * 60),
                   "--samples", str(args.samples), "--concurrency", "1", "--max-tokens", str(args.max_tokens),
                   "--temperature", str(args.temperature), "--request-timeout", "600", "--program-time",
                   str(args.program_time), "--prompt-chars", str(args.prompt_chars), "--no-lean", "--no-progress",
                   env=env)
    seconds = time.monotonic() - t0
    if run.returncode != 0:
        raise SystemExit(f"{target}: mathloop run failed ({run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    records = workdir / f"{target}.jsonl"
    mathloop("export", target, "--db", str(db), "--records", str(records), env=env)
    rows = [json.loads(line) for line in records.read_text().splitlines() if line.strip()]
    log = json.loads(mathloop("log", target, "--db", str(db), "--json", env=env).stdout)
    audit = mathloop("audit", target, "--db", str(db), env=env)
    model_rows = [r for r in rows if str(r.get("proposer", "")).startswith("openai:")]
    meta = [r.get("meta", {}) for r in model_rows]
    reasons = [(r.get("reasons") or [""])[0] for r in model_rows]
    bound = TARGETS[target]
    head = log[-1]
    return {
        "target": target, "bound": bound, "model": model, "minutes": args.minutes, "seconds": round(seconds, 1),
        "commits": len(log) - 1,
        "commits_from_programs": sum(1 for c in log[1:] if "program" in c),
        # commits whose program is not program A shown to the model (byte for byte, or up to blanks)
        "commits_new_programs": sum(1 for r in model_rows if r.get("commit") and not r.get("meta", {}).get(
            "program_copies_parent") and not _same(r, args.starter_texts.get(target))),
        "starter": args.starters.get(target), "best": head["bounds"].get(bound),
        "best_exact": head["bounds_exact"].get(bound), "candidates": len(model_rows),
        "programs": sum(1 for m in meta if "program" in m and "run" in m["program"]),
        "shapes": dict(Counter(m.get("program_shape", "none") for m in meta)),
        "labels": dict(Counter(r["label"] for r in model_rows)),
        "off_form": sum(1 for why in reasons if why.startswith(("reply off the program form", "truncated"))),
        "failed": sum(1 for m, why in zip(meta, reasons) if "program" in m and why.startswith(("program ", "stopped"))),
        "repeats": sum(1 for m in meta if m.get("repeat_of")),
        "copies": sum(1 for m in meta if m.get("program_copies_parent")),
        "tokens": sum(int(m.get("prompt_tokens", 0)) + int(m.get("completion_tokens", 0)) for m in meta),
        "completion_tokens": sum(int(m.get("completion_tokens", 0)) for m in meta),
        "request_seconds": round(sum(float(m.get("latency_s", 0.0)) for m in meta), 1),
        "audit": "ok" if audit.returncode == 0 and "audit ok" in audit.stdout else f"FAILED: {audit.stdout[-300:]}",
        "best_program": next((c["program"]["text"] for c in reversed(log) if "program" in c), None),
    }


def _same(record: dict, starter: str | None) -> bool:
    """Return whether a record's program is the starter up to blanks (stores written before the copy flag)."""
    text = record.get("meta", {}).get("program", {}).get("text")
    return starter is not None and isinstance(text, str) and text.split() == starter.split()


def row(r: dict) -> str:
    n = max(r["candidates"], 1)
    return (f"{r['target']:<22} {r['commits']:>4}/{r['commits_new_programs']:<3} {r['starter']:>11} {r['best']:>11} {r['candidates']:>6} "
            f"{r['programs']:>8} {r['shapes'].get('diff', 0):>4}/{r['shapes'].get('full', 0):<4} {r['off_form']:>8} "
            f"{r['failed']:>6} {r['copies']:>6} {r['repeats']:>7} {r['tokens'] / n:>8.0f} {r['seconds'] / n:>6.1f} {_rate(r):>5} {r['audit']:>5}")


def _rate(r: dict) -> str:
    return f"{r['completion_tokens'] / r['request_seconds']:.1f}" if r["request_seconds"] else "-"


HEADER = (f"{'target':<22} {'commits/new':>8} {'starter':>11} {'best':>11} {'cands':>6} {'programs':>8} {'diff/full':>9} "
          f"{'off-form':>8} {'failed':>6} {'copies':>6} {'repeats':>7} {'tok/cand':>8} {'s/cand':>6} {'tok/s':>5} {'audit':>5}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--model", default="1.5b", choices=sorted(MODELS))
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=768)
    ap.add_argument("--temperature", type=float, default=0.7)
    ap.add_argument("--program-time", type=float, default=20.0)
    ap.add_argument("--prompt-chars", type=int, default=8000)
    ap.add_argument("--threads", type=int, default=1)  # two starve under load (docs/models.md)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--json", help="append one JSON line per session (with the best program's text)")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda s, f: (_ for _ in ()).throw(SystemExit(f"terminated by signal {s}")))
    env = dict(os.environ, COLUMNS="200")
    env.pop("MATHLOOP_DB", None)
    model = MODELS[args.model]
    if model.sha256 is not None and sha256_of(model.path()) != model.sha256:
        raise SystemExit(f"{model.path()}: sha256 differs from the pinned {model.sha256}")
    print(f"load before: {load()} (1-min average)", flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-evolve-") as tmp:
        targets = [t for t in args.targets.split(",") if t]
        args.starters = {t: starter_value(t, Path(tmp), env) for t in targets}
        from mathloop.propose.program_prompt import starter

        args.starter_texts = {t: starter(t, {}) for t in targets}
        proc, base_url = serve(model, args.threads, args.n_ctx, Path(tmp))
        try:
            for t in targets:
                r = session(t, model.alias, base_url, args, Path(tmp), env)
                results.append(r)
                print(HEADER + "\n" + row(r), flush=True)
                if args.json:
                    with open(args.json, "a") as f:
                        f.write(json.dumps(r) + "\n")
        finally:
            stop(proc)
    print(f"\nload after: {load()} (1-min average)")
    print(f"{model.alias}: {args.minutes:g} min per target, samples {args.samples}, max_tokens {args.max_tokens}, "
          f"temperature {args.temperature}, program time {args.program_time:g} s, prompt {args.prompt_chars} chars, "
          f"{args.threads} server threads, n_ctx {args.n_ctx}")
    print(HEADER)
    for r in results:
        print(row(r))
    for r in results:
        print(f"\n{r['target']}: best {r['bound']} = {r['best']} (exact {r['best_exact']}), labels {r['labels']}")


if __name__ == "__main__":
    main()
