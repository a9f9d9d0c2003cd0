"""The obligation graph as an SVG or PNG figure drawn with matplotlib (no graphviz needed)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mathloop.domain import Kind
from mathloop.export.graph import COLOURS, STATUSES
from mathloop.outputs import replacing
from mathloop.view.graph_data import GraphView
from mathloop.view.layout import positions


def new_figure(width: float, height: float):
    """Return a matplotlib Figure not managed by pyplot (no global backend or state: safe in servers and notebooks).

    Raises RuntimeError naming the extra when matplotlib is missing.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise RuntimeError("matplotlib is not installed: pip install 'mathloop[plot]'") from None
    return Figure(figsize=(width, height))


def save_atomically(fig, out: Path, fmt: str, *, tight: bool = True) -> None:
    """Write the figure to `out` all or nothing (mathloop.outputs). Raises OutputError if it cannot be written."""
    with replacing(out) as tmp:
        fig.savefig(tmp, format=fmt, dpi=150 if fmt == "png" else None, bbox_inches="tight" if tight else None,
                    metadata={"Date": None} if fmt == "svg" else None)


def graph_figure(view: GraphView, out: Path, fmt: str) -> None:
    """Draw the DAG (boxes coloured by status, edges upstream → downstream) into `out` as svg or png."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch

    g = view.contract.graph()
    pos, routes = positions(g, use_graphviz=False)
    cols = max((p[0] for p in pos.values()), default=0) + 1
    rows = max((p[1] for p in pos.values()), default=0) + 1
    fig = new_figure(max(6.0, 2.3 * cols), max(3.0, 1.25 * rows + 1.2))
    ax = fig.subplots()
    bw, bh = 0.86, 0.55
    for a, b in g.edges:
        pts = [(pos[a][0], -pos[a][1] - bh / 2)]
        for x, y in routes.get((a, b), ()):
            pts += [(x, -y + bh / 2), (x, -y - bh / 2)]
        pts.append((pos[b][0], -pos[b][1] + bh / 2))
        for p, q in zip(pts[:-2], pts[1:-1]):
            ax.plot([p[0], q[0]], [p[1], q[1]], color="#90a4ae", lw=0.9)
        ax.add_patch(FancyArrowPatch(pts[-2], pts[-1], arrowstyle="-|>", mutation_scale=9, color="#90a4ae", lw=0.9))
    for n in view.nodes:
        x, y = pos[n.id]
        box = FancyBboxPatch((x - bw / 2, -y - bh / 2), bw, bh, boxstyle="round,pad=0.02,rounding_size=0.06",
                             fc=COLOURS.get(n.status, "#fff"), ec="#333" if n.kind is Kind.BOUND else "#777",
                             lw=2.0 if n.kind is Kind.BOUND else 0.8)
        ax.add_patch(box)
        third = n.status + (f" · {n.trust}" if n.trust else "")
        if n.bound is not None and n.bound.value is not None:
            third = f"{'≤' if n.bound.direction == 'minimize' else '≥'} {n.bound.value}"
        title = textwrap.shorten(n.title, 30, placeholder="…")
        ax.text(x, -y + 0.13, textwrap.shorten(n.id, 24, placeholder="…"), ha="center", va="center", fontsize=7.5,
                fontweight="bold")
        ax.text(x, -y, title, ha="center", va="center", fontsize=6.5)
        ax.text(x, -y - 0.14, third, ha="center", va="center", fontsize=6.5, color="#333")
    ax.set_xlim(-0.6, cols - 0.4)
    ax.set_ylim(-rows + 0.4, 0.6)
    ax.axis("off")
    ax.set_title(f"{view.contract.title}\n{view.bounds_line}" + (f" — commit {view.commit[:12]}" if view.commit else ""),
                 fontsize=9)
    ax.legend(handles=[Patch(fc=COLOURS[s], ec="#777", label=s) for s in STATUSES], loc="upper center",
              bbox_to_anchor=(0.5, 0.0), ncol=len(STATUSES), fontsize=7, frameon=False)
    save_atomically(fig, out, fmt)
