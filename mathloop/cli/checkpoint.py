"""`mathloop checkpoint TARGET`: print or write the head hash, chain length and memory tips (keep it elsewhere)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mathloop.cli.common import DB_HELP, TARGET_HELP, console, contract_option, fail, open_contract, open_repo
from mathloop.outputs import OutputError, check_folder, write_text
from mathloop.audit.report import OTHER_CHAINS
from mathloop.store.checkpoint import take


def checkpoint(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the checkpoint as JSON."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the checkpoint (JSON) to this file."),
) -> None:
    """Record where the chain is now; `mathloop audit --checkpoint FILE` later fails if it was rolled back."""
    contract = open_contract(target, contract_file)
    if out is not None:  # a read-only or missing folder fails before the store is read
        try:
            check_folder(out)
        except OutputError as e:
            fail(f"-o {e}")
    repo = open_repo(db, create=False)
    cp = take(repo, contract.sha256, OTHER_CHAINS)
    text = cp.dumps()
    if out is not None:
        try:
            write_text(out, text)  # never a half-written checkpoint
        except OutputError as e:
            fail(f"-o {e}")
    if as_json:
        typer.echo(text, nl=False)
    else:
        rows = sum(n for n, _ in cp.memory.values())
        extra = "".join(f"; {n} row(s) of {t}" for t, (n, _) in sorted(cp.chains.items()))
        console.print(f"{contract.name}: head {cp.head or 'none'} (chain length {cp.length}); "
                      f"{rows} memory row(s) in {len(cp.memory)} chain(s){extra}" + (f"; written to {out}" if out else ""),
                      highlight=False, soft_wrap=True)
