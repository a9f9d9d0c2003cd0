"""`mathloop run TARGET`: a search session with live progress and a summary table."""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path
from typing import Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from mathloop.cli.common import (TARGET_HELP, bounds_text, console, contract_line, contract_option, fail,
                                 hypotheses_line, open_contract, open_repo)
from mathloop.cli.session_notes import counts_note, exhausted_hint
from mathloop.contract import Contract
from mathloop.lean.worker import LeanWorker
from mathloop.propose.replay import ReplayFileError, ReplayProposer
from mathloop.search.loop import LineageRefused, SeedRefused, Session, SessionLimits, SessionSummary
from mathloop.check.checker import DEFAULT_RECHECK, Checker
from mathloop.check.executors import TLS, executor_for
from mathloop.targets import build_target
from mathloop.targets.errors import MissingExtra

def _proposer(spec: str, contract: Contract, target, seed: int, model_opts: dict, program_time: float = 30.0):
    if spec.startswith("program:"):
        from mathloop.cli.programs import program_runner
        from mathloop.propose.program_files import ProgramFileError, ProgramFileProposer

        path = Path(spec.removeprefix("program:"))
        if not path.exists():
            raise typer.BadParameter(f"program {path}: no such file or directory", param_hint="--proposer")
        try:
            return ProgramFileProposer(path, program_runner(target, f"--proposer {spec}", program_time))
        except ProgramFileError as e:
            raise typer.BadParameter(str(e), param_hint="--proposer") from None
    if spec == "local":
        try:
            return target.local_proposer(seed)
        except MissingExtra as e:  # an optional solver the local proposer needs: exit 2 naming the extra
            raise typer.BadParameter(str(e), param_hint="--proposer") from None
    if spec.startswith("replay:"):
        path = Path(spec.removeprefix("replay:"))
        if not path.is_file():
            raise typer.BadParameter(f"replay file {path} does not exist", param_hint="--proposer")
        try:
            from mathloop.targets.spelling import canonical_payload

            return ReplayProposer(path, lambda payload: canonical_payload(target, payload, contract.seed))
        except ReplayFileError as e:  # unreadable as a whole: the user's error (bad lines are `malformed`)
            raise typer.BadParameter(str(e), param_hint="--proposer") from None
    if spec in ("openai", "openai+local"):
        if not model_opts.get("model"):
            raise typer.BadParameter("--model is required with --proposer openai", param_hint="--model")
        if model_opts.get("form") == "program":
            return _program_proposer(spec, contract, target, model_opts, program_time)
        model_opts = {k: v for k, v in model_opts.items() if k != "prompt_chars"}
        from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer

        try:
            opts = OpenAIOptions(**{k: v for k, v in model_opts.items() if v is not None})
            return build_openai_proposer(contract, target, opts, polish_seed=seed if spec == "openai+local" else None)
        except ValueError as e:  # a bad option or base URL: the message starts with the field name
            raise typer.BadParameter(str(e)) from None
    raise typer.BadParameter(f"unknown proposer {spec!r} (local, openai, openai+local, replay:FILE, program:PATH)",
                             param_hint="--proposer")


def _program_proposer(spec: str, contract: Contract, target, model_opts: dict, program_time: float):
    """Return the evolve loop's proposer (the model writes programs; each runs in the sandbox), or exit 2."""
    from mathloop.cli.programs import program_runner
    from mathloop.propose.openai_proposer import OpenAIOptions
    from mathloop.propose.program_prompt import PromptLimits
    from mathloop.propose.program_proposer import build_program_proposer

    if spec != "openai":
        raise typer.BadParameter("--form program: only with --proposer openai (a program is its own optimiser)",
                                 param_hint="--form")
    prompt_chars = model_opts.pop("prompt_chars", None) or PromptLimits().max_chars
    runner = program_runner(target, "--form program", program_time)
    try:
        opts = OpenAIOptions(**{k: v for k, v in model_opts.items() if v is not None})
        return build_program_proposer(contract, target, opts, runner, None, PromptLimits(max_chars=prompt_chars))
    except ValueError as e:  # a bad option or base URL: the message starts with the field name
        raise typer.BadParameter(str(e)) from None


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


