"""`mathloop targets`: the targets the installed distributions register, with their contracts; and the
registry's section of `mathloop doctor` (names clashing and refused plug-ins)."""

from __future__ import annotations

from typing import Any

import typer
from rich.text import Text

from mathloop.cli.common import console, hypotheses_line, print_json
from mathloop.contract import ContractError
from mathloop.targets import load_contract, shipped_contracts
from mathloop.targets.registry import health


def targets(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """List the targets: every contract shipped by a target registered under the `mathloop.targets` entry points.

    A name two distributions register, and a plug-in that cannot be loaded, are listed as invalid with the
    distributions named; they are never run.
    """
    rows = []
    for shipped in shipped_contracts():
        base = {"name": shipped.name, "implementation": shipped.implementation, "source": "package",
                "package": shipped.distribution}
        try:
            c = load_contract(shipped.name)
            rows.append({**base, "title": c.title, "contract_sha256": c.sha256,
                         "bounds": [b.name for b in c.bounds], "hypotheses": [h.id for h in c.hypotheses],
                         "rests_on": hypotheses_line(c)})
        except ContractError as e:
            rows.append({**base, "error": str(e)})
    if as_json:
        print_json(rows)
        return
    # One block per target, so that nothing is folded mid-word at 80 columns: rich wraps at spaces, and
    # ids are joined with ", " so each stays whole; the contract hash is a prefix (--json: full).
    console.print("targets (entry points mathloop.targets); contract hashes are sha256 prefixes (--json: full)",
                  highlight=False)
    for r in rows:
        console.print(Text.assemble((r["name"], "bold"), f"  {r.get('contract_sha256', '')[:12] or '-'}  "
                                    f"{r['implementation']} ({r['package'] or ''})"), highlight=False)
        if "error" in r:
            console.print(Text.assemble("    ", ("invalid", "red"), f" {r['error']}"), highlight=False)
            continue
        console.print(f"    {r['title']}", highlight=False)
        console.print(f"    bounds: {', '.join(r['bounds'])}", highlight=False)
        console.print(f"    {r['rests_on']}", highlight=False)


def doctor_targets() -> list[dict[str, Any]]:
    """Return the registry's rows for `doctor --json` (name, distribution, entry_point, status, reason)."""
    return health()


def print_doctor_targets(rows: list[dict[str, Any]]) -> None:
    """Print the registry's section of `doctor`: how many targets load, and every clash or refusal by name."""
    bad = [r for r in rows if r["status"] != "ok"]
    ok = len(rows) - len(bad)
    colour = "green" if not bad else "red"
    console.print(Text.assemble("Targets: ", (f"{ok} of {len(rows)} registrations load", colour)), highlight=False)
    for r in bad:
        console.print(Text.assemble("  ", (r["status"], "red"), f": {r['name']} from {r['distribution']}: {r['reason']}"),
                      highlight=False)
