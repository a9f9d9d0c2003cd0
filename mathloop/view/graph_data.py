"""The obligation graph of a lineage at one commit, read from a store: what the page and the figure draw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathloop.contract.model import Contract
from mathloop.export.graph import NodeStatus, node_statuses
from mathloop.store.repository import Repository
from mathloop.targets import build_target


@dataclass(frozen=True)
class GraphView:
    """A contract's DAG at a commit (or before the root), with the commit's Lean status.

    Attributes:
        contract: the contract the lineage follows.
        commit / seq / created_at: the commit shown (None before the root).
        lean: the commit's Lean status (checked | refuted | pending | unavailable | not_rendered | ...), None if unknown.
        nodes: every obligation in topological order with its status.
        commits: how many commits the lineage has.
        lean_detail: which Lean answered and what it said, e.g. "bundled Lean 4.35.0; axioms: none".
        bracket: for a lineage paired with a ceiling (or primal) lineage in the same store, the certified
            bracket of the class's best value, e.g. "[0.6778713265, 0.7044590504] (width ...)"; else None.
    """

    contract: Contract
    commit: str | None
    seq: int | None
    created_at: str | None
    lean: str | None
    nodes: tuple[NodeStatus, ...]
    commits: int
    bracket: str | None = None
    lean_detail: str | None = None

    @property
    def bounds_line(self) -> str:
        """Return "kappa ≥ 0.40…, …" for the certified bounds, or why there are none."""
        if self.commit is None:
            return "no commits yet"
        parts = [f"{n.bound.name} {'≤' if n.bound.direction == 'minimize' else '≥'} {n.bound.value}"
                 for n in self.nodes if n.bound is not None and n.bound.value is not None]
        return ", ".join(parts) or "none certified"

    def to_json(self) -> dict[str, Any]:
        return {"target": self.contract.name, "title": self.contract.title, "contract_sha256": self.contract.sha256,
                "commit": self.commit, "seq": self.seq, "created_at": self.created_at,
                "lean": self.lean, "lean_detail": self.lean_detail,
                "commits": self.commits, "bounds": self.bounds_line, "bracket": self.bracket,
                "nodes": [n.to_json() for n in self.nodes]}


def lean_statuses(repo: Repository, contract_sha: str) -> dict[str, str]:
    """Return {commit hash: Lean status} for the commits that have one (the one place pictures read it from).

    Statuses come from the Lean attestation chain (checked | refuted | unavailable | not_rendered; a
    commit without an attestation is pending). Reading never creates a table: the store may be read-only.
    """
    from sqlalchemy import inspect

    from mathloop.lean import attest

    if not inspect(repo.engine).has_table(attest.LeanAttestationRow.__tablename__):
        return {}
    return {h: a.status for h, a in attest.latest(repo.engine, contract_sha).items()}


def graph_view(contract: Contract, repo: Repository, commit: str | None = None) -> GraphView:
    """Return the graph at `commit` (a full hash; default the head). Raises KeyError for a commit not in the lineage."""
    head = repo.head(contract.sha256)
    at = head
    if commit is not None and (head is None or commit != head.hash):
        at = repo.get_commit(commit)
        if at is None or at.contract_sha != contract.sha256:
            raise KeyError(commit)
    evidence = repo.candidate(at.candidate_id).evidence if at else None
    root_ranks = _root_ranks(repo, contract.sha256) if at is not None else None
    target = build_target(contract)
    details = {o.id: target.graph_detail(o.id, at.state if at else None) for o in contract.obligations}
    att = _attestation(repo, contract.sha256, at.hash) if at else None
    lean = (att.status if att is not None else "pending") if at else None  # no attestation: pending
    nodes = node_statuses(contract, evidence, details, lean=lean, root_ranks=root_ranks)
    from mathloop.check.bracket import bracket

    br = bracket(repo, contract)
    return GraphView(contract, at.hash if at else None, at.seq if at else None, at.created_at if at else None,
                     lean, tuple(nodes), head.seq + 1 if head else 0, br.text() if br is not None else None,
                     _lean_words(att))


def _root_ranks(repo: Repository, contract_sha: str) -> dict[str, int] | None:
    """Return the ranks of the lineage's root commit (what a family node's progress is measured from)."""
    import json

    from sqlmodel import Session, select

    from mathloop.store.models import CommitRow

    with Session(repo.engine) as s:
        ranks = s.exec(select(CommitRow.ranks).where(CommitRow.contract_sha == contract_sha, CommitRow.seq == 0)).first()
    return json.loads(ranks) if ranks else None


def _attestation(repo: Repository, contract_sha: str, commit: str):
    """Return the commit's latest Lean attestation, or None (without creating a table)."""
    from sqlalchemy import inspect

    from mathloop.lean import attest

    if not inspect(repo.engine).has_table(attest.LeanAttestationRow.__tablename__):
        return None
    return attest.latest(repo.engine, contract_sha).get(commit)


def _lean_words(att) -> str | None:
    """Return "bundled Lean 4.35.0; axioms: none" (or the reason it did not check) for an attestation."""
    if att is None:
        return None
    parts = [" ".join(x for x in (att.kind, f"Lean {att.lean_version}" if att.lean_version else "") if x)]
    if att.status == "checked":
        parts.append("axioms: " + (", ".join(att.axioms) or "none"))
    if att.reasons:
        parts.append(att.reasons[0][:300])
    return "; ".join(p for p in parts if p) or None
