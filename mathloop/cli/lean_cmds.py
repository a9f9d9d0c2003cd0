"""`mathloop doctor` (which Lean is here) and `mathloop lean-check` (pending commits, one file, or an export).

The support modules every check compiles are mathloop's own shared text and the targets' own package
data (`Target.lean_support()`), never a file's or an export's copies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from mathloop.cli.common import DB_HELP, console, fail, open_contract, open_repo, print_json
from mathloop.cli.targets_cmd import doctor_targets, print_doctor_targets
from mathloop.contract.model import ContractError
from mathloop.lean import attest
from mathloop.lean.check import LeanCrash, check_source
from mathloop.lean.commit import check_and_record
from mathloop.lean.export import ExportError
from mathloop.lean.library import LibraryError, support_path
from mathloop.lean.names import declared_in
from mathloop.lean.recheck import StoredCommit, check_project, read_manifest
from mathloop.lean.support_modules import SupportError, imports, package_modules, shared_modules
from mathloop.lean.toolchain import discover
from mathloop.outputs import OutputError
from mathloop.targets import build_target, registered, target_class

MAX_FILE_BYTES = 8_000_000


def doctor(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """Report which Lean mathloop uses here (a toolchain, the bundled kernel, or none) and what was tried."""
    tc = discover()
    rep = {"lean": tc.to_json(), "targets": doctor_targets()}
    if as_json:
        print_json(rep)
        return
    if tc.available:
        what = ("bundled Lean kernel with mathloop's prelude" if tc.kind == "bundled"
                else "Lean toolchain with its standard library")
        console.print(Text.assemble("Lean: ", ("available", "green"), f" — {what}: Lean {tc.version} (commit "
                                    f"{tc.commit[:12]}), {' '.join(tc.command)[:120]}"), highlight=False)
    else:
        console.print(Text.assemble("Lean: ", ("unavailable", "yellow"), " — commits stay pending/unavailable; install "
                                    "the extra: pip install 'mathloop[lean]'"), highlight=False)
    for t in tc.tried:
        console.print(f"  tried: {t}", highlight=False)
    print_doctor_targets(rep["targets"])


def all_support() -> dict[str, str]:
    """Return {module: text} of mathloop's shared modules and every registered target package's own.

    Read as package data without importing any target module; a module two targets ship with different
    texts, or a package whose modules are refused, is left out.
    """
    out, clash = shared_modules(), set()
    for key, reg in sorted(registered().items()):
        try:
            own = package_modules(reg.package)
        except (SupportError, AttributeError, ImportError, OSError):
            continue
        for m, text in own.items():
            if out.setdefault(m, text) != text:
                clash.add(m)
    return {m: t for m, t in out.items() if m not in clash}


def _check_file(path: Path, as_json: bool) -> None:
    if not path.is_file():
        fail(f"--file {path}: no such file")
    if path.stat().st_size > MAX_FILE_BYTES:
        fail(f"--file {path}: larger than {MAX_FILE_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        fail(f"--file {path}: not UTF-8 ({e.reason} at byte {e.start})")
    tc = discover()
    modules = all_support()
    used = [m for m in imports(text) if m in modules]
    try:
        support = (support_path(tc, modules),) if tc.available else ()
    except LibraryError:
        support = ()  # a file that imports Mathloop.* then fails to find it: Lean says so
    try:
        res = check_source(text, toolchain=tc, lean_path=support, protected=declared_in(modules[m] for m in used))
    except LeanCrash as e:
        out = {"verdict": "UNKNOWN", "axioms": [], "reasons": [f"Lean did not answer: {e}"]}
    else:
        out = res.to_json()
    _report(out, as_json)


def _report(out: dict, as_json: bool) -> None:
    if as_json:
        print_json(out)
    else:
        colour = {"PROVED": "green", "REFUTED": "red", "REFUSED": "red"}.get(out["verdict"], "yellow")
        console.print(Text.assemble((out["verdict"], colour), f": {out['reasons'][0] if out['reasons'] else ''}"),
                      highlight=False)
        for r in out["reasons"][1:6]:
            console.print(f"  {r}", highlight=False)
        for st in out.get("statements") or ():  # fully qualified: `Foo.Nat.add` is never shown as `Nat.add`
            console.print(f"  theorem {st['theorem']} : {st['statement']}", highlight=False)
    if out["verdict"] != "PROVED":
        raise typer.Exit(1)


def _stored(manifest: dict, target: Optional[str], db: str) -> dict[str, StoredCommit]:
    """Return what the store says about every commit of the export's contract (renderings from stored evidence)."""
    from mathloop.domain import sha256_hex
    from mathloop.lean.render import RenderError, bound_mismatch

    contract = open_contract(target or str(manifest.get("contract") or manifest.get("target") or ""))
    if contract.sha256 != manifest.get("contract_sha256"):
        fail(f"--export: the export is of contract {str(manifest.get('contract_sha256'))[:12]}, not of "
             f"{contract.name} ({contract.sha256[:12]}); name its contract as TARGET (a name or a .toml path)")
    repo = open_repo(db, create=False)
    tgt = build_target(contract)
    last = attest.latest(repo.engine, contract.sha256)
    out = {}
    for c in repo.commits(contract.sha256):
        cand = repo.candidate(c.candidate_id)
        if cand is None or cand.evidence is None:
            fail(f"commit {c.hash}: its evidence is missing from the store (run `mathloop audit`)", 1)
        try:
            r = tgt.lean_render(c.hash, cand.evidence)
        except (RenderError, SupportError):
            r = None
        if r is not None and bound_mismatch(r, cand.evidence.bounds) is not None:
            r = None
        a = last.get(c.hash)
        out[c.hash] = StoredCommit(sha256_hex(cand.evidence.canonical_bytes()), r.file_sha256s() if r else None,
                                   r.sha256 if r else None,
                                   a.artifact_sha256 if a is not None and a.status == "checked" else None)
    return out


