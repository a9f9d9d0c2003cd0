"""The obligation DAG with per-node status at a state: rows for the terminal and the pages, DOT for graphviz."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Mapping

import networkx as nx

from mathloop.outputs import replacing, write_text

from mathloop.contract.model import BoundSpec, Contract
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, decimal_str, fraction_str


LEAN_CHECKED = "Lean-checked"
# Every status a node can have, in legend order (the terminal, DOT, the HTML page and the figure use them all).
STATUSES = ("taken as given", "open", "discharged", LEAN_CHECKED, "refuted", "error")


@dataclass(frozen=True)
class BoundView:
    """A bound obligation's certified value next to its class maximum and goal (decimals rounded safely).

    Attributes:
        name / direction: the contract's bound name and direction.
        value / exact: the certified value (decimal rounded in the safe direction / exact rational), None if not certified.
        class_maximum: the value no valid certificate can exceed, if the contract states one.
        class_maximum_basis: "theorem", "numerical optimum" or "not stated": why that maximum holds.
        class_maximum_why: the contract's words on it, if it gives them.
        goal: the value at which the obligation counts as discharged, if any.
        lean_checked: a real Lean kernel accepted the certificate of this value.
    """

    name: str
    direction: str
    value: str | None
    exact: str | None
    class_maximum: str | None
    class_maximum_basis: str
    goal: str | None
    lean_checked: bool = False
    class_maximum_why: str | None = None


@dataclass(frozen=True)
class NodeStatus:
    """One obligation at a state: how it stands, by which checker and trust level, and why."""

    id: str
    kind: Kind
    title: str
    status: str  # one of STATUSES
    rank: int | None
    trust: str | None
    detail: str | None
    depends_on: tuple[str, ...]
    statement: str = ""
    citation: str | None = None
    checker: str | None = None
    verdict: str | None = None
    reasons: tuple[str, ...] = ()
    bound: BoundView | None = None
    covered: float | None = None  # for a family node: the fraction of its members discharged since the root

    def to_json(self) -> dict:
        """Return the node as JSON-ready data (what the HTML page embeds)."""
        d = asdict(self)
        d["kind"] = self.kind.value
        d["depends_on"] = list(self.depends_on)
        d["reasons"] = list(self.reasons)
        return d


def class_maximum_basis(spec: BoundSpec) -> str:
    """Return "theorem", "numerical optimum" or "not stated": what the contract says its class maximum rests on."""
    if spec.class_maximum is None or not spec.class_maximum_basis:
        return "not stated"
    return "theorem" if spec.class_maximum_is_theorem else "numerical optimum"


def class_maximum_why(spec: BoundSpec) -> str | None:
    """Return the contract's own words on why the class maximum holds (after "theorem:"), or None."""
    basis = spec.class_maximum_basis
    if not basis:
        return None
    for head in ("theorem", "numerical optimum"):
        if basis.startswith(head):
            return basis.removeprefix(head).lstrip(": ") or None
    return basis


def _dec(value: Fraction, spec: BoundSpec, *, ceiling: bool = False) -> str:
    """Return the bound's decimal rounded in the safe direction: a certified value down for a maximised bound,
    a ceiling (class maximum, goal) the other way, so that neither is shown as more favourable than it is."""
    maximize = spec.direction is Direction.MAXIMIZE
    return decimal_str(value, spec.digits, round_down=maximize != ceiling)


def _bound_view(spec: BoundSpec, evidence: Evidence | None, lean_checked: bool) -> BoundView:
    value = evidence.bounds.get(spec.name) if evidence else None
    return BoundView(spec.name, spec.direction.value, _dec(value, spec) if value is not None else None,
                     fraction_str(value) if value is not None else None,
                     _dec(spec.class_maximum, spec, ceiling=True) if spec.class_maximum is not None else None,
                     class_maximum_basis(spec),
                     _dec(spec.goal, spec, ceiling=True) if spec.goal is not None else None,
                     lean_checked and value is not None, class_maximum_why(spec))


def node_statuses(contract: Contract, evidence: Evidence | None, details: Mapping[str, str | None], *,
                  lean: str | None = None, root_ranks: Mapping[str, int] | None = None) -> list[NodeStatus]:
    """Return the obligations in topological order with their status at the evidence's state.

    `lean` is the commit's Lean status: only "checked" (a real Lean kernel accepted the commit's
    certificate) makes a discharged bound node "Lean-checked"; a result whose own trust is `lean` is too.
    `root_ranks` (the lineage root's ranks) gives a family node the fraction of members discharged since.
    """
    g = contract.graph()
    out = []
    for oid in nx.lexicographical_topological_sort(g):
        o = contract.obligation(oid)
        r = evidence.result(oid) if evidence else None
        lean_ok = lean == "checked" and o.kind is Kind.BOUND
        if o.kind is Kind.HYPOTHESIS:
            status = "taken as given"
        elif r is None:
            status = "open"
        elif r.rank == 0:
            status = LEAN_CHECKED if (lean_ok or r.trust is Trust.LEAN) else "discharged"
        else:
            status = {Verdict.REFUTED: "refuted", Verdict.UNKNOWN: "open", Verdict.ERROR: "error"}.get(r.verdict, "open")
        covered = None
        if r is not None and root_ranks and root_ranks.get(oid, 0) > 1:
            covered = max(0.0, min(1.0, 1 - r.rank / root_ranks[oid]))
        out.append(NodeStatus(
            oid, o.kind, o.title, status, r.rank if r else None, r.trust.value if r else None, details.get(oid),
            o.depends_on, statement=o.statement, citation=o.citation, checker=o.checker,
            verdict=r.verdict.value if r else None, reasons=r.reasons if r else (),
            bound=_bound_view(o.bound, evidence, lean_ok) if o.bound is not None else None,
            covered=covered))
    return out


COLOURS = {"discharged": "#c8e6c9", "open": "#fff9c4", "refuted": "#ffcdd2", "error": "#ffcdd2",
           "taken as given": "#e1f5fe", LEAN_CHECKED: "#81c784"}
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
        if n.bound is not None and n.bound.class_maximum is not None:
            label += f"\nclass maximum {n.bound.class_maximum} ({n.bound.class_maximum_basis})"
        lines.append(f"  {_q(n.id)} [label={_q(label)}, shape={_SHAPES[n.kind]}, fillcolor={_q(COLOURS.get(n.status, '#ffffff'))}];")
    for n in nodes:
        for d in n.depends_on:
            lines.append(f"  {_q(d)} -> {_q(n.id)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot_text: str, out: Path, fmt: str) -> None:
    """Write DOT, or SVG/PNG through graphviz's `dot`, all or nothing.

    Raises:
        OutputError: `out` cannot be written (mathloop.outputs).
        RuntimeError: `dot` is missing or fails.
    """
    if fmt == "dot":
        write_text(out, dot_text)
        return
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("graphviz `dot` is not installed (apt-get install graphviz); use --format dot")
    with replacing(out) as tmp:
        proc = subprocess.run([exe, f"-T{fmt}", "-o", str(tmp)], input=dot_text.encode("utf-8"), capture_output=True,
                              timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"dot failed: {proc.stderr.decode(errors='replace')[:500]}")
