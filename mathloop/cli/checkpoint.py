"""`mathloop checkpoint TARGET`: print or write the head hash, chain length and memory tips (keep it elsewhere)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Optional

import typer

from mathloop.cli.common import DB_HELP, TARGET_HELP, console, contract_option, fail, open_contract, open_repo
from mathloop.search.audit import OTHER_CHAINS
from mathloop.store.checkpoint import take


def _write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file and a rename: never a half-written checkpoint."""
    if not path.parent.is_dir():
        fail(f"-o {path}: directory {path.parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".checkpoint-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        fail(f"-o {path}: cannot write: {e.strerror or e}")


def checkpoint(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the checkpoint as JSON."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the checkpoint (JSON) to this file."),
) -> None:
    """Record where the chain is now; `mathloop audit --checkpoint FILE` later fails if it was rolled back."""
    contract = open_contract(target, contract_file)
    repo = open_repo(db, create=False)
    cp = take(repo, contract.sha256, OTHER_CHAINS)
    text = cp.dumps()
    if out is not None:
        _write_atomically(out, text)
    if as_json:
        typer.echo(text, nl=False)
    else:
        rows = sum(n for n, _ in cp.memory.values())
        extra = "".join(f"; {n} row(s) of {t}" for t, (n, _) in sorted(cp.chains.items()))
        console.print(f"{contract.name}: head {cp.head or 'none'} (chain length {cp.length}); "
                      f"{rows} memory row(s) in {len(cp.memory)} chain(s){extra}" + (f"; written to {out}" if out else ""),
                      highlight=False, soft_wrap=True)
