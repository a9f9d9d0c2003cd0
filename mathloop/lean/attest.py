"""Lean results as hash-chained attestations: their own table, one chain per contract, verified by `audit`.

Each attestation says what happened to one commit's rendering (status, which Lean — kind, version and
commit hash, prelude sha256 — the files' sha256s, axioms, time). Its hash covers the previous
attestation's hash and its canonical body, so an edited, inserted or deleted row breaks the chain and
`audit` names the commit. The latest attestation of a commit is its Lean status; a commit with none is
`pending`. A well-formed, newly hashed attestation that contradicts an earlier one of its commit (e.g.
`refuted` appended after `checked`) is the audit's one contradiction check, on the rows
(audit/lineage.audit_lean_statuses), not this chain's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Callable, Iterable, Mapping

from sqlalchemy import Column, Text, UniqueConstraint
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select

from mathloop.domain import canonical_json, sha256_hex
from mathloop.store.races import until_not_raced

GENESIS = "0" * 64
STATUSES = ("checked", "refuted", "pending", "unavailable", "not_rendered")
RECORDED = ("checked", "refuted", "unavailable", "not_rendered")  # `pending` is the absence of a record
ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
KINDS = ("bundled", "toolchain")
APPEND_TRIES = 20  # appends racing other writers for the next seq before giving up


class LeanAttestationRow(SQLModel, table=True):
    """One attestation: a chained, hashed Lean result for one commit."""

    __tablename__ = "lean_attestations"
    __table_args__ = (UniqueConstraint("contract_sha", "seq", name="uq_lean_att_seq"),
                      UniqueConstraint("contract_sha", "prev", name="uq_lean_att_prev"))
    id: int | None = Field(default=None, primary_key=True)
    contract_sha: str = Field(index=True, max_length=64)
    seq: int
    prev: str = Field(max_length=64)
    commit_hash: str = Field(index=True, max_length=64)
    status: str
    body: str = Field(sa_column=Column(Text, nullable=False))
    hash: str = Field(max_length=64, unique=True)


@dataclass(frozen=True)
class Attestation:
    """What one Lean result says (the hashed body)."""

    commit: str
    status: str
    kind: str = ""
    lean_version: str = ""
    lean_commit: str = ""
    prelude_sha256: str = ""
    artifact_sha256: str = ""
    file_sha256s: Mapping[str, str] = None  # type: ignore[assignment]
    axioms: tuple[str, ...] = ()
    seconds: float | None = None
    reasons: tuple[str, ...] = ()
    created_at: str = ""

    def body(self) -> dict[str, Any]:
        return {"commit": self.commit, "status": self.status, "kind": self.kind, "lean_version": self.lean_version,
                "lean_commit": self.lean_commit, "prelude_sha256": self.prelude_sha256,
                "artifact_sha256": self.artifact_sha256, "file_sha256s": dict(self.file_sha256s or {}),
                "axioms": list(self.axioms),
                "milliseconds": None if self.seconds is None else int(round(self.seconds * 1000)), "reasons": [r[:500] for r in self.reasons[:8]],
                "created_at": self.created_at}

    @classmethod
    def from_body(cls, d: Mapping[str, Any]) -> "Attestation":
        return cls(d["commit"], d["status"], d.get("kind", ""), d.get("lean_version", ""), d.get("lean_commit", ""),
                   d.get("prelude_sha256", ""), d.get("artifact_sha256", ""), dict(d.get("file_sha256s") or {}),
                   tuple(d.get("axioms") or ()),
                   None if d.get("milliseconds") is None else d["milliseconds"] / 1000, tuple(d.get("reasons") or ()),
                   d.get("created_at", ""))


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the attestation chain, naming the commit it is about."""

    commit: str
    problem: str


def ensure_table(engine: Engine) -> None:
    """Create the attestation table if the store does not have it yet."""
    LeanAttestationRow.__table__.create(engine, checkfirst=True)


