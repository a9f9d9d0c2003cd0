"""`mathloop graph TARGET`: the obligation DAG with per-node status; DOT/SVG/PNG with --output."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.tree import Tree

from mathloop.cli.common import TARGET_HELP, contract_option, DB_HELP, bounds_text, console, fail, open_contract, open_repo
from mathloop.domain import Kind
from mathloop.export.graph import node_statuses, render, to_dot
from mathloop.search.bracket import bracket
from mathloop.targets import build_target

_STYLE = {"discharged": "green", "open": "yellow", "refuted": "red", "error": "red", "taken as given": "cyan"}


def graph(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write a picture (.dot, .svg, .png)."),
) -> None:
    """Show every obligation at the head: discharged, open, refuted, or a hypothesis taken as given."""
    contract = open_contract(target, contract_file)
    repo = open_repo(db)
    head = repo.head(contract.sha256)
    evidence = repo.candidate(head.candidate_id).evidence if head else None
    tgt = build_target(contract)
    details = {o.id: tgt.graph_detail(o.id, head.state if head else None) for o in contract.obligations}
    for o in contract.obligations:  # every class maximum says whether it is a theorem or a numerical optimum
        if o.bound is not None and o.bound.class_maximum is not None:
            details[o.id] = "; ".join(x for x in (details[o.id], o.bound.class_maximum_text()) if x)
    nodes = node_statuses(contract, evidence, details)
    lean = repo.lean_statuses(contract.sha256)
    bline = bounds_text(contract, head.bounds) if head else "no commits yet"
    if head:
        bline += f" — head {head.hash[:12]}" + (f", Lean: {lean[head.hash].status}" if head.hash in lean else "")
    br = bracket(repo, contract)
    if br is not None:
        bline += f" — bracket (ASSUMING RH) {br.text()}"
    if output is not None:
        fmt = output.suffix.lstrip(".").lower()
        if fmt not in ("dot", "svg", "png"):
            fail(f"--output {output}: unknown picture format {fmt!r} (use .dot, .svg or .png)")
        try:
            render(to_dot(contract, nodes, bline), output, fmt)
        except RuntimeError as e:
            fail(str(e), 1)
        console.print(f"wrote {output}")
        return
    tree = Tree(f"[bold]{contract.name}[/] — {bline}")
    by_kind: dict[Kind, Tree] = {}
    for n in nodes:
        branch = by_kind.get(n.kind) or by_kind.setdefault(n.kind, tree.add(f"[bold]{n.kind.value}[/]"))
        style = _STYLE.get(n.status, "white")
        line = f"[{style}]{n.status}[/] {n.id}: {n.title}"
        if n.rank:
            line += f" (rank {n.rank})"
        if n.trust:
            line += f" [{n.trust}]"
        if n.depends_on:
            line += f" ← {', '.join(n.depends_on)}"
        leaf = branch.add(line)
        if n.detail:
            leaf.add(n.detail)
        if n.kind is Kind.HYPOTHESIS:
            leaf.add(f"[cyan]{contract.obligation(n.id).citation}[/]")

    console.print(tree)
