"""Benchmark: the same session with --proposer openai and --proposer openai+local against a real model.

Starts llama-cpp-python serving SmolLM2-135M (see tests/integration/model_server.py), runs
`mathloop run levinson-conrey` twice with the same budget on fresh stores, and prints per run:
candidates/minute, share malformed, share per label, tokens per candidate, and the best
certified bound. Usage:

    python tests/benchmarks/bench_model.py [--budget 20] [--samples 4] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.integration.model_server import missing_requirements, serve_model  # noqa: E402


def mathloop(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from mathloop.cli.app import main; main()", *args],
                          capture_output=True, text=True, env=env, timeout=3600)


def one_session(proposer: str, server, budget: int, samples: int, seed: int, workdir: Path, env: dict[str, str]) -> dict:
    """Run one session on a fresh store; return its measured figures."""
    db = workdir / f"{proposer.replace('+', '_')}.sqlite"
    t0 = time.monotonic()
    run = mathloop("run", "levinson-conrey", "--proposer", proposer, "--model", server.model, "--base-url",
                   server.base_url, "--budget", str(budget), "--samples", str(samples), "--concurrency", "1",
                   "--max-tokens", "256", "--request-timeout", "120", "--seed", str(seed), "--db", str(db),
                   "--no-progress", env=env)
    seconds = time.monotonic() - t0
    if run.returncode != 0:
        raise SystemExit(f"{proposer}: mathloop run failed ({run.returncode}):\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    records_file = workdir / f"{proposer.replace('+', '_')}.jsonl"
    mathloop("export", "levinson-conrey", "--records", str(records_file), "--db", str(db), env=env)
    records = [json.loads(x) for x in records_file.read_text().splitlines()]
    model = [r for r in records if r["proposer"].startswith(f"{proposer}:")]
    labels = Counter(r["label"] for r in model)
    tokens = sum(int(r["meta"].get("prompt_tokens", 0)) + int(r["meta"].get("completion_tokens", 0)) for r in model)
    status = json.loads(mathloop("status", "levinson-conrey", "--db", str(db), "--json", env=env).stdout)
    polished = sum(1 for r in model if r["meta"].get("polish") == "polished")
    return {
        "proposer": proposer, "candidates": len(model), "seconds": round(seconds, 1),
        "candidates_per_minute": round(60 * len(model) / seconds, 2) if seconds else None,
        "share_malformed": round(labels["malformed"] / len(model), 3) if model else None,
        "share_per_label": {k: round(v / len(model), 3) for k, v in sorted(labels.items())},
        "tokens_per_candidate": round(tokens / len(model), 1) if model else None,
        "polished": polished,
        "best_certified_kappa": status["head"]["bounds"].get("kappa"),
        "commits": sum(1 for r in model if r.get("commit")),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=int, default=20)
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    why = missing_requirements()
    if why:
        raise SystemExit(f"cannot run: {why}")
    env = dict(os.environ, COLUMNS="200")
    env.pop("MATHLOOP_DB", None)
    with tempfile.TemporaryDirectory(prefix="bench-model-") as tmp, serve_model(log_dir=Path(tmp)) as server:
        results = [one_session(p, server, args.budget, args.samples, args.seed, Path(tmp), env)
                   for p in ("openai", "openai+local")]
    print(f"model {server.model} via llama-cpp-python, budget {args.budget} candidates, samples {args.samples}")
    for r in results:
        print(json.dumps(r))
    a, b = (r["best_certified_kappa"] for r in results)
    print(f"best certified kappa: openai {a}  openai+local {b}  "
          f"({'openai+local higher' if b and a and float(b) > float(a) else 'openai+local NOT higher'})")


if __name__ == "__main__":
    main()
