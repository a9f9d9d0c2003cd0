"""The obligation graph as one self-contained HTML page: inline SVG, our own CSS and script, no network."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from markupsafe import Markup

from mathloop.domain import Kind
from mathloop.export.graph import COLOURS, LEAN_CHECKED, STATUSES, NodeStatus
from mathloop.view.graph_data import GraphView
from mathloop.view.layout import positions
from mathloop.view.markup import macro, script_json, shipped

W, H, GAP_X, GAP_Y, MARGIN = 210, 70, 28, 56, 24
LEGEND = {"taken as given": "hypothesis (taken as given)", "open": "open", "discharged": "discharged",
          LEAN_CHECKED: "Lean-checked", "refuted": "refuted", "error": "checker error"}

SCRIPT_CSP_HASH = "sha256-" + base64.b64encode(hashlib.sha256(str(shipped("graph.js")).encode("utf-8")).digest()).decode()


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _node(n: NodeStatus, x: float, y: float) -> dict[str, Any]:
    """Return what the SVG shows of one node at (x, y): its box, three lines of text, coverage bar and tooltip."""
    third = n.status + (f" · {n.trust}" if n.trust else "")
    if n.bound is not None and n.bound.value is not None:
        third = (f"{'≤' if n.bound.direction == 'minimize' else '≥'} {n.bound.value} · "
                 + ("Lean ✓" if n.bound.lean_checked else n.status))
    return {"id": n.id, "status": n.status, "x": x, "y": y, "rx": "4" if n.kind is not Kind.HYPOTHESIS else "14",
            "fill": COLOURS.get(n.status, "#ffffff"), "bound_box": n.kind is Kind.BOUND, "id_text": _short(n.id, 30),
            "title": _short(n.title, 32), "third": _short(third, 34), "tip": f"{n.title} — {n.status}",
            "covered": None if n.covered is None else round((W - 16) * n.covered, 1)}


def graph_svg(view: GraphView) -> Markup:
    """Return the DAG as an inline SVG element (nodes clickable when the page's script runs)."""
    g = view.contract.graph()
    pos, routes = positions(g)
    px = lambda p: MARGIN + p[0] * (W + GAP_X)  # noqa: E731
    py = lambda p: MARGIN + p[1] * (H + GAP_Y)  # noqa: E731
    xs = {k: px(p) for k, p in pos.items()}
    ys = {k: py(p) for k, p in pos.items()}
    width = max(xs.values(), default=0) + W + MARGIN
    height = max(ys.values(), default=0) + H + MARGIN
    edges = []
    for a, b in g.edges:
        pts = [(xs[a] + W / 2, ys[a] + H)]
        for p in routes.get((a, b), ()):  # through the gaps of the rows this edge skips
            pts += [(px(p) + W / 2, py(p)), (px(p) + W / 2, py(p) + H)]
        pts.append((xs[b] + W / 2, ys[b] - 2))
        d = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}"
        for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
            my = (y1 + y2) / 2
            d += f" C{x1:.1f},{my:.1f} {x2:.1f},{my:.1f} {x2:.1f},{y2:.1f}" if y2 - y1 > H / 2 + 1 else f" L{x2:.1f},{y2:.1f}"
        edges.append(d)
    nodes = [_node(n, xs[n.id], ys[n.id]) for n in view.nodes]
    return macro("graph.html", "svg", view, nodes, edges, round(width), round(height), (W, H))


def _all_nodes(view: GraphView) -> list[tuple[NodeStatus, str, list[tuple[str, Any]]]]:
    """Return every node's full record, shown as static HTML (readable without the script): (node, colour, rows)."""
    items = []
    for n in view.nodes:
        rows = [("statement", n.statement), ("citation", n.citation), ("checker", n.checker), ("trust level", n.trust),
                ("verdict", n.verdict), ("rank", n.rank), ("at this state", n.detail)]
        if n.bound is not None:
            b = n.bound
            rows += [("certified value", b.value or "not certified"),
                     ("class maximum", f"{b.class_maximum} ({b.class_maximum_basis})" if b.class_maximum else "none stated"),
                     ("why the class maximum holds", b.class_maximum_why),
                     ("goal", b.goal), ("Lean", "Lean-checked" if b.lean_checked else "not Lean-checked")]
        items.append((n, COLOURS.get(n.status, "#fff"), [(k, v) for k, v in rows if v not in (None, "")]))
    return items


def _parts(view: GraphView) -> dict[str, Any]:
    """Return the values the graph's body shows besides the view: where it is, Lean, legend, SVG, nodes, data."""
    at = (f"commit #{view.seq} ({view.commits} in the lineage): " if view.commit else "") + (view.commit or "no commits yet")
    lean = f" · Lean: {view.lean}" + (f" ({view.lean_detail})" if view.lean_detail else "") if view.lean else ""
    return {"at": at, "lean": lean, "legend": [(COLOURS.get(s, "#fff"), LEGEND[s]) for s in STATUSES],
            "svg_markup": graph_svg(view), "items": _all_nodes(view), "data": script_json(view.to_json())}


def graph_body(view: GraphView) -> Markup:
    """Return the page body (header, legend, graph, panel, node list, embedded data, script)."""
    return macro("graph.html", "body", view, **_parts(view))


def graph_fragment(view: GraphView) -> Markup:
    """Return the graph as an embeddable fragment (its style, body and script), e.g. for a notebook cell."""
    return macro("graph.html", "fragment", view, **_parts(view))


def graph_html(view: GraphView, *, nav: Markup | None = None) -> str:
    """Return a complete, self-contained HTML document for the graph (no external resource of any kind)."""
    return str(macro("graph.html", "page", view, nav or "", **_parts(view)))
