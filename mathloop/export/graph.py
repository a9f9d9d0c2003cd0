"""The obligation DAG with per-node status at a state: rows for the terminal, DOT and SVG for pictures."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import networkx as nx

from mathloop.contract.model import Contract
from mathloop.domain import Evidence, Kind, Verdict


@dataclass(frozen=True)
class NodeStatus:
    """One obligation at a state: how it stands, by which checker and trust level."""

    id: str
    kind: Kind
    title: str
    status: str  # discharged | open | refuted | unknown | taken as given
    rank: int | None
    trust: str | None
    detail: str | None
    depends_on: tuple[str, ...]


def node_statuses(contract: Contract, evidence: Evidence | None, details: Mapping[str, str | None]) -> list[NodeStatus]:
    """Return the obligations in topological order with their status at the evidence's state."""
    g = contract.graph()
    out = []
    for oid in nx.lexicographical_topological_sort(g):
        o = contract.obligation(oid)
        r = evidence.result(oid) if evidence else None
        if o.kind is Kind.HYPOTHESIS:
            status = "taken as given"
        elif r is None:
            status = "open"
        elif r.rank == 0:
            status = "discharged"
        else:
            status = {Verdict.REFUTED: "refuted", Verdict.UNKNOWN: "open", Verdict.ERROR: "error"}.get(r.verdict, "open")
        out.append(NodeStatus(oid, o.kind, o.title, status, r.rank if r else None, r.trust.value if r else None,
                              details.get(oid), o.depends_on))
    return out


_COLOURS = {"discharged": "#c8e6c9", "open": "#fff9c4", "refuted": "#ffcdd2", "error": "#ffcdd2",
            "taken as given": "#e1f5fe"}
_SHAPES = {Kind.HYPOTHESIS: "note", Kind.INPUT: "parallelogram", Kind.CHECK: "box", Kind.LEMMA: "box",
           Kind.BOUND: "doubleoctagon"}


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(contract: Contract, nodes: list[NodeStatus], bounds_line: str) -> str:
    """Return Graphviz DOT text for the DAG (deterministic)."""
    lines = [f"digraph {_q(contract.name)} {{", "  rankdir=TB;", '  node [fontname="Helvetica", style=filled];',
             f"  labelloc=t; label={_q(contract.title + chr(10) + bounds_line)};"]
    for n in nodes:
        label = f"{n.id}\n{n.title}\n[{n.kind.value}: {n.status}" + (f", {n.trust}" if n.trust else "") + "]"
        if n.detail:
            label += "\n" + n.detail[:200]
        lines.append(f"  {_q(n.id)} [label={_q(label)}, shape={_SHAPES[n.kind]}, fillcolor={_q(_COLOURS.get(n.status, '#ffffff'))}];")
    for n in nodes:
        for d in n.depends_on:
            lines.append(f"  {_q(d)} -> {_q(n.id)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot_text: str, out: Path, fmt: str) -> None:
    """Write DOT, or SVG/PNG through graphviz's `dot`. Raises RuntimeError if `dot` is missing or fails."""
    if fmt == "dot":
        out.write_text(dot_text, encoding="utf-8")
        return
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("graphviz `dot` is not installed (apt-get install graphviz); use --format dot")
    tmp = out.with_name(out.name + ".partial")
    proc = subprocess.run([exe, f"-T{fmt}", "-o", str(tmp)], input=dot_text.encode("utf-8"), capture_output=True,
                          timeout=120)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"dot failed: {proc.stderr.decode(errors='replace')[:500]}")
    tmp.replace(out)
