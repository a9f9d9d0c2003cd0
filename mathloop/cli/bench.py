"""`mathloop bench SPEC.toml`: every (proposer, target, seed) in its own fresh store under one frozen protocol.

Runs are ordered target, seed, proposer, so that the runs of one pair are close in time (the machine's
load drifts). The evidence directory holds protocol.json, results.json and, per run,
runs/<proposer>/<target>/seed-<n>/{store.db, dataset/}. A model endpoint that never answers a run is
given up on as `run --proposer openai` gives up on it (the same OpenAIOptions); the bench then stops
with exit 1, keeping the results of the runs made so far (results.json, "complete": false).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mathloop.bench.metrics import pairs, run_row
from mathloop.bench.spec import BenchSpec, ProposerSpec, SpecError, load_spec
from mathloop.cli.common import console, err_console, fail, print_json
from mathloop.contract import Contract
from mathloop.domain import decimal_str
from mathloop.outputs import OutputError, check_folder, write_text
from mathloop.propose.base import Proposer
from mathloop.propose.openai_proposer import ProposerStats
from mathloop.search.config import ConfigError, SessionConfig
from mathloop.search.loop import SeedRefused
from mathloop.search.opening import open_session
from mathloop.store.engine import StoreError
from mathloop.store.repository import Repository


def _config(p: ProposerSpec, spec: BenchSpec, contract: Contract, seed: int, db: Path) -> SessionConfig:
    """Return the session of one run: the protocol's budget, time and sampling, the proposer, a fresh store, no Lean."""
    named = {"contract_file": contract.path} if contract.source == "file" else {"target": contract.name}
    return SessionConfig(**named, db=str(db), proposer=p.kind, seed=seed, budget=spec.budget,
                         time_limit=spec.time_limit, samples=spec.samples, model=p.model, base_url=p.base_url,
                         temperature=spec.temperature, max_tokens=spec.max_tokens, concurrency=p.concurrency,
                         request_timeout=p.request_timeout, lean=False,
                         options={"bench": spec.protocol_sha256, **p.identity()})


def _export(contract: Contract, repo: Repository, run_dir: Path, spec: BenchSpec) -> str:
    """Write the run's dataset (or its JSONL records without pyarrow); return its path relative to run_dir."""
    from mathloop.export.dataset import DatasetError, write_dataset
    from mathloop.export.records import write_records

    try:
        try:
            write_dataset(contract, repo, run_dir / "dataset", rewards=spec.rewards)
            return "dataset"
        except DatasetError:  # the ml extra is missing: the records still go into the evidence
            write_records(contract, repo, run_dir / "records.jsonl")
            return "records.jsonl"
    except OutputError as e:
        fail(f"-o {e}")


def _unanswered(prop: Proposer, outcome: str) -> str | None:
    """Return why a model proposer's endpoint gave no reply in the whole run (None: it replied, or not a model)."""
    stats = prop.stats()
    if not isinstance(stats, ProposerStats) or stats.replies or not outcome.startswith("proposer stopped"):
        return None
    return (f"{stats.requests} requests, {stats.failed_requests} failed, no reply; "
            f"last failure: {stats.last_failure or 'none recorded'}")


def _run(spec: BenchSpec, p: ProposerSpec, contract: Contract, seed: int,
         out: Path) -> tuple[dict[str, Any], str | None]:
    """Run one (proposer, target, seed) in a fresh store; return its result row and, when its model endpoint
    never replied, why."""
    run_dir = out / "runs" / p.name / contract.name / f"seed-{seed}"
    try:
        run_dir.mkdir(parents=True)
    except OSError as e:
        fail(f"-o {run_dir}: cannot write: {e.strerror or e}")
    try:
        with open_session(_config(p, spec, contract, seed, run_dir / "store.db")) as opened:
            summary = opened.run()
            repo = opened.repo
            records = [c for c in repo.candidates(contract.sha256)
                       if c.session_id == opened.session_id and c.proposer != "seed"]
            row = run_row(proposer=p.identity(), contract=contract, seed=seed, records=records,
                          head_bounds=summary.head.bounds, commits=summary.commits, seconds=summary.seconds,
                          outcome=summary.outcome)
            row["store"] = str((run_dir / "store.db").relative_to(out))
            row["dataset"] = str((run_dir / _export(contract, repo, run_dir, spec)).relative_to(out))
    except StoreError as e:
        fail(f"-o {run_dir}: cannot write: {e}")
    except ConfigError as e:
        fail(f"{spec.path}: proposers.{p.name}: {e.reason}")
    except SeedRefused as e:
        fail(str(e), 1)
    return row, _unanswered(opened.proposer, summary.outcome)


