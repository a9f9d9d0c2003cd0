"""`mathloop audit TARGET`: re-verify the hash chain, the memory, and re-run the checkers on every commit."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress
from rich.text import Text

from mathloop.bounded import MAX_CHECKPOINT_BYTES, InputError, read_json
from mathloop.cli.common import DB_HELP, TARGET_HELP, console, contract_option, fail, open_contract, open_repo
from mathloop.contract.model import Contract
from mathloop.audit.report import audit_store
from mathloop.check.executors import LocalPool
from mathloop.check.runner import ProcessRunner
from mathloop.store.checkpoint import Checkpoint, CheckpointError
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import Repository


def _read_checkpoint(path: Path) -> Checkpoint:
    try:
        return Checkpoint.from_json(read_json(path, MAX_CHECKPOINT_BYTES, "--checkpoint"))
    except CheckpointError as e:
        fail(f"--checkpoint {path}: {e}")
    except InputError as e:
        fail(str(e))


def audit(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    hash_only: bool = typer.Option(False, "--hash-only", help="Verify hashes and rows only; do not re-run checkers."),
    lean: bool = typer.Option(False, "--lean", help="Also re-run Lean on every commit with a Lean result."),
    checkpoint: Optional[Path] = typer.Option(None, "--checkpoint",
                                              help="A file from `mathloop checkpoint`: fail unless the chain extends it."),
    workers: int = typer.Option(1, "--workers", min=1, max=256,
                                help="Re-checks run at once (local process pool); the report is the same for any N."),
    lineage: Optional[str] = typer.Option(None, "--lineage", metavar="HASH",
                                          help="Audit the store's lineage with this contract hash (or a unique prefix) "
                                               "against the contract text stored with it: a lineage of an older "
                                               "contract version."),
) -> None:
    """Exit 0 when every commit and memory row re-verifies; otherwise name the first edited row and exit 1."""
    cp = _read_checkpoint(checkpoint) if checkpoint is not None else None
    if lineage is not None:
        if contract_file is not None:
            fail("give --lineage or --contract, not both: --lineage audits with the contract stored with the lineage")
        repo = _open(db)
        contract = _stored_lineage(repo, lineage, target)
    else:
        contract = open_contract(target, contract_file)
        repo = _open(db)
        _hint_older(repo, contract)
    timeout = float(contract.check_timeout_s)
    # several workers: the pool's children re-check, the runner (never started then) only marks "re-check"
    pool = LocalPool(workers, timeout) if workers > 1 and not hash_only else None
    runner = None if hash_only else ProcessRunner(timeout)
    try:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("auditing", total=None)
            report = audit_store(contract, repo, runner, lambda i, total: bar.update(task, completed=i, total=total),
                                 checkpoint=cp, executor=pool)
    finally:
        if runner:
            runner.close()
        if pool:
            pool.close()
    if lean:
        rerun_findings = _lean_rerun(contract, repo)
        settled = _settled(report.findings, rerun_findings)
        report.findings[:] = [f for f in report.findings if f not in settled] + rerun_findings
        for f in settled:
            console.print(f"note: {f.where()}: a Lean re-run reproduces the latest status, which settles: {f.problem}",
                          highlight=False, soft_wrap=True)
    for f in report.findings:
        console.print(Text.assemble((f.where(), "red"), f": {f.problem}"), highlight=False, soft_wrap=True)
        if f.stored or f.recomputed:
            console.print(f"  stored hash:     {f.stored}\n  recomputed hash: {f.recomputed}", highlight=False)
    if report.findings:
        first = report.findings[0]
        fail(f"audit failed: {len(report.findings)} problem(s); first at {first.where()}", 1)
    what = "hashes and rows" if hash_only else "hashes, rows, re-checked evidence and gate"
    m = report.memory
    console.print(f"audit ok: {report.commits} commit(s) of {contract.name} verified ({what}); "
                  f"{m.chained} memory row(s) in {len(m.tips)} chain(s), {m.sealed} sealed session(s), "
                  f"{m.artifacts} artifact(s).", highlight=False)
    if report.legacy_commits or m.legacy:
        console.print(Text.assemble(("note", "yellow"), f": {report.legacy_commits} commit(s) and {m.legacy} memory row(s) "
                      "predate chain format 2: their commit rows are verified, but their memory rows (labels, reasons, "
                      "proposer) are not covered by any hash."), highlight=False)
    for what in report.lacks:
        console.print(Text.assemble(("note", "yellow"), f": {what}."), highlight=False, soft_wrap=True)
    if cp is not None:
        console.print(f"checkpoint ok: the chain extends {cp.head[:12] if cp.head else 'the empty chain'} "
                      f"(length {cp.length}) and every memory chain its tip.", highlight=False)


def _stored_lineage(repo: Repository, prefix: str, target: str | None) -> Contract:
    """Return the contract stored with the lineage `prefix` names; exit 2 when none, or when TARGET names another."""
    from mathloop.contract.model import ContractError
    from mathloop.store.models import ContractRow
    from mathloop.store.prefixes import resolve
    from mathloop.store.raw import contract_row
    from mathloop.targets import load_stored

    found = resolve(repo.engine, ContractRow.sha256, prefix, what="lineage")
    row = contract_row(repo.engine, found.full) if found.full is not None else None
    if row is None:
        fail(f"--lineage: {found.problem or 'no such lineage'}")
    if target is not None and target not in (row.name, row.target):
        fail(f"TARGET {target!r} does not match --lineage {row.sha256[:12]} ({row.name}, implementation {row.target})")
    try:
        return load_stored(row.name, row.sha256, row.text)
    except ContractError as e:
        fail(f"--lineage {row.sha256[:12]}: the contract stored with it is not one its target accepts today: {e}")


def _hint_older(repo: Repository, contract: Contract) -> None:
    """Print how to audit this store's lineages of older versions of the contract, when there are any."""
    older = [r.sha256 for r in repo.lineages(contract.name) if r.sha256 != contract.sha256]
    if older:
        console.print(Text.assemble(("note", "yellow"), f": this store also holds {len(older)} lineage(s) of an older "
                                                        f"{contract.name} contract; audit each with --lineage HASH ("
                                                        f"{', '.join(h[:12] for h in older)})."),
                      highlight=False, soft_wrap=True)