def _hash(prev: str, body: Mapping[str, Any]) -> str:
    return sha256_hex(prev.encode("ascii") + b"\n" + canonical_json(body))


def record(engine: Engine, contract_sha: str, att: Attestation) -> str:
    """Append an attestation to the contract's chain and return its hash (retries if another writer won)."""
    if att.status not in RECORDED:
        raise ValueError(f"status {att.status!r} is not recorded (one of {', '.join(RECORDED)})")
    ensure_table(engine)
    body = {**att.body(), "created_at": att.created_at or datetime.now(UTC).isoformat(timespec="microseconds")}

    def once() -> str:
        with Session(engine) as s:  # closed, so rolled back, when another writer took the seq
            last = s.exec(select(LeanAttestationRow).where(LeanAttestationRow.contract_sha == contract_sha)
                          .order_by(col(LeanAttestationRow.seq).desc()).limit(1)).first()
            prev, seq = (last.hash, last.seq + 1) if last else (GENESIS, 0)
            h = _hash(prev, body)
            s.add(LeanAttestationRow(contract_sha=contract_sha, seq=seq, prev=prev, commit_hash=att.commit,
                                     status=att.status, body=canonical_json(body).decode("utf-8"), hash=h))
            s.commit()
            return h

    try:
        return until_not_raced(APPEND_TRIES)(once)
    except IntegrityError:
        raise RuntimeError("could not append a Lean attestation (too many concurrent writers)") from None


def _rows(engine: Engine, contract_sha: str) -> list[LeanAttestationRow]:
    from sqlalchemy import inspect

    if not inspect(engine).has_table(LeanAttestationRow.__tablename__):  # a reader never creates it (read-only stores)
        return []
    with Session(engine) as s:
        return list(s.exec(select(LeanAttestationRow).where(LeanAttestationRow.contract_sha == contract_sha)
                           .order_by(col(LeanAttestationRow.seq))))


def latest(engine: Engine, contract_sha: str) -> dict[str, Attestation]:
    """Return {commit hash: its latest attestation} for a contract."""
    out: dict[str, Attestation] = {}
    for r in _rows(engine, contract_sha):
        try:
            out[r.commit_hash] = Attestation.from_body(json.loads(r.body))
        except (ValueError, KeyError, TypeError):
            continue  # unreadable rows are audit findings, never a status
    return out


def unattested(repo: Any, contract_sha: str, again: tuple[str, ...] = ()) -> list[Any]:
    """Return the lineage's commits (chain order) that have no attestation (`pending`), or whose latest
    attestation's status is in `again` (`repo` reads commits: the Lean layer never imports the store)."""
    last = latest(repo.engine, contract_sha)
    return [c for c in repo.commits(contract_sha) if last.get(c.hash) is None or last[c.hash].status in again]


def status_json(att: Attestation | None) -> dict[str, Any]:
    """Return the `lean` object that status/log print for a commit (`pending` without an attestation)."""
    if att is None:
        return {"status": "pending", "kind": None, "version": None, "axioms": [], "checked_at": None}
    return {"status": att.status, "kind": att.kind or None, "version": att.lean_version or None,
            "lean_commit": att.lean_commit or None, "prelude_sha256": att.prelude_sha256 or None,
            "axioms": list(att.axioms), "seconds": att.seconds, "checked_at": att.created_at,
            "reason": att.reasons[0] if att.reasons else None}


