"""Benchmark: throughput of Environment.score_batch on a realistic mix of 1,000 completions.

The mix is what a policy under RL emits: 40 % malformed (prose claims, broken or truncated JSON,
NaN, oversized replies, payloads the strict parser refuses), many duplicates (the same candidate
re-sampled, re-wrapped in prose or code fences), and valid candidates (improvements, regressions,
non-symmetric Q). Each worker count starts from an empty cache. Prints completions/s per worker
count, the machine's core count and its load average (the machine may be shared). Usage:

    python tests/benchmarks/bench_score.py [--n 1000] [--workers 1 2] [--target levinson-conrey] [--mix distinct]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mathloop.env import Environment, clear_cache  # noqa: E402


def _candidate(rng: random.Random) -> dict:
    r = f"{rng.randint(1000, 1400)}/1000"
    kind = rng.random()
    if kind < 0.15:  # not symmetric: a regression
        return {"P": ["0", "1"], "Q": ["1", "-1", str(rng.randint(1, 9))], "R": r}
    if kind < 0.5:
        a = rng.randint(-300, 300)
        return {"P": ["0", f"{1000 - a}/1000", f"{a}/1000"], "Q": ["1", "-1"], "R": r}
    return {"P": ["0", "1"], "Q": ["1", "-1"], "R": r}


def _malformed(rng: random.Random) -> str:
    r = rng.randint(1000, 1400)
    return rng.choice([
        f"I have proved that kappa >= 0.{rng.randint(41, 99)}. The certificate is left to the reader.",
        '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "' + str(r),  # cut at max_tokens
        '{"P": ["0", "1"], "Q": ["1", "-1"], "R": NaN}',
        '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "%d/0"}' % r,  # refused by the target's parser
        '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "1/1", "kappa": "0.99"}',
        '{"P": ["0", "1"], "Q": "1 - x", "R": "%d/1000"}' % r,
        "Sure! Here is a candidate: P = x, Q = 1 - x, R = 1.3",
        "x" * 70_000,
        "",
    ])


def completions(n: int, seed: int = 0) -> list[str]:
    """Return n completions: 40 % malformed, the rest valid candidates with many duplicates."""
    rng = random.Random(seed)
    distinct = [_candidate(rng) for _ in range(max(1, n // 4))]
    out = []
    for i in range(n):
        if i % 5 < 2:
            out.append(_malformed(rng))
            continue
        p = rng.choice(distinct)
        wrap = rng.random()
        text = json.dumps(p) if wrap < 0.6 else (f"```json\n{json.dumps(p, indent=2)}\n```" if wrap < 0.8
                                                else f"My best guess (kappa 0.45!): {json.dumps(p)}")
        out.append(text)
    rng.shuffle(out)
    return out


def distinct(n: int, seed: int = 0) -> list[str]:
    """Return n distinct valid candidates (the worst case for the cache: every completion is checked)."""
    return [json.dumps({"P": ["0", "1"], "Q": ["1", "-1"], "R": f"{100000 + i}/100000"}) for i in range(n)]


def measure(target: str, texts: list[str], workers: int) -> dict:
    clear_cache()
    with Environment(target, workers=workers) as env:
        t0 = time.perf_counter()
        scores = env.score_batch(texts)
        seconds = time.perf_counter() - t0
        checks = env.checks_run
    labels = Counter(s.label.value for s in scores)
    return {"workers": workers, "completions": len(texts), "seconds": round(seconds, 3),
            "completions_per_s": round(len(texts) / seconds, 1), "child_checks": checks,
            "labels": dict(sorted(labels.items()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--target", default="levinson-conrey")
    ap.add_argument("--mix", choices=("realistic", "distinct"), default="realistic",
                    help="realistic: 40 %% malformed, duplicates; distinct: every completion a new valid candidate")
    args = ap.parse_args()
    texts = completions(args.n) if args.mix == "realistic" else distinct(args.n)
    print(f"target {args.target}, {len(texts)} completions ({args.mix}), {os.cpu_count()} cores, "
          f"load average before {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for w in args.workers:
        print(json.dumps(measure(args.target, texts, w)))
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
