"""The read-only view's HTML pages: the values each template shows (view/templates/, autoescaped)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Mapping, Sequence
from urllib.parse import urlencode

from markupsafe import Markup

from mathloop.contract.model import REST_ON_LABEL, Contract
from mathloop.domain import Direction, Label, decimal_str
from mathloop.propose.origin import credited_to
from mathloop.store.repository import CandidateRecord, CommitRecord
from mathloop.view.markup import macro, render
from mathloop.web.queries import CandidateLine, Lineage


def nav_bar(*, styled: bool = False, lineage: tuple[str, str] | None = None) -> Markup:
    """Return the navigation bar (with its own style rules when the page does not carry ours).

    `lineage` = (contract sha, name) adds links to that target's page and candidates.
    """
    return macro("macros.html", "nav", styled=styled, lineage=lineage)


def bound_text(contract: Contract | None, bounds: Mapping[str, Any]) -> str:
    """Return "kappa ≥ 0.40…" for stored bounds, rounded in the safe direction (raw rationals without a contract)."""
    parts = []
    for name, raw in sorted(bounds.items()):
        value = Fraction(raw)
        spec = next((b for b in contract.bounds if b.name == name), None) if contract else None
        if spec is None:
            parts.append(f"{name} = {raw}")
            continue
        down = spec.direction is Direction.MAXIMIZE
        parts.append(f"{name} {'≥' if down else '≤'} {decimal_str(value, spec.digits, round_down=down)}")
    return ", ".join(parts) or "none certified"


def rests_on(contract: Contract | None) -> Markup:
    """Return the line naming what every bound of the contract rests on (Contract.rests_on; empty without a contract)."""
    return macro("macros.html", "rests_on", REST_ON_LABEL, contract.rests_on() if contract else None)


def index_page(lines: list[tuple[Lineage, Contract | None]], store: str) -> str:
    """Return the store's front page: one row per lineage, its certified head and what it rests on."""
    rows = [{"sha": lin.sha256, "name": lin.name, "impl": lin.target, "commits": lin.commits, "failed": lin.failed,
             "bounds": bound_text(contract, json.loads(lin.head.bounds)) if lin.head else "no commits yet",
             "given": contract.rests_on() if contract else None, "head": lin.head.created_at[:19] if lin.head else "-",
             "labels": ", ".join(f"{k} {v}" for k, v in sorted(lin.labels.items())) or "-"}
            for lin, contract in lines]
    return render("index.html", title="targets", rows=rows, store=store, rest_label=REST_ON_LABEL)


def target_page(lin: Lineage, contract: Contract | None, commits: list[CommitRecord], lean: Mapping[str, str],
                problem: str | None, bracket: str | None = None, bracket_steps: Sequence[str] = ()) -> str:
    """Return a lineage's page: its certified head, bracket, what it rests on and its commit chain."""
    head = commits[-1] if commits else None
    rows = [{"seq": c.seq, "hash": c.hash, "parent": "-" if c.seq == 0 else c.parent[:12], "at": c.created_at[:19],
             "label": f"{c.label} — FAILED its re-check" if c.hash in lin.failed else c.label,
             "bounds": bound_text(contract, {k: str(v) for k, v in c.bounds.items()}), "lean": lean.get(c.hash, "pending")}
            for c in reversed(commits)]
    return render("target.html", title=lin.name, name=lin.name, contract_title=contract.title if contract else "",
                  problem=problem, failed=lin.failed, bracket=bracket, steps=list(bracket_steps), sha=lin.sha256,
                  bounds=bound_text(contract, {k: str(v) for k, v in head.bounds.items()}) if head else "no commits yet",
                  given=(contract.rests_on(cite=True) if contract else "") or "-", head=head.hash if head else "-",
                  rows=rows)


def candidates_page(lin: Lineage, lines: list[CandidateLine], total: int, label: str | None, page: int,
                    per_page: int) -> str:
    """Return one page of a lineage's candidates, newest first, filtered by `label`."""
    filters = [{"on": not label, "query": "", "text": "all", "n": sum(lin.labels.values())}]
    filters += [{"on": label == l.value, "query": urlencode({"label": l.value}), "text": l.value, "n": lin.labels[l.value]}
                for l in Label if l.value in lin.labels]
    last = max(0, (total - 1) // per_page)
    q = {"label": label} if label else {}
    moves = ([("newer", urlencode({**q, "page": page - 1}))] if page > 0 else []) + \
            ([("older", urlencode({**q, "page": page + 1}))] if page < last else [])
    return render("candidates.html", title=f"{lin.name} candidates", name=lin.name, sha=lin.sha256, filters=filters,
                  total=total, label=label, page=page, pages=last, moves=moves, lines=lines,
                  labels={l.value for l in Label})


def _shown(value: Any, limit: int = 200_000) -> str:
    """Return a stored value as the text of a <pre> block (JSON, indented), cut after `limit` characters."""
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters)"
    return text


def _program(p: Any) -> dict[str, Any] | None:
    """Return what the page shows of the program behind a candidate (its standard output was the payload), or None."""
    if not isinstance(p, dict) or not isinstance(p.get("text"), str):
        return None
    run = p.get("run") if isinstance(p.get("run"), dict) else {}
    return {"sha": str(p.get("sha256", "")), "chars": len(p["text"]), "code": str(run.get("exit_code", "-")),
            "secs": str(run.get("seconds", "-")), "out": str(run.get("stdout_bytes", "-")),
            "stopped": run.get("stopped") or "", "text": _shown(p["text"])}


def candidate_page(c: CandidateRecord, lineage_name: str, contract_sha: str) -> str:
    """Return one candidate's page: reasons, payload, program, evidence, bounds, artifacts and metadata."""
    ev = c.evidence
    who, file_sha = credited_to(c.meta, c.proposer)
    return render(
        "candidate.html", title=f"candidate {c.id}", c=c, ev=ev, name=lineage_name, sha=contract_sha, who=who,
        file_sha=file_sha, payload=_shown(c.payload), program=_program(c.meta.get("program")),
        bounds=_shown({"bounds": {k: str(v) for k, v in ev.bounds.items()}, "state": ev.state,
                       "precision": ev.precision, "timings": dict(c.timings)}) if ev else "",
        artifacts=_shown(ev.artifacts) if ev else "", meta=_shown(dict(c.meta)))


def commit_page(c: CommitRecord, contract: Contract | None, lineage_name: str, lean: str | None) -> str:
    """Return one commit's page: hash, parent, certified and exact bounds, Lean status, ranks and state."""
    return render("commit.html", title=f"commit {c.hash[:12]}", c=c, name=lineage_name,
                  bounds=bound_text(contract, {k: str(v) for k, v in c.bounds.items()}),
                  exact=", ".join(f"{k} = {v}" for k, v in sorted(c.bounds.items())) or "-", lean=lean or "-",
                  ranks=_shown(dict(c.ranks)), state=_shown(dict(c.state)))


def error_page(status: int, message: str, matches: Sequence[tuple[str, str]] = ()) -> str:
    """Return an error page; `matches` = (href, hash) links to what the request may have meant."""
    return render("error.html", title=str(status), status=status, message=message, matches=list(matches))