def statuses(engine: Engine, contract_sha: str, commits: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Return {commit: lean object} for the given commits."""
    last = latest(engine, contract_sha)
    return {h: status_json(last.get(h)) for h in commits}


def verify_chain(engine: Engine, contract_sha: str, commits: Mapping[str, int],
                 expected_artifact: Callable[[str], str | None] | None = None) -> list[Problem]:
    """Return every problem of the contract's attestation chain (empty: it verifies).

    `commits` maps each commit hash of the lineage to its seq; `expected_artifact(commit)` returns the
    sha256 of the commit's rendering today (None if it renders none), so a decisive attestation about
    another file is found. Contradictions between well-formed attestations are the audit's
    (audit/lineage.audit_lean_statuses).
    """
    problems: list[Problem] = []
    prev = GENESIS
    for i, r in enumerate(_rows(engine, contract_sha)):
        def bad(msg: str) -> None:
            problems.append(Problem(r.commit_hash, f"Lean attestation {r.seq}: {msg}"))
        if r.seq != i or r.prev != prev:
            bad(f"chain broken (seq {r.seq}, expected {i}; a row was inserted, deleted or reordered)")
        try:
            body = json.loads(r.body)
            att = Attestation.from_body(body)
        except (ValueError, KeyError, TypeError):
            bad("body unreadable")
            prev = r.hash
            continue
        if _hash(r.prev, body) != r.hash or canonical_json(body).decode("utf-8") != r.body:
            bad("hash mismatch: the attestation was edited")
        elif att.status != r.status or att.commit != r.commit_hash:
            bad(f"row says {r.status!r} for {r.commit_hash[:12]} but its hashed body says {att.status!r} "
                f"for {att.commit[:12]}: the status was edited")
        elif r.commit_hash not in commits:
            bad("about a commit that is not in this lineage")
        elif att.status not in RECORDED:
            bad(f"unknown status {att.status!r}")
        elif att.status == "checked" and (att.kind not in KINDS or not att.lean_version
                                          or not set(att.axioms) <= ALLOWED_AXIOMS or not att.file_sha256s):
            bad("a `checked` attestation without a Lean kind/version/files, or with axioms outside the allowlist")
        elif att.status == "checked" and att.kind == "bundled" and not att.prelude_sha256:
            bad("a bundled-kernel `checked` attestation without the prelude's sha256")
        elif att.status == "checked" and not att.artifact_sha256 and expected_artifact is None:
            bad("a `checked` attestation that names no Lean rendering")
        elif expected_artifact is not None and (att.status == "checked" or (att.status == "refuted"
                                                                          and att.artifact_sha256)) \
                and expected_artifact(r.commit_hash) != att.artifact_sha256:
            bad("is about a different Lean rendering than the commit's evidence gives today")
        elif att.status == "checked" and not att.artifact_sha256:  # None == None: a commit that renders nothing
            bad("is about a different Lean rendering than the commit's evidence gives today: the commit renders "
                "none, so nothing was there to check")
        prev = r.hash
    return problems


def audit_lineage(repo: Any, contract_sha: str, commits: list[Any], target: Any) -> list[tuple[int, str, str]]:
    """Return (seq, commit, problem) for every problem of a lineage's attestations, re-rendering each
    `checked` commit from its stored evidence (`repo` reads candidates; `target` renders)."""
    by_hash = {c.hash: c for c in commits}

    def artifact(h: str) -> str | None:
        cand = repo.candidate(by_hash[h].candidate_id)
        try:
            r = target.lean_render(h, cand.evidence) if cand is not None and cand.evidence is not None else None
        except ValueError as e:  # RenderError: the evidence no longer renders
            return f"unrenderable: {e}"
        return r.sha256 if r is not None else None

    seqs = {h: c.seq for h, c in by_hash.items()}
    return [(seqs.get(p.commit, -1), p.commit, p.problem)
            for p in verify_chain(repo.engine, contract_sha, seqs, artifact)]


def audit_attestations(contract: Any, repo: Any, target: Any) -> list[Any]:
    """Return the attestation chain's problems as the store's audit findings (the audit's one hook).

    `target` renders the lineage's commits (the caller builds it: the Lean layer never imports targets).
    """
    from mathloop.store.findings import Finding  # the store's finding type

    commits = repo.commits(contract.sha256)
    return [Finding(seq, commit, problem, table=LeanAttestationRow.__tablename__, row=commit)
            for seq, commit, problem in audit_lineage(repo, contract.sha256, commits, target)]