def _open(db: str | None):
    """Return the store opened read-only (an audit only reads: a read-only file or role audits too).

    A store written before the current schema lacks columns the audit reads: it is upgraded as any writer
    would (new tables and empty nullable columns only; no row is rewritten), which needs a writable store.
    """
    from mathloop.store.migrate import missing

    repo = open_repo(db, readonly=True)
    lacks = missing(repo.engine)
    if not lacks:
        return repo
    repo.engine.dispose()
    try:
        return Repository(make_engine(db, create=False))
    except StoreError as e:
        fail(f"{e} — this store predates the current schema (it lacks {', '.join(lacks[:3])}"
             f"{', …' if len(lacks) > 3 else ''}) and cannot take the upgrade the audit reads through (new empty "
             "columns only): audit a writable copy")


def _lean_rerun(contract, repo):
    """Return audit findings for the Lean results a fresh Lean run does not reproduce."""
    from mathloop.lean.commit import rerun
    from mathloop.audit.report import Finding
    from mathloop.targets import build_target

    commits = repo.commits(contract.sha256)
    seqs = {c.hash: c.seq for c in commits}
    pairs = [(c.hash, cand.evidence) for c in commits
             if (cand := repo.candidate(c.candidate_id)) is not None and cand.evidence is not None]
    with console.status("re-running Lean"):
        problems = rerun(repo.engine, contract.sha256, build_target(contract), pairs)
    return [Finding(seqs.get(p.commit, -1), p.commit, p.problem, table="lean_attestations", row=p.commit) for p in problems]


def _settled(findings, rerun_findings):
    """Return the Lean status contradictions between different Leans that a fresh re-run settles."""
    unsettled = {f.commit for f in rerun_findings}
    return [f for f in findings if f.table == "lean_attestations" and f.field == "status" and "another Lean" in f.problem
            and f.commit not in unsettled]
