"""A lineage's history as plain series: certified bounds per commit and label counts per session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Mapping

from sqlalchemy import func
from sqlmodel import Session, select

from mathloop.contract.model import BoundSpec, Contract
from mathloop.store.models import CandidateRow, CommitRow, SessionRow
from mathloop.store.repository import Repository


@dataclass(frozen=True)
class BoundPoint:
    """One commit's certified value of one bound."""

    seq: int
    at: datetime
    value: Fraction


@dataclass(frozen=True)
class SessionLabels:
    """One `mathloop run` of the lineage and how many candidates got each label in it (id None: no session)."""

    id: int | None
    started_at: str | None
    proposer: str | None
    labels: Mapping[str, int]


@dataclass(frozen=True)
class Reference:
    """A value drawn as a line next to a bound: its class maximum, goal or a published value."""

    label: str
    value: Fraction
    kind: str  # class maximum | goal | published | partner (the paired lineage's certified value)


@dataclass(frozen=True)
class History:
    """Everything the plots draw for one lineage."""

    contract: Contract
    bounds: Mapping[str, tuple[BoundPoint, ...]]
    references: Mapping[str, tuple[Reference, ...]]
    sessions: tuple[SessionLabels, ...]
    bracket: tuple = ()  # BracketStep rows (view/bracket_history.py) when the lineage is one side of a bracket


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def references(contract: Contract, spec: BoundSpec) -> tuple[Reference, ...]:
    """Return the lines to draw beside a bound: its class maximum (with its basis), goal and published values."""
    from mathloop.export.graph import class_maximum_basis

    out = []
    if spec.class_maximum is not None:
        out.append(Reference(f"{spec.class_limit_name} ({class_maximum_basis(spec)})", spec.class_maximum,
                             "class maximum"))
    if spec.goal is not None:
        out.append(Reference("goal", spec.goal, "goal"))
    for ref in getattr(spec, "references", None) or ():  # published values, where the contract lists them
        value = getattr(ref, "value", None)
        if value is not None:
            out.append(Reference(str(getattr(ref, "label", None) or getattr(ref, "citation", "published")),
                                 Fraction(value), "published"))
    from mathloop.targets import target_class  # the published records a target knows (display only)

    for who, value in target_class(contract.target, contract.path).published_bounds(spec.name):
        out.append(Reference(f"published: {who}", value, "published"))
    return tuple(out)


def history(contract: Contract, repo: Repository) -> History:
    """Return the lineage's certified bounds per commit, the reference lines, and label counts per session."""
    with Session(repo.engine) as s:
        rows = list(s.exec(select(CommitRow.seq, CommitRow.created_at, CommitRow.bounds)
                           .where(CommitRow.contract_sha == contract.sha256).order_by(CommitRow.seq)))
        counts = list(s.exec(select(CandidateRow.session_id, CandidateRow.label, func.count())
                             .where(CandidateRow.contract_sha == contract.sha256)
                             .group_by(CandidateRow.session_id, CandidateRow.label)))
        sessions = {r.id: r for r in s.exec(select(SessionRow).where(SessionRow.contract_sha == contract.sha256))}
    import json

    series: dict[str, list[BoundPoint]] = {b.name: [] for b in contract.bounds}
    for seq, created, bounds in rows:
        for name, value in json.loads(bounds).items():
            series.setdefault(name, []).append(BoundPoint(seq, _when(created), Fraction(value)))
    per: dict[int | None, dict[str, int]] = {sid: {} for sid in sessions}
    for sid, label, n in counts:
        per.setdefault(sid, {})[label] = int(n)
    order = sorted(per, key=lambda sid: (sid is None, sessions[sid].started_at if sid in sessions else "", sid or 0))
    labelled = tuple(SessionLabels(sid, sessions[sid].started_at if sid in sessions else None,
                                   sessions[sid].proposer if sid in sessions else None, per[sid]) for sid in order)
    refs = {b.name: references(contract, b) + _partner(contract, repo, b.name) for b in contract.bounds}
    from mathloop.view.bracket_history import bracket_history

    return History(contract, {k: tuple(v) for k, v in series.items()}, refs, labelled, bracket_history(repo, contract))


def _partner(contract: Contract, repo: Repository, bound: str) -> tuple[Reference, ...]:
    """Return the paired lineage's certified value as a line (a ceiling above a primal, or the reverse)."""
    from mathloop.check.bracket import bracket, pair_of

    br = bracket(repo, contract)
    if br is None:
        return ()
    is_primal = pair_of(contract)[4]
    mine, other = (br.primal, br.ceiling) if is_primal else (br.ceiling, br.primal)
    if mine.bound != bound or other.value is None:
        return ()
    what = "certified ceiling" if is_primal else "best certified primal"
    return (Reference(f"{what} of {other.contract} (ASSUMING RH)", other.value, "partner"),)
