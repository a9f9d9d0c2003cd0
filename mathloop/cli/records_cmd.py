"""`mathloop records`: the certified leaderboard of the table constants (terminal, --json, --markdown)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mathloop.cli.common import DB_HELP, console, fail, print_json


def records(
    db: Optional[str] = typer.Option(None, "--db", help="Add the best head of every lineage in this store. " + DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output (every field, exact values)."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the docs page (docs/records.md) instead."),
    certificates: Optional[Path] = typer.Option(None, "--certificates", file_okay=False,
                                                help="Write each store head that beats a published best to this "
                                                     "folder as mathloop-record-<value>.json (needs --db)."),
) -> None:
    """Show every table constant: the published best (source, date), the best construction mathloop certified (by
    whom, exact value, Lean status) and whether mathloop's own best beats the published one."""
    from mathloop.contract import ContractError
    from mathloop.view.leaderboard import leaderboard, page_markdown, write_certificate

    repo = None
    if db is not None:
        from mathloop.store.engine import StoreError, make_engine
        from mathloop.store.repository import Repository

        try:
            repo = Repository(make_engine(db, create=False))
        except StoreError as e:
            fail(str(e))
    try:
        rows = leaderboard(repo)
    except ContractError as e:
        fail(str(e))
    if certificates is not None:
        if repo is None:
            fail("--certificates needs --db (the heads to write come from a store)")
        rows = [write_certificate(repo, r, certificates) if r.beats else r for r in rows]
    if as_json:
        print_json({"constants": [r.to_json() for r in rows], "store": db})
        return
    if markdown:
        console.print(page_markdown(rows), markup=False, highlight=False, soft_wrap=True, end="")
        return
    _table(rows, db)


def _table(rows, db: Optional[str]) -> None:
    from rich.table import Table
    from rich.text import Text

    t = Table(title="Certified leaderboard" + (f" (store {db})" if db else " (shipped records)"), show_lines=True,
              title_justify="left")
    t.add_column("constant", no_wrap=True)
    t.add_column("published best", overflow="fold", ratio=3)
    t.add_column("mathloop certified", overflow="fold", ratio=3)
    t.add_column("beats", no_wrap=True)
    t.add_column("Lean", overflow="fold", ratio=1)
    for r in rows:
        sign = "≥" if r.direction == "lower" else "≤"
        published = Text(f"{sign} {r.published_value}\n{r.published_who}, {r.published_date}")
        if r.best is None:
            mine = Text("none certified")
        else:
            who = f"{r.best.by} (published)" if r.best.kind == "published" else r.best.by
            given = f"\nconditional on {', '.join(r.best.conditional_on)}" if r.best.conditional_on else ""
            mine = Text(f"{sign} {r.best.shown}\n{who}{given}")
        beats = Text("yes", style="bold green") if r.beats else Text("no")
        t.add_row(Text(f"{r.symbol}\n{r.table_id}"), published, mine, beats, Text(r.best.lean if r.best else "—"))
    console.print(t)
    for r in rows:
        if r.beats and r.best is not None:
            console.print(Text(f"{r.symbol}: re-certify with: {r.command}"))
    console.print(Text("Every value is certified exactly or in outward-rounded balls; --json gives the sources and "
                       "the exact values, --markdown the docs page."), style="dim")
