"""`mathloop targets`: the targets the installed distributions register, with their contracts."""

from __future__ import annotations

import typer
from rich.table import Table

from mathloop.cli.common import console, print_json
from mathloop.contract import ContractError
from mathloop.targets import load_contract
from mathloop.targets import shipped_contracts


def targets(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """List the targets: every contract shipped by a target registered under the `mathloop.targets` entry points."""
    rows = []
    for shipped in shipped_contracts():
        base = {"name": shipped.name, "implementation": shipped.implementation, "source": "package",
                "package": shipped.distribution}
        try:
            c = load_contract(shipped.name)
            rows.append({**base, "title": c.title, "contract_sha256": c.sha256,
                         "bounds": [b.name for b in c.bounds], "hypotheses": [h.id for h in c.hypotheses]})
        except ContractError as e:
            rows.append({**base, "error": str(e)})
    if as_json:
        print_json(rows)
        return
    t = Table(title="targets (entry points mathloop.targets)")
    for col in ("target", "implementation", "package", "title", "bounds", "rests on"):
        t.add_column(col, overflow="fold")
    for r in rows:
        if "error" in r:
            t.add_row(r["name"], r["implementation"], r["package"], "[red]invalid[/] " + r["error"], "", "")
        else:
            t.add_row(r["name"], r["implementation"], r["package"], r["title"], ", ".join(r["bounds"]),
                      ", ".join(r["hypotheses"]))
    console.print(t)
