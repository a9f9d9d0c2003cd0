"""`mathloop export TARGET --dataset DIR`: the labelled Parquet dataset, its card and manifest."""

from __future__ import annotations

from pathlib import Path

from rich.progress import Progress

from mathloop.cli.common import console, fail
from mathloop.contract import Contract
from mathloop.env.rewards import load_reward_table
from mathloop.export.dataset import DatasetError, write_dataset
from mathloop.outputs import OutputError
from mathloop.store.repository import Repository


def export_dataset(contract: Contract, repo: Repository, out: Path, rewards_file: Path | None) -> None:
    """Write the dataset (exit 2 with the reason on bad input; nothing half-written)."""
    try:
        table = load_reward_table(rewards_file) if rewards_file else None
    except ValueError as e:
        fail(f"--rewards {e}")
    try:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("dataset", total=None)
            manifest = write_dataset(contract, repo, out, rewards=table, progress=lambda: bar.advance(task))
    except DatasetError as e:
        fail(str(e))
    except OutputError as e:
        fail(f"--dataset {e}")
    labels = ", ".join(f"{k} {v}" for k, v in manifest["labels"].items()) or "no rows"
    console.print(f"wrote {manifest['rows']} row(s) to {out} ({labels})", highlight=False)
