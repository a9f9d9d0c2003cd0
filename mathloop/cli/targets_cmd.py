"""`mathloop targets`: the contracts available, with their bounds and hypotheses."""

from __future__ import annotations

import typer
from rich.table import Table

from mathloop.cli.common import console, print_json
from mathloop.contract import ContractError, available_contracts, contracts_dir, load_contract


def targets(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """List the targets (contracts in obligations/)."""
    rows = []
    for path in available_contracts():
        try:
            c = load_contract(path)
            rows.append({"name": c.name, "implementation": c.target, "title": c.title, "contract_sha256": c.sha256,
                         "bounds": [b.name for b in c.bounds], "hypotheses": [h.id for h in c.hypotheses]})
        except ContractError as e:
            rows.append({"name": path.stem, "error": str(e)})
    if as_json:
        print_json(rows)
        return
    t = Table(title=f"targets in {contracts_dir()}")
    for col in ("target", "implementation", "title", "bounds", "rests on"):
        t.add_column(col, overflow="fold")
    for r in rows:
        if "error" in r:
            t.add_row(r["name"], "[red]invalid[/]", r["error"], "", "")
        else:
            t.add_row(r["name"], r["implementation"], r["title"], ", ".join(r["bounds"]), ", ".join(r["hypotheses"]))
    console.print(t)