def _with_start(start: str, target, prop):
    """Return the proposer for `--start`: itself (head), or the published construction first (published)."""
    if start == "head":
        return prop
    if start != "published":
        raise typer.BadParameter(f"unknown start {start!r} (head, published)", param_hint="--start")
    from mathloop.targets.base import Malformed

    try:
        published = target.published_start()
    except Malformed as e:
        raise typer.BadParameter(str(e), param_hint="--start") from None
    if published is None:
        raise typer.BadParameter(f"target {target.name} ships no published construction to start from",
                                 param_hint="--start")
    from mathloop.targets.published_start import PublishedFirst

    return PublishedFirst(published, prop)


def _terminate(signum, frame) -> None:
    raise KeyboardInterrupt


class _Console:
    """The loop's observer: the session's header, a live progress bar (best bound, commits, label counts), and the
    summary table at the end (with the lineage's counts as `status` shows them)."""

    def __init__(self, contract: Contract, progress: Progress) -> None:
        self.contract, self.progress = contract, progress
        self.engine = None      # the store's engine, for the lineage's counts (set once the store is open)
        self.executor = ""      # "local pool (2 workers); 4 proposals per round" (set once the checker is built)
        self.lean = ""          # what the Lean worker does beside the session (resumed commits), if anything
        self.budget = 0
        self.task = None
        self.proposer = "local"  # the proposer's name (set once it is built): the exhausted note depends on it

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
                              "store) | published: first propose the best published construction the target ships "
                              "(credited to its authors), then refine it."),
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
    # the whole command's deadline, Lean included, counted from the process's start as `time` counts it
    deadline = None if time_limit is None else time.monotonic() - _process_age() + time_limit
    contract = open_contract(target, contract_file)
    bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=console, disable=not progress, transient=False)
    shown = _Console(contract, bar)
    tgt = build_target(contract)
    budget = budget or contract.default_budget
    model_opts = dict(model=model, base_url=base_url, samples=samples, temperature=temperature, max_tokens=max_tokens,
                      concurrency=concurrency, request_timeout=request_timeout, max_tokens_total=max_tokens_total,
                      repeat_retries=repeat_retries, form=form)
    inner = _proposer(proposer, contract, tgt, seed, {**model_opts, "prompt_chars": prompt_chars}, program_time)
    prop = _with_start(start, tgt, inner)
    shown.proposer = prop.name
    repo = open_repo(db)
    repo.ensure_contract(contract)
    if getattr(inner, "archive", False) is None:  # the evolve loop's parents come from this store
        from mathloop.search.program_archive import ProgramArchive

        inner.archive = ProgramArchive(repo.engine, contract)
    options = {"budget": budget, "time_limit": time_limit, "samples": samples, "proposer": proposer, "start": start,
               **{k: v for k, v in model_opts.items() if v is not None}}
    if proposer.startswith("program:") or form == "program":
        options["program_time"] = program_time
    if form == "program" and prompt_chars is not None:
        options["prompt_chars"] = prompt_chars  # stored with the session: the limits every program ran under
    if insecure_executor:
        options["insecure_executor"] = True  # stored with the session: `status` shows it
    session_id = repo.start_session(contract.sha256, prop.name, seed, options)
    tls = TLS(tls_ca, tls_cert, tls_key) if (tls_ca and tls_cert and tls_key) else None
    try:
        pool = executor_for(executor, workers, tls=tls, insecure=insecure_executor) \
            if (workers > 1 or executor != "local") else None  # the Checker gives it the contract's timeout
    except (ValueError, OSError) as e:
        repo.end_session(session_id, f"executor unavailable: {e}")
        fail(f"--executor: {e}", 2)
    checker = Checker(contract, target=tgt, executor=pool, recheck=recheck)
    samples = max(samples, checker.in_flight)  # keep enough in flight that no worker waits (Executor.in_flight)
    shown.engine, shown.budget = repo.engine, budget
    shown.executor = f"{checker.name}; {samples} proposals per round"
    worker = LeanWorker(repo.engine, contract.sha256, tgt) if lean else None
    if worker is not None:
        shown.lean = _resume_pending(worker, repo, contract)
    session = Session(contract, repo, checker, session_id,
                      on_commit=(lambda c, ev: worker.submit(c.hash, ev)) if worker is not None else None)
    # SIGTERM ends the session like Ctrl-C: the store is consistent after every candidate anyway.
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        summary = None
        with checker:  # every checker child and the executor stop when the session does, however it ends
            try:
                with bar:
                    summary = session.run(prop, SessionLimits(budget, time_limit, samples, deadline=deadline), shown)
            except SeedRefused as e:
                repo.end_session(session_id, f"seed refused: {e}")
                fail(str(e), 1)
            except LineageRefused as e:
                repo.end_session(session_id, "refused: a commit of the lineage failed a quarantine re-check")
                fail(str(e), 1)
            except KeyboardInterrupt:
                repo.end_session(session_id, "interrupted")
                lean_line = (_pending_line(worker.cancel(), contract) if worker is not None else
                             f"its commits stay Lean-pending (--no-lean): `mathloop lean-check {contract.name}` checks them.")
                console.print(Text.assemble(("interrupted", "yellow"), ": every processed candidate is recorded; the head "
                                            "is consistent; " + lean_line))
                raise typer.Exit(130)
            except BaseException as e:  # no path leaves the session unsealed; the error itself still surfaces
                if not isinstance(e, (typer.Exit, SystemExit)):
                    repo.end_session(session_id, f"failed: {type(e).__name__}: {str(e)[:200]}")
                raise
            finally:
                if worker is not None and summary is None:
                    worker.close(kill=True)
        repo.end_session(session_id, summary.outcome)
        if worker is not None:
            _wait_for_lean(worker, progress, contract, deadline)
        stats = prop.stats()
        if stats:
            stats = dataclasses.asdict(stats) if dataclasses.is_dataclass(stats) else dict(stats)
            console.print("proposer: " + ", ".join(f"{k} {v}" for k, v in stats.items()), highlight=False)
        if summary.failed_commits:
            fail(f"{len(summary.failed_commits)} commit(s) of this session, answered by a quarantined worker, failed "
                 f"the session's re-check (first {summary.failed_commits[0][:12]}): the chain is append-only, the "
                 "commits stay and `mathloop audit` fails from the first; `status` shows them", 1)
    finally:  # an in-process caller (tests, notebooks) gets its own SIGTERM handler back
        signal.signal(signal.SIGTERM, previous)