def _check_export(path: Path, target: Optional[str], db: Optional[str], as_json: bool) -> None:
    if not path.is_dir():
        fail(f"--export {path}: not a directory")
    try:
        manifest = read_manifest(path)
        own = target_class(str(manifest.get("target")), path / "manifest.json").lean_support()
    except (ExportError, ContractError, SupportError) as e:
        fail(str(e))
    store = _stored(manifest, target, db) if db is not None else None
    tc = discover()
    try:
        res, rows = check_project(path, tc, {**shared_modules(), **own}, store=store)
    except (ExportError, LibraryError) as e:
        fail(str(e))
    except LeanCrash as e:
        _report({"verdict": "UNKNOWN", "axioms": [], "reasons": [f"Lean did not answer: {e}"]}, as_json)
        return
    _report({**res.to_json(), "commits": rows}, as_json)


def lean_check(
    target: Optional[str] = typer.Argument(None, help="Target name or contract path (check its pending commits; "
                                                      "with --export: the export's contract, default its name)."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP + " With --export: compare the export's files "
                                     "with the store's commits and Lean attestations."),
    file: Optional[Path] = typer.Option(None, "--file", help="Check one self-contained plain-style .lean file."),
    export_dir: Optional[Path] = typer.Option(None, "--export", help="Re-check an exported Lean project against "
                                              "mathloop's own support text (and the store, with --db)."),
    all_commits: bool = typer.Option(False, "--all", help="Re-check every commit, not only those not yet checked."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Check with a real Lean kernel: a target's pending commits, one file (--file) or an export (--export)."""
    if export_dir is not None:
        if file is not None:
            fail("give exactly one of TARGET, --file F.lean or --export DIR")
        return _check_export(export_dir, target, db, as_json)
    if sum(x is not None for x in (target, file)) != 1:
        fail("give exactly one of TARGET, --file F.lean or --export DIR")
    if file is not None:
        return _check_file(file, as_json)
    contract = open_contract(target)
    repo = open_repo(db, create=False)
    tgt = build_target(contract)
    tc = discover()
    again = ("unavailable",) if tc.available else ()  # without a Lean, do not re-attest `unavailable`
    todo = (repo.commits(contract.sha256) if all_commits and tc.available
            else attest.unattested(repo, contract.sha256, again))
    rows = []
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("Lean: checking", total=len(todo))
        for c in todo:
            cand = repo.candidate(c.candidate_id)
            if cand is None or cand.evidence is None:
                fail(f"commit {c.hash}: its evidence is missing from the store (run `mathloop audit`)", 1)
            out = check_and_record(repo.engine, contract.sha256, tgt, c.hash, cand.evidence, toolchain=tc)
            rows.append({"commit": c.hash, "seq": c.seq, "status": out.status, "reasons": list(out.reasons)})
            bar.update(task, advance=1, description=f"Lean: {c.hash[:12]} {out.status}")
    if as_json:
        print_json({"lean": tc.to_json(), "commits": rows})
    else:
        table = Table("seq", "commit", "Lean status", "note", title=f"Lean ({tc.kind} {tc.version})".strip())
        for r in rows:
            table.add_row(str(r["seq"]), r["commit"][:16], r["status"], (r["reasons"] or [""])[0][:80])
        console.print(table if rows else "nothing to check: every commit has a Lean result (use --all to re-check)")
    if any(r["status"] == "refuted" for r in rows):
        raise typer.Exit(1)


def export_lean(contract, repo, out: Path) -> None:
    """Write the lineage's commits (chain order) with their Lean attestations as a Lean project at `out`."""
    from mathloop.lean.export import export_project
    from mathloop.lean.render import RenderError

    tgt = build_target(contract)
    last = attest.latest(repo.engine, contract.sha256)
    commits = []
    for c in repo.commits(contract.sha256):
        cand = repo.candidate(c.candidate_id)
        if cand is None or cand.evidence is None:
            fail(f"commit {c.hash}: its evidence is missing from the store (run `mathloop audit`)", 1)
        a = last.get(c.hash)
        lean = attest.status_json(a) | ({"artifact_sha256": a.artifact_sha256} if a else {})
        commits.append({"hash": c.hash, "parent": c.to_json()["parent"], "seq": c.seq, "evidence": cand.evidence,
                        "lean": lean})
    if not commits:
        fail(f"no commits for {contract.name} in this store: nothing to export")
    try:
        summary = export_project(contract, commits, out, tgt.lean_render)
    except (ExportError, RenderError, SupportError) as e:
        fail(str(e))
    except OutputError as e:
        fail(f"--lean {e}")
    states = [e["lean"]["status"] for e in summary.manifest["commits"]]
    console.print(f"wrote a Lean project with {summary.rendered} certificate module(s) for {len(commits)} commit(s) "
                  f"to {out} (Lean: {states.count('checked')} checked, {states.count('pending')} pending, "
                  f"{states.count('not_rendered')} not rendered); re-check it with `mathloop lean-check --export {out}`")
