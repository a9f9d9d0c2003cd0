"""`mathloop export TARGET`: training records (JSONL), a Lean project, or zero-verification certificates."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress

from mathloop.cli.common import (TARGET_HELP, contract_option, DB_HELP, console, fail, open_contract, open_repo,
                                 require_extra)
from mathloop.export.records import write_records
from mathloop.outputs import OutputError, check_folder


def export(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    records: Optional[Path] = typer.Option(None, "--records", help="Write every candidate as a labelled JSONL record."),
    lean: Optional[Path] = typer.Option(None, "--lean", help="Write a standalone Lake project of the committed certificates."),
    certificates: Optional[Path] = typer.Option(None, "--certificates", help="Write each committed chunk's certificate as JSON."),
    dataset: Optional[Path] = typer.Option(None, "--dataset", help="Write a labelled Parquet dataset with a card and a manifest (extra: ml)."),
    rewards: Optional[Path] = typer.Option(None, "--rewards", help="TOML file whose [rewards] table overrides the dataset's reward table."),
) -> None:
    """Export what the store holds for the target."""
    if not (records or lean or certificates or dataset):
        fail("nothing to export: give --records FILE.jsonl, --dataset DIR, --lean DIR or --certificates DIR")
    if dataset:
        require_extra("ml", "`mathloop export --dataset`", "pyarrow", "pyarrow.parquet")
    outputs = {"--records": records, "--dataset": dataset, "--lean": lean, "--certificates": certificates}
    for option, path in outputs.items():  # a missing or read-only folder fails before anything is read
        if path is not None:
            try:
                check_folder(path)
            except OutputError as e:
                fail(f"{option} {e}")
    contract = open_contract(target, contract_file)
    repo = open_repo(db, readonly=True)
    if records:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("records", total=None)
            try:
                n = write_records(contract, repo, records, lambda: bar.advance(task))
            except OutputError as e:
                fail(f"--records {e}")
        console.print(f"wrote {n} record(s) to {records}", highlight=False)
    if dataset:
        from mathloop.cli.export_dataset import export_dataset

        export_dataset(contract, repo, dataset, rewards)
    if lean:
        from mathloop.cli.lean_cmds import export_lean

        export_lean(contract, repo, lean)
    if certificates:
        from mathloop.cli.export_certificates import export_certificates

        export_certificates(contract, repo, certificates)
