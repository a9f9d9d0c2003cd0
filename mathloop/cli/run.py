"""`mathloop run TARGET`: a search session with live progress and a summary table."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from mathloop.check.checker import DEFAULT_RECHECK
from mathloop.cli.common import TARGET_HELP, bounds_text, console, contract_line, contract_option, fail, hypotheses_line
from mathloop.cli.session_notes import counts_note, exhausted_hint
from mathloop.contract import Contract, ContractError
from mathloop.sandbox.errors import SandboxUnavailable
from mathloop.search.config import ConfigError, SessionConfig
from mathloop.search.loop import LineageRefused, Observer, SeedRefused, SessionSummary
from mathloop.search.opening import ExecutorUnavailable, OpenSession, open_session
from mathloop.store.engine import StoreError

START_UP_S = 15.0  # a `mathloop run` process is younger than this when the command starts, even on a loaded machine


def _process_age() -> float:
    """Return the seconds since this process started (Python's start-up and imports included), for a process that
    started for this command; 0 if unknown or older than START_UP_S (an in-process caller: its limit counts from
    the call)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            started_ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22: start time since boot
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    age = uptime - started_ticks / os.sysconf("SC_CLK_TCK")
    return age if 0.0 <= age <= START_UP_S else 0.0


class _Console(Observer):
    """The loop's observer: the session's header, a live progress bar (best bound, commits, label counts), and the
    summary table at the end (with the lineage's counts as `status` shows them)."""

    def __init__(self, opened: OpenSession, progress: Progress) -> None:
        self.contract, self.progress = opened.contract, progress
        self.engine = opened.repo.engine  # the store's engine, for the lineage's counts
        self.executor = f"{opened.checker.name}; {opened.limits.samples} proposals per round"
        self.lean = (f"Lean: resuming {opened.resumed} commit(s) left pending by earlier sessions, checked beside this "
                     "one (--no-lean skips Lean)") if opened.resumed else ""
        self.budget = opened.limits.budget
        self.task: Any = None
        self.proposer = opened.proposer.name  # the exhausted note depends on it

    def started(self, head) -> None:
        c = self.contract
        console.print(Text.assemble((c.name, "bold"), f" ({c.target}, {contract_line(c)}) — head {head.hash[:12]} "
                                    f"(seq {head.seq}): {bounds_text(c, head.bounds)}"))
        console.print(Text(hypotheses_line(c), style="yellow"), highlight=False)
        console.print(f"executor: {self.executor}", highlight=False)
        if self.lean:
            console.print(self.lean, highlight=False)
        self.task = self.progress.add_task(bounds_text(c, head.bounds), total=self.budget)

    def candidate(self, label, head, summary: SessionSummary) -> None:
        labels = " ".join(f"{k}:{v}" for k, v in sorted(summary.labels.items()))
        self.progress.update(self.task, advance=1, description=(
            f"{bounds_text(self.contract, head.bounds)} | commits {summary.commits} | {labels}"))

    def finished(self, summary: SessionSummary) -> None:
        from mathloop.view.counts import lineage_counts  # the one count that status and the web view show

        self.progress.stop()  # the table goes below the finished bar
        lineage = lineage_counts(self.engine, self.contract.sha256)
        _print_summary(self.contract, summary, lineage.line(), self.proposer, lineage.labels)


def run(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help="Store path or URL (default $MATHLOOP_DB or ./mathloop.db)."),
    proposer: str = typer.Option("local", "--proposer", help="local | openai | openai+local | replay:FILE.jsonl | "
                                 "program:PATH (a .py file or a directory of them, each run in the sandbox)"),
    budget: Optional[int] = typer.Option(None, "--budget", min=1, help="Candidates to process (default: the contract's)."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", min=0.1, help="Wall-clock seconds for the whole "
                                               "run, Lean checks included (those still running then stay pending)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the local proposer (deterministic per seed)."),
    start: str = typer.Option("head", "--start", help="head: the proposer starts from the head (from scratch in a new "
                              "store) | published: first propose the best published construction the target ships that "
                              "this contract admits (credited to its authors), then refine it."),
    samples: int = typer.Option(4, "--samples", min=1, max=64, help="Proposals per round."),
    model: Optional[str] = typer.Option(None, "--model", help="Model name for --proposer openai."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL)."),
    temperature: Optional[float] = typer.Option(None, "--temperature", min=0.0, max=2.0),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=16, help="Completion tokens per request."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", min=1, max=64, help="Parallel requests."),
    request_timeout: Optional[float] = typer.Option(None, "--request-timeout", min=0.1, help="Wall-clock seconds per request, whole reply included."),
    max_tokens_total: Optional[int] = typer.Option(None, "--max-tokens-total", min=1, help="Token budget of the session."),
    repeat_retries: Optional[int] = typer.Option(None, "--repeat-retries", min=0, max=64, help="Extra requests per "
                                                 "round when replies repeat a stored candidate (default 2)."),
    form: Optional[str] = typer.Option(None, "--form", help="The target's proposal form offered to the model, by "
                                       "name (levinson-conrey: moves, edits, absolute; default: the target's)."),
    lean: bool = typer.Option(True, "--lean/--no-lean", help="Lean-check each commit in the background and wait for it "
                              "before exiting (--no-lean: commits stay pending)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Live progress bar."),
    program_time: float = typer.Option(30.0, "--program-time", min=0.5, max=3600.0, help="Wall-clock and CPU seconds of "
                                       "each program run in the sandbox (program proposals)."),
    prompt_chars: Optional[int] = typer.Option(None, "--prompt-chars", min=2000, help="Characters of each prompt of "
                                               "--form program (parents and near misses are dropped to fit; 12000)."),
    workers: int = typer.Option(1, "--workers", min=1, max=256, help="Checks run at once (local process pool)."),
    executor: str = typer.Option("local", "--executor", help="local | dask://HOST:PORT (loopback) | tls://HOST:PORT "
                                 "(extra `dask`)."),
    tls_ca: Optional[Path] = typer.Option(None, "--tls-ca", help="CA certificate of a tls:// dask cluster."),
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", help="This client's certificate for a tls:// cluster."),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", help="This client's private key for a tls:// cluster."),
    insecure_executor: bool = typer.Option(False, "--insecure-executor", help="Accept a plain tcp:// dask cluster off "
                                           "this host (its answers are re-checked here before they commit)."),
    recheck: float = typer.Option(DEFAULT_RECHECK, "--recheck", min=0.0, max=1.0, help="Share of an authenticated "
                                  "executor's head-moving answers re-checked in the session."),
) -> None:
    """Run a search session: propose, check, gate, and commit only strict progress."""
    # the whole command's time limit, Lean included, counts from the process's start as `time` counts it
    since = time.monotonic() - _process_age()
    bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=console, disable=not progress, transient=False)
    opened: OpenSession | None = None
    try:
        config = SessionConfig(target=target, contract_file=contract_file, db=db, proposer=proposer, budget=budget,
                               time_limit=time_limit, seed=seed, start=start, samples=samples, model=model,
                               base_url=base_url, temperature=temperature, max_tokens=max_tokens,
                               concurrency=concurrency, request_timeout=request_timeout,
                               max_tokens_total=max_tokens_total, repeat_retries=repeat_retries, form=form, lean=lean,
                               program_time=program_time, prompt_chars=prompt_chars, workers=workers,
                               executor=executor, tls_ca=tls_ca, tls_cert=tls_cert, tls_key=tls_key,
                               insecure_executor=insecure_executor, recheck=recheck)
        with open_session(config, since=since) as opened:
            with bar:
                summary = opened.run(_Console(opened, bar))
            _finish(opened, summary, progress)
    except (ContractError, SandboxUnavailable, StoreError) as e:
        fail(str(e))
    except ConfigError as e:
        _refuse(e)
    except ExecutorUnavailable as e:
        fail(f"--executor: {e}", 2)
    except (SeedRefused, LineageRefused) as e:
        fail(str(e), 1)
    except KeyboardInterrupt:
        if opened is None:  # before the session opened: nothing of it to report
            raise
        _interrupted(opened)


