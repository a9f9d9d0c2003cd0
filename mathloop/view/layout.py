"""Node positions for a DAG: graphviz's `dot` when it is installed, else a layered networkx layout."""

from __future__ import annotations

import shutil
import subprocess

import networkx as nx

# A position is (x, y) in layout units: x grows to the right, y downward (layer 0 on top).
Positions = dict[str, tuple[float, float]]
# Bend points of the edges that skip rows, in layout units.
Routes = dict[tuple[str, str], list[tuple[float, float]]]


def layered(g: nx.DiGraph) -> Positions:
    """Return positions with each topological generation on one row, ordered to reduce edge crossings."""
    return layered_routes(g)[0]


def layered_routes(g: nx.DiGraph) -> tuple[Positions, Routes]:
    """Return node positions and, for edges that skip rows, the bend points through the rows between.

    A long edge gets one placeholder per skipped row (Sugiyama-style), ordered with the real nodes, so it
    runs beside the nodes of those rows instead of through them.
    """
    level = {n: i for i, gen in enumerate(nx.topological_generations(g)) for n in gen}
    h = nx.DiGraph()
    h.add_nodes_from(g.nodes)
    chains: dict[tuple[str, str], list[str]] = {}
    for a, b in g.edges:
        prev, chain = a, []
        for k in range(level[a] + 1, level[b]):
            d = f"\0{a}\0{b}\0{k}"
            h.add_edge(prev, d)
            chain.append(d)
            prev = d
        h.add_edge(prev, b)
        chains[(a, b)] = chain
    lv = {n: level[n] for n in g.nodes}
    for chain in chains.values():
        for d in chain:
            lv[d] = int(d.rsplit("\0", 1)[1])
    layers: list[list[str]] = [[] for _ in range(max(lv.values(), default=-1) + 1)]
    for n in sorted(lv, key=lambda n: (n.startswith("\0"), n)):
        layers[lv[n]].append(n)
    for _ in range(4):  # barycentre sweeps, down then up
        for i in range(1, len(layers)):
            _order_by(layers[i], layers[i - 1], h.predecessors)
        for i in range(len(layers) - 2, -1, -1):
            _order_by(layers[i], layers[i + 1], h.successors)
    width = max((len(l) for l in layers), default=1)
    pos: dict[str, tuple[float, float]] = {}
    for y, layer in enumerate(layers):
        offset = (width - len(layer)) / 2
        for x, node in enumerate(layer):
            pos[node] = (offset + x, float(y))
    routes = {e: [pos[d] for d in chain] for e, chain in chains.items() if chain}
    return {n: pos[n] for n in g.nodes}, routes


def _order_by(layer: list[str], other: list[str], neighbours) -> None:
    """Sort `layer` in place by the mean position of each node's neighbours in `other`."""
    index = {n: i for i, n in enumerate(other)}
    current = {n: i for i, n in enumerate(layer)}

    def key(n: str) -> tuple[float, str]:
        xs = [index[m] for m in neighbours(n) if m in index]
        return (sum(xs) / len(xs) if xs else current[n], n)

    layer.sort(key=key)


def graphviz(g: nx.DiGraph, timeout: float = 30) -> Positions | None:
    """Return positions from `dot -Tplain` (scaled to node units), or None when dot is missing or fails."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    ids = {n: f"n{i}" for i, n in enumerate(g.nodes)}
    back = {v: k for k, v in ids.items()}
    lines = ["digraph G { rankdir=TB; nodesep=0.3; ranksep=0.5; node [shape=box, width=2.2, height=0.7, fixedsize=true];"]
    lines += [f"  {ids[n]};" for n in g.nodes]
    lines += [f"  {ids[a]} -> {ids[b]};" for a, b in g.edges]
    lines.append("}")
    try:
        proc = subprocess.run([exe, "-Tplain"], input="\n".join(lines).encode(), capture_output=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    pos: Positions = {}
    height = 0.0
    for row in proc.stdout.decode().splitlines():
        parts = row.split()
        if parts and parts[0] == "graph":
            height = float(parts[3])
        elif parts and parts[0] == "node" and parts[1] in back:
            # dot's y grows upward, in inches; one node box is 2.2 x 0.7 inches plus separations
            pos[back[parts[1]]] = (float(parts[2]) / 2.5, (height - float(parts[3])) / 1.2)
    if len(pos) != g.number_of_nodes():
        return None
    x0, y0 = min(p[0] for p in pos.values()), min(p[1] for p in pos.values())
    return {n: (round(x - x0, 3), round(y - y0, 3)) for n, (x, y) in pos.items()}  # centres -> from (0, 0)


def positions(g: nx.DiGraph, *, use_graphviz: bool = True) -> tuple[Positions, Routes]:
    """Return graphviz positions when available (and wanted, edges drawn straight), else the layered layout."""
    pos = graphviz(g) if use_graphviz else None
    return (pos, {}) if pos else layered_routes(g)
