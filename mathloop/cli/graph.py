"""`mathloop graph TARGET`: the obligation DAG with per-node status; HTML/SVG/PNG/DOT with --output."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

import typer
from rich.text import Text
from rich.tree import Tree

from mathloop.cli.common import (DB_HELP, TARGET_HELP, console, contract_option, fail, open_contract, open_repo,
                                 require_extra)
from mathloop.domain import Kind
from mathloop.export.graph import render, to_dot
from mathloop.outputs import OutputError, check_folder, write_text
from mathloop.check.bracket import bracket

_STYLE = {"discharged": "green", "Lean-checked": "bold green", "open": "yellow", "refuted": "red", "error": "red",
          "taken as given": "cyan"}
FORMATS = ("html", "svg", "png", "dot")


def graph(
    target: Optional[str] = typer.Argument(None, help=TARGET_HELP),
    contract_file: Optional[Path] = contract_option(),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write a picture (.html, .svg, .png, .dot)."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f",
                                      help="html (self-contained page), svg, png (graphviz if installed, else "
                                           "matplotlib) or dot. Default: from the --output suffix."),
    commit: Optional[str] = typer.Option(None, "--commit", help="Show the graph at this commit (full hash) instead of the head."),
) -> None:
    """Show every obligation at the head: discharged, Lean-checked, open, refuted, or a hypothesis taken as given."""
    from mathloop.view.graph_data import graph_view  # the view layer builds targets: imported on use

    if fmt is not None and fmt not in FORMATS:  # bad options fail before anything is opened
        fail(f"--format {fmt}: unknown format (use {', '.join(FORMATS)})")
    if fmt is not None and output is None:
        fail(f"--format {fmt} needs --output FILE")
    if output is not None:
        kind = fmt or output.suffix.lstrip(".").lower()
        if kind not in FORMATS:
            fail(f"--output {output}: unknown picture format {kind!r} (use .html, .svg, .png or .dot, or --format)")
        if kind in ("svg", "png") and not shutil.which("dot"):
            require_extra("plot", f"`mathloop graph -o {output.name}` without graphviz's dot", "matplotlib")
        try:
            check_folder(output)
        except OutputError as e:
            fail(f"--output {e}")
    contract = open_contract(target, contract_file)
    repo = open_repo(db, readonly=True)
    try:
        view = graph_view(contract, repo, commit)
    except KeyError:
        fail(f"--commit {commit}: no such commit in the {contract.name} lineage")
    bline = view.bounds_line
    if view.commit:
        bline += f" — head {view.commit[:12]}" + (f", Lean: {view.lean}" if view.lean else "")
    br = bracket(repo, contract)
    if br is not None:
        bline += f" — bracket (ASSUMING RH) {br.text()}"
    if output is not None:
        try:
            _write(view, kind, output, bline)
        except OutputError as e:
            fail(f"--output {e}")
        except RuntimeError as e:
            fail(str(e), 1)
        console.print(f"wrote {output}", highlight=False)
        return
    _print_tree(view, bline)


def _write(view, kind: str, output: Path, bline: str) -> None:
    """Write the picture all or nothing; svg/png go through graphviz when it is installed, else matplotlib.

    Raises:
        OutputError: the picture cannot be written (nothing is left behind).
        RuntimeError: graphviz or matplotlib failed to draw it.
    """
    if kind == "html":
        from mathloop.view.graph_page import graph_html

        write_text(output, graph_html(view))
    elif kind == "dot" or shutil.which("dot"):
        render(to_dot(view.contract, list(view.nodes), bline), output, kind)
    else:
        from mathloop.view.graph_figure import graph_figure

        graph_figure(view, output, kind)


def _print_tree(view, bline: str) -> None:
    contract = view.contract
    tree = Tree(Text.assemble((contract.name, "bold"), f" — {bline}"))
    by_kind: dict[Kind, Tree] = {}
    for n in view.nodes:
        branch = by_kind.get(n.kind) or by_kind.setdefault(n.kind, tree.add(Text(n.kind.value, style="bold")))
        line = Text.assemble((n.status, _STYLE.get(n.status, "white")), f" {n.id}: {n.title}")
        if n.rank:
            line.append(f" (rank {n.rank})")
        if n.trust:
            line.append(f" [{n.trust}]")
        if n.depends_on:
            line.append(f" ← {', '.join(n.depends_on)}")
        leaf = branch.add(line)
        if n.detail:
            leaf.add(n.detail)
        if n.bound is not None and n.bound.class_maximum is not None:  # theorem or numerical optimum, and why
            leaf.add(contract.obligation(n.id).bound.class_maximum_text())
        if n.kind is Kind.HYPOTHESIS:
            leaf.add(Text(n.citation or "", style="cyan"))
    console.print(tree)