FLAGS = {"contract_file": "--contract"}  # a SessionConfig field whose option is not --field-name


def _refuse(e: ConfigError) -> NoReturn:
    """Exit 2 with the refused option: its own error line, or a usage error naming the option."""
    if e.plain:
        fail(e.reason)
    hint = None if e.field is None else FLAGS.get(e.field, "--" + e.field.replace("_", "-"))
    raise typer.BadParameter(e.reason, param_hint=hint)


def _finish(opened: OpenSession, summary: SessionSummary, progress: bool) -> None:
    """After the session: its Lean checks, the proposer's statistics, and exit 1 if a quarantined commit failed."""
    if opened.worker is not None:
        _wait_for_lean(opened, progress)
    stats = opened.proposer.stats()
    if stats:
        stats = dataclasses.asdict(stats) if dataclasses.is_dataclass(stats) else dict(stats)
        console.print("proposer: " + ", ".join(f"{k} {v}" for k, v in stats.items()), highlight=False)
    if summary.failed_commits:
        fail(f"{len(summary.failed_commits)} commit(s) of this session, answered by a quarantined worker, failed "
             f"the session's re-check (first {summary.failed_commits[0][:12]}): the chain is append-only, the "
             "commits stay and `mathloop audit` fails from the first; `status` shows them", 1)