def _out_dir(out: Path | None, protocol_sha: str) -> Path:
    out = out or Path(f"bench-{protocol_sha[:12]}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        previous = out / "results.json"
        if previous.is_file():
            try:
                other = json.loads(previous.read_text()).get("protocol_sha256")
            except (OSError, ValueError, AttributeError):
                other = None
            if other and other != protocol_sha:
                fail(f"-o {out}: holds results of protocol {other[:12]}, not {protocol_sha[:12]}: results of "
                     "different protocols are never put side by side; choose a new directory")
        fail(f"-o {out}: exists and is not empty; choose a new directory")
    try:
        check_folder(out)  # a missing or read-only folder fails before the first run, not after it
        out.mkdir(exist_ok=True)
        check_folder(out / "results.json")
    except OutputError as e:
        fail(f"-o {e}")
    except OSError as e:
        fail(f"-o {out}: cannot write: {e.strerror or e}")
    return out


def _write_json(path: Path, value: Any) -> None:
    """Write `value` as JSON all or nothing; exit 2 naming the file if it cannot be written."""
    try:
        write_text(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n")
    except OutputError as e:
        fail(f"-o {e}")


def bench(
    spec_file: Path = typer.Argument(..., help="Bench spec (TOML): [protocol] targets, budget, seeds; [[proposers]]."),
    json_out: bool = typer.Option(False, "--json", help="Print {protocol_sha256, results, pairs} as JSON."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="Evidence directory (default ./bench-<protocol>)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Live progress bar."),
) -> None:
    """Compare proposers under one frozen, hashed protocol: paired runs per seed, each in a fresh store."""
    try:
        spec = load_spec(spec_file)
    except SpecError as e:
        fail(str(e))
    protocol, sha = spec.protocol(), spec.protocol_sha256
    out_dir = _out_dir(out, sha)
    _write_json(out_dir / "protocol.json", {"protocol_sha256": sha, "protocol": protocol})
    runs = [(c, seed, p) for c in spec.contracts for seed in spec.seeds for p in spec.proposers]
    results: list[dict[str, Any]] = []
    shown: Console = err_console if json_out else console
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=shown, disable=not progress, transient=json_out) as bar:
        task = bar.add_task(f"protocol {sha[:12]}", total=len(runs))
        for i, (contract, seed, p) in enumerate(runs, 1):
            what = f"[{i}/{len(runs)}] {p.name} · {contract.name} · seed {seed}"
            bar.update(task, description=f"{p.name} · {contract.name} · seed {seed}")
            if not progress:  # without the bar, say what runs now: a dead endpoint takes a while to give up on
                shown.print(f"{what}: running", highlight=False, markup=False)
            row, unanswered = _run(spec, p, contract, seed, out_dir)
            results.append(row)
            bar.advance(task)
            shown.print(f"{what}: {row['outcome']}, {row['candidates']} candidates in {row['wall_time_s']:.1f} s",
                        highlight=False, markup=False)
            # partial results after every run: an interrupted bench keeps what it measured
            _write_json(out_dir / "results.json", {"protocol_sha256": sha, "results": results, "pairs": [],
                                                   "complete": False, "runs_planned": len(runs)})
            if unanswered:  # every later run of this endpoint would wait as long again for nothing
                endpoint = p.base_url or "$OPENAI_BASE_URL"
                fail(f"{spec.path}: proposers.{p.name}: the endpoint {endpoint} gave no reply in run {i} of "
                     f"{len(runs)} ({unanswered}); bench stopped, as `run --proposer openai` stops; "
                     f"the {i} run(s) made so far are in {out_dir / 'results.json'} (\"complete\": false)", 1)
    report = {"protocol_sha256": sha, "results": results, "pairs": pairs(results, spec.contracts)}
    _write_json(out_dir / "results.json", report)
    if json_out:
        print_json(report)
    else:
        _print(report, out_dir)


def _print(report: dict[str, Any], out_dir: Path) -> None:
    table = Table(title=f"protocol {report['protocol_sha256'][:16]}")
    for col in ("proposer", "target", "seed", "cands", "progress", "malformed", "tok/cand", "best bound", "s", "evidence",
                "commits by origin"):
        table.add_column(col)
    for r in report["results"]:
        best = ", ".join(f"{k} {v}" for k, v in r["best_bound"].items()) or "none"
        table.add_row(r["proposer"], r["target"], str(r["seed"]), str(r["candidates"]),
                      f"{r['share']['progress'] + r['share']['correct']:.2f}", f"{r['malformed_share']:.2f}",
                      "-" if r["tokens_per_candidate"] is None else str(r["tokens_per_candidate"]), best,
                      f"{r['wall_time_s']:.1f}", r["evidence_sha256"][:12],
                      " ".join(f"{k}:{v['commits']}/{v['candidates']}" for k, v in r.get("by_origin", {}).items()))
    console.print(table)
    if report["pairs"]:
        pt = Table(title="paired differences (b − a) per seed")
        for col in ("target", "seed", "a", "b", "bound gain", "progress", "malformed"):
            pt.add_column(col)
        for d in report["pairs"]:
            gain = ", ".join(f"{k} {v['decimal']}" for k, v in d["best_bound_gain"].items()) or "-"
            pt.add_row(d["target"], str(d["seed"]), d["a"], d["b"], gain, f"{d['progress_share']:+.2f}",
                       f"{d['malformed_share']:+.2f}")
        console.print(pt)
        by_pair: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        for d in report["pairs"]:
            by_pair.setdefault((d["target"], d["a"], d["b"]), []).append(d)
        for (target, a, b), ds in by_pair.items():
            gains = {k: sum(Fraction(d["best_bound_gain"][k]["exact"]) for d in ds) / len(ds)
                     for k in ds[0]["best_bound_gain"] if all(k in d["best_bound_gain"] for d in ds)}
            progress = sum(d["progress_share"] for d in ds) / len(ds)
            shown = ", ".join(f"{k} {decimal_str(v, 12)}" for k, v in gains.items()) or "no common bound"
            console.print(f"{target}: {b} − {a}, mean over {len(ds)} seed(s): bound gain {shown}; "
                          f"progress share {progress:+.3f}", highlight=False)
    console.print(f"evidence: {out_dir} (protocol.json, results.json, runs/)", highlight=False)