def _resume_pending(worker: LeanWorker, repo, contract: Contract) -> str:
    """Hand the lineage's Lean-pending commits (no attestation yet: interrupted, or made with --no-lean) to the
    worker, oldest first; return the line that says so ("" when there are none)."""
    from mathloop.lean import attest

    todo = attest.unattested(repo, contract.sha256)
    for c in todo:
        cand = repo.candidate(c.candidate_id)
        if cand is not None and cand.evidence is not None:  # a commit without evidence is the audit's finding
            worker.submit(c.hash, cand.evidence)
    if not todo:
        return ""
    return (f"Lean: resuming {len(todo)} commit(s) left pending by earlier sessions, checked beside this one "
            "(--no-lean skips Lean)")


def _pending_line(n: int, contract: Contract) -> str:
    """Return the words for `n` commits left without a Lean result and how to check them."""
    if n == 0:
        return "no commit is left Lean-pending."
    return (f"{n} commit(s) stay Lean-pending: `mathloop lean-check {contract.name}` or the next `mathloop run` "
            "checks them.")


def _wait_for_lean(worker: LeanWorker, progress: bool, contract: Contract, deadline: float | None) -> None:
    """Wait for the session's Lean checks with a progress line, until the run's deadline; Ctrl-C or the deadline
    leaves the rest pending (nothing recorded about them)."""
    left = None if deadline is None else max(0.0, deadline - time.monotonic())
    try:
        with Progress(TextColumn("Lean: {task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, disable=not progress, transient=False) as bar:
            task = bar.add_task("checking commits", total=max(worker.submitted, 1))
            done = worker.wait(lambda n, total: bar.update(task, completed=n, total=max(total, 1)), timeout_s=left)
    except KeyboardInterrupt:
        console.print(Text.assemble(("interrupted", "yellow"), ": " + _pending_line(worker.cancel(), contract)))
        raise typer.Exit(130)
    if done:
        worker.close()
    else:
        n = worker.cancel()
        console.print(f"Lean: the time limit ended the checks; {_pending_line(n, contract)}", highlight=False)
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