def _interrupted(opened: OpenSession) -> None:
    """Say what Ctrl-C (or SIGTERM) left behind, and exit 130."""
    contract = opened.contract
    if opened.summary is not None:  # the session had ended: Ctrl-C stopped its Lean checks
        console.print(Text.assemble(("interrupted", "yellow"), ": " + _pending_line(opened.lean_left or 0, contract)))
        raise typer.Exit(130)
    lean_line = (_pending_line(opened.lean_left or 0, contract) if opened.worker is not None else
                 f"its commits stay Lean-pending (--no-lean): `mathloop lean-check {contract.name}` checks them.")
    console.print(Text.assemble(("interrupted", "yellow"), ": every processed candidate is recorded; the head "
                                "is consistent; " + lean_line))
    raise typer.Exit(130)


def _pending_line(n: int, contract: Contract) -> str:
    """Return the words for `n` commits left without a Lean result and how to check them."""
    if n == 0:
        return "no commit is left Lean-pending."
    return (f"{n} commit(s) stay Lean-pending: `mathloop lean-check {contract.name}` or the next `mathloop run` "
            "checks them.")


def _wait_for_lean(opened: OpenSession, progress: bool) -> None:
    """Wait for the session's Lean checks with a progress line, until the run's deadline; Ctrl-C or the deadline
    leaves the rest pending (nothing recorded about them)."""
    worker, contract = opened.worker, opened.contract
    assert worker is not None
    with Progress(TextColumn("Lean: {task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, disable=not progress, transient=False) as bar:
        task = bar.add_task("checking commits", total=max(worker.submitted, 1))
        done = opened.wait_for_lean(lambda n, total: bar.update(task, completed=n, total=max(total, 1)))
    if not done:
        console.print(f"Lean: the time limit ended the checks; {_pending_line(opened.lean_left or 0, contract)}",
                      highlight=False)
    counts: dict[str, int] = {}
    for out in worker.outcomes.values():
        if out.status != "pending":
            counts[out.status] = counts.get(out.status, 0) + 1
    if worker.pending():
        counts["pending"] = worker.pending()
    console.print("Lean: " + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no commits to check"),
                  highlight=False)
    other = next((o for o in worker.outcomes.values() if o.status != "checked" and o.reasons), None)
    if other is not None:
        console.print(f"  {other.status}: {other.reasons[0][:300]}", highlight=False)


def _print_summary(contract: Contract, s: SessionSummary, lineage: str, proposer: str = "local",
                   lineage_labels: dict[str, int] | None = None) -> None:
    table = Table(title=f"session {s.session_id} — {s.outcome} in {s.seconds:.1f} s", show_lines=False)
    table.add_column("")
    table.add_column("value", overflow="fold")
    table.add_row("start", f"{s.start_head.hash[:12]}: {bounds_text(contract, s.start_head.bounds)}")
    table.add_row("head", f"{s.head.hash[:12]} (seq {s.head.seq}): {bounds_text(contract, s.head.bounds)}")
    table.add_row("commits", str(s.commits))
    if s.interrupted:
        table.add_row("interrupted", f"{s.interrupted} (checks cut at the time limit: not judged, not recorded)")
    for label, n in sorted(s.labels.items()):
        table.add_row(f"{label} (this session)", str(n))
    if s.repeats:
        table.add_row("repeats (in no_progress)", f"{s.repeats} (exact repeats of stored candidates: recorded, not checked)")
    for rec in s.rechecks:
        table.add_row("quarantined", rec.line())
    table.add_row("lineage (as status shows)", lineage)
    console.print(table)
    console.print(counts_note({**(lineage_labels or {}), **s.labels}), highlight=False)
    console.print(hypotheses_line(contract), highlight=False)
    if s.outcome == "proposer exhausted":
        console.print("proposer exhausted: " + exhausted_hint(contract, s.head.bounds, proposer), style="yellow",
                      highlight=False)
