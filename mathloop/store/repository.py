"""The proof store's read and write operations; commits are single transactions on a unique parent."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, Iterable, Mapping

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from mathloop.contract.model import Contract
from mathloop.domain import (Evidence, Head, Label, Rejection, Scores, canonical_dumps, canonical_json, fraction_str, payload_sha,
                             sha256_hex)
from mathloop.store.chain import (
    CANDIDATE_FIELDS,
    CANDIDATE_FIELDS_V3,
    CHAIN_FORMAT,
    COMMIT_FIELDS,
    CONTRACT_FIELDS,
    SESSION_OPEN_FIELDS,
    SESSION_END_FIELDS,
    SESSION_FIELDS,
    commit_body,
    commit_hash,
    lineage_anchor,
    locator,
    no_session_genesis,
    row_hash,
    session_genesis,
    session_seal,
)
from mathloop.store.races import until_not_raced
from mathloop.store.models import (
    GENESIS,
    ArtifactRow,
    CandidateRow,
    CommitRow,
    ContractRow,
    LineageAnchorRow,
    SessionOpeningRow,
    SessionRow,
    stored,
)

WRITE_RETRIES = 8
REJECTED = (Label.REGRESSION, Label.INCOMPARABLE, Label.NO_PROGRESS, Label.MALFORMED)


class HeadMoved(Exception):
    """Another writer committed on this parent first; re-read the head and re-gate."""


def now() -> str:
    """Return the current UTC time as an ISO-8601 string with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def fields_of(row: Any, names: Iterable[str]) -> dict[str, Any]:
    """Return {column: stored value} of a row for the given columns (what its row hash covers)."""
    return {n: getattr(row, n) for n in names}


def _payload_text_sha(payload: Any) -> tuple[str, str]:
    """Return (the stored text, payload_sha) of a payload, serialising it once."""
    try:
        blob = canonical_json(payload)
    except (TypeError, ValueError):
        return json.dumps({"unparsable_payload": repr(payload)[:4000]}), payload_sha(payload)
    return blob.decode("utf-8"), sha256_hex(blob)


@dataclass(frozen=True)
class CommitRecord:
    """A commit as read back from the store."""

    hash: str
    contract_sha: str
    parent: str
    seq: int
    candidate_id: int
    payload_sha: str
    state: Mapping[str, Any]
    ranks: Mapping[str, int]
    bounds: Mapping[str, Fraction]
    evidence_sha: str
    label: str
    created_at: str

    @property
    def scores(self) -> Scores:
        return Scores(self.ranks, self.bounds)

    def as_head(self) -> Head:
        return Head(self.hash, self.seq, self.state, self.ranks, self.bounds)

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.hash,
            "parent": None if self.parent == GENESIS else self.parent,
            "seq": self.seq,
            "candidate_id": self.candidate_id,
            "state": self.state,
            "ranks": dict(self.ranks),
            "bounds": {k: fraction_str(v) for k, v in self.bounds.items()},
            "evidence_sha256": self.evidence_sha,
            "label": self.label,
            "created_at": self.created_at,
        }

    @classmethod
    def of(cls, row: CommitRow) -> "CommitRecord":
        return cls(
            hash=row.hash,
            contract_sha=row.contract_sha,
            parent=row.parent,
            seq=row.seq,
            candidate_id=row.candidate_id,
            payload_sha=row.payload_sha,
            state=json.loads(row.state),
            ranks=json.loads(row.ranks),
            bounds={k: Fraction(v) for k, v in json.loads(row.bounds).items()},
            evidence_sha=row.evidence_sha,
            label=row.label,
            created_at=row.created_at,
        )


@dataclass(frozen=True)
class CandidateRecord:
    """A memory row as read back: payload, label, reasons, evidence (artifacts inlined)."""

    id: int
    session_id: int | None
    head_commit: str | None
    payload: Any
    payload_sha: str
    proposer: str
    meta: Mapping[str, Any]
    label: str
    reasons: tuple[str, ...]
    evidence: Evidence | None
    evidence_sha: str | None
    timings: Mapping[str, float]
    commit_hash: str | None
    created_at: str


class Repository:
    """Reads and writes one store. Every write is one short transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._anchors: dict[str, str] = {}  # contract sha -> lineage anchor (never changes once written)
        self._openings: dict[int, SessionOpeningRow | None] = {}

    # -- contracts and sessions ------------------------------------------------------------
    def ensure_contract(self, contract: Contract) -> None:
        """Record the contract lineage (idempotent)."""
        with Session(self.engine) as s:
            if s.get(ContractRow, contract.sha256) is None:
                s.add(ContractRow(sha256=contract.sha256, name=contract.name, target=contract.target,
                                  text=contract.text, created_at=now()))
                try:
                    s.commit()
                except IntegrityError:  # a concurrent writer recorded it first
                    s.rollback()
        self.anchor(contract.sha256)

    def anchor(self, contract_sha: str) -> str | None:
        """Return the lineage's anchor (chain format 3), recording it from the contract row if missing.

        Returns None when the contract row does not exist.
        """
        if contract_sha in self._anchors:
            return self._anchors[contract_sha]
        with Session(self.engine) as s:
            got = s.get(LineageAnchorRow, contract_sha)
            if got is None:
                row = s.get(ContractRow, contract_sha)
                if row is None:
                    return None
                fields = fields_of(row, CONTRACT_FIELDS)
                got = LineageAnchorRow(contract_sha=contract_sha, format=CHAIN_FORMAT,
                                       anchor=lineage_anchor(fields), field_digests=locator(fields))
                s.add(got)
                try:
                    s.commit()
                except IntegrityError:  # a concurrent writer anchored it first: read theirs
                    s.rollback()
                    got = s.get(LineageAnchorRow, contract_sha)
            if got is None:  # the concurrent writer's row vanished: the store is being edited under us
                raise ValueError(f"lineage {contract_sha[:12]}: its anchor row disappeared")
            self._anchors[contract_sha] = got.anchor
            return got.anchor

    def lineages(self, name: str) -> list[ContractRow]:
        """Return every recorded contract version with this name, oldest first."""
        with Session(self.engine) as s:
            return list(s.exec(select(ContractRow).where(ContractRow.name == name).order_by(col(ContractRow.created_at))))

    def start_session(self, contract_sha: str, proposer: str, seed: int, options: Mapping[str, Any]) -> int:
        """Open a session row (its opening fields, the lineage anchor and the head it opens on start the
        session's memory chain); return its id."""
        self.anchor(contract_sha)
        head = self.head(contract_sha)
        with Session(self.engine) as s:
            row = SessionRow(contract_sha=contract_sha, proposer=proposer, seed=seed,
                             options=json.dumps(dict(options), sort_keys=True, default=str), started_at=now())
            s.add(row)
            s.flush()
            row.field_digests = locator(fields_of(row, SESSION_FIELDS))
            s.add(row)
            s.add(SessionOpeningRow(session_id=stored(row.id), contract_sha=contract_sha, format=CHAIN_FORMAT,
                                    opened_on=head.hash if head else GENESIS))
            s.commit()
            return stored(row.id)

    def _opening(self, s: Session, session_id: int | None) -> SessionOpeningRow | None:
        """Return the session's opening row (None: a session opened before chain format 3, or no session)."""
        if session_id is None:
            return None
        if session_id not in self._openings:
            got = s.get(SessionOpeningRow, session_id)
            if got is not None:
                s.expunge(got)
            self._openings[session_id] = got
        return self._openings[session_id]

    def end_session(self, session_id: int, outcome: str) -> None:
        """Record how the session ended and seal its memory chain (row count, last row hash, outcome)."""
        with Session(self.engine) as s:
            row = s.get(SessionRow, session_id)
            if row is not None:
                row.ended_at, row.outcome = now(), outcome
                seq, tip = self._chain_tip(s, row.contract_sha, session_id)
                row.seal = session_seal(tip, seq + 1, fields_of(row, SESSION_END_FIELDS))
                s.add(row)
                s.commit()

    def _chain_tip(self, s: Session, contract_sha: str, session_id: int | None) -> tuple[int, str]:
        """Return (chain_seq, row hash) of the session's last memory row, or (-1, the chain's start)."""
        last = s.exec(select(CandidateRow.chain_seq, CandidateRow.row_hash)
                      .where(CandidateRow.contract_sha == contract_sha, CandidateRow.session_id == session_id,
                             col(CandidateRow.chain_seq).is_not(None))
                      .order_by(col(CandidateRow.chain_seq).desc()).limit(1)).first()
        if last is not None:
            return stored(last[0]), str(last[1])
        if session_id is None:
            return -1, no_session_genesis(contract_sha)
        sess = s.get(SessionRow, session_id)
        if sess is None:
            raise KeyError(f"session {session_id} does not exist")
        opening = self._opening(s, session_id)
        if opening is None:
            return -1, session_genesis(fields_of(sess, SESSION_FIELDS))
        fields = {**fields_of(sess, SESSION_FIELDS), **fields_of(opening, SESSION_OPEN_FIELDS)}
        return -1, session_genesis(fields, self.anchor(contract_sha))

    # -- the memory ------------------------------------------------------------------------
    def _evidence_columns(self, s: Session, evidence: Evidence | None) -> dict[str, Any]:
        if evidence is None:
            return {"evidence": None, "evidence_sha": None, "timings": None}
        full = evidence.to_json(with_timings=False)  # plain data: serialised below without re-converting
        evidence_sha = sha256_hex(canonical_dumps(full))  # == sha256(evidence.canonical_bytes())
        refs = {}
        for name, value in full["artifacts"].items():
            blob = canonical_dumps(value)
            sha = sha256_hex(blob)
            if s.get(ArtifactRow, sha) is None:
                s.add(ArtifactRow(sha256=sha, content=blob.decode("utf-8"), size=len(blob)))
                s.flush()
            refs[name] = {"$artifact": sha}
        full["artifacts"] = refs
        return {
            "evidence": canonical_dumps(full).decode("utf-8"),
            "evidence_sha": evidence_sha,
            "timings": json.dumps({k: round(float(v), 6) for k, v in evidence.timings.items()}),
        }

    def _candidate_row(self, s: Session, *, contract_sha: str, session_id: int | None, head_commit: str | None,
                       payload: Any, proposer: str, meta: Mapping[str, Any], label: Label,
                       reasons: Iterable[str], evidence: Evidence | None) -> CandidateRow:
        text, sha = _payload_text_sha(payload)
        row = CandidateRow(
            contract_sha=contract_sha, session_id=session_id, head_commit=head_commit,
            payload=text, payload_sha=sha, proposer=proposer,
            proposer_meta=json.dumps(dict(meta), sort_keys=True, default=str), label=label.value,
            reasons=json.dumps(list(reasons)), created_at=now(), **self._evidence_columns(s, evidence),
        )
        # Chain the row onto its session's memory (one writer per session, so no race on chain_seq;
        # the unique (contract, session, chain_seq) index refuses a fork all the same).
        seq, prev = self._chain_tip(s, contract_sha, session_id)
        row.chain_seq = seq + 1
        s.add(row)
        s.flush()  # the id first: a format-3 row hash covers it
        names = CANDIDATE_FIELDS_V3 if self._opening(s, session_id) is not None else CANDIDATE_FIELDS
        fields = fields_of(row, names)
        row.row_hash, row.field_digests = row_hash(prev, fields), locator(fields)
        s.add(row)
        s.flush()
        return row

    def record(self, *, contract_sha: str, session_id: int | None, head_commit: str | None, payload: Any,
               proposer: str, meta: Mapping[str, Any], label: Label, reasons: Iterable[str],
               evidence: Evidence | None) -> int:
        """Append a candidate that did not commit to the memory; return its id."""
        reasons = list(reasons)

        def once() -> int:
            with Session(self.engine) as s:  # closed, so rolled back, when a unique key refuses the row
                row = self._candidate_row(s, contract_sha=contract_sha, session_id=session_id,
                                          head_commit=head_commit, payload=payload, proposer=proposer, meta=meta,
                                          label=label, reasons=reasons, evidence=evidence)
                s.commit()
                return stored(row.id)

        # a concurrent writer took the chain place or stored the artifact first: the next try reads the new tip
        return until_not_raced(WRITE_RETRIES)(once)

    def commit(self, *, contract_sha: str, session_id: int | None, parent: CommitRecord | None, payload: Any,
               proposer: str, meta: Mapping[str, Any], label: Label, evidence: Evidence) -> CommitRecord:
        """Record the candidate and commit its state on `parent`, in one transaction.

        The caller must have gated `evidence` against `parent`. Raises HeadMoved when another
        commit already sits on `parent` (the unique (contract, parent) key), leaving nothing written.
        """
        if parent is not None and parent.contract_sha != contract_sha:  # a lineage is one contract hash
            raise ValueError(f"commit for contract {contract_sha[:12]} on parent {parent.hash[:12]} of contract "
                             f"{parent.contract_sha[:12]}: lineages of different contracts never mix")
        # an IntegrityError here is not a lost race on the parent: a chain place or an artifact taken meanwhile
        return until_not_raced(WRITE_RETRIES)(
            self._commit_once, contract_sha=contract_sha, session_id=session_id, parent=parent, payload=payload,
            proposer=proposer, meta=meta, label=label, evidence=evidence)

    def _commit_once(self, *, contract_sha: str, session_id: int | None, parent: CommitRecord | None, payload: Any,
                     proposer: str, meta: Mapping[str, Any], label: Label, evidence: Evidence) -> CommitRecord:
        parent_hash = parent.hash if parent else GENESIS
        seq = parent.seq + 1 if parent else 0
        anchor = self.anchor(contract_sha)  # before the transaction: it may write the anchor row
        with Session(self.engine) as s:
            try:
                cand = self._candidate_row(s, contract_sha=contract_sha, session_id=session_id,
                                           head_commit=parent.hash if parent else None, payload=payload,
                                           proposer=proposer, meta=meta, label=label, reasons=(), evidence=evidence)
                created = now()
                bounds = {k: fraction_str(v) for k, v in evidence.bounds.items()}
                if cand.evidence_sha is None:  # _candidate_row stores the evidence it is given
                    raise ValueError("a commit's memory row has no evidence")
                body = commit_body(contract_sha=contract_sha, seq=seq, payload_sha=cand.payload_sha,
                                   state=evidence.state, ranks=evidence.ranks, bounds=bounds,
                                   evidence_sha=cand.evidence_sha, label=label.value, created_at=created,
                                   format=CHAIN_FORMAT, candidate_id=stored(cand.id), candidate_hash=cand.row_hash,
                                   lineage=anchor)
                h = commit_hash(parent_hash, body)
                row = CommitRow(hash=h, contract_sha=contract_sha, parent=parent_hash, seq=seq, candidate_id=stored(cand.id),
                                payload_sha=cand.payload_sha, state=canonical_json(evidence.state).decode("utf-8"),
                                ranks=canonical_json(evidence.ranks).decode("utf-8"),
                                bounds=canonical_json(bounds).decode("utf-8"), evidence_sha=cand.evidence_sha,
                                label=label.value, created_at=created, format=CHAIN_FORMAT)
                row.field_digests = locator(fields_of(row, COMMIT_FIELDS))
                s.add(row)
                s.flush()
                cand.commit_hash = h
                s.add(cand)
                s.commit()
            except IntegrityError as e:
                s.rollback()
                if self._has_child(contract_sha, parent_hash, seq):
                    raise HeadMoved(f"a commit already exists on parent {parent_hash[:12]}") from e
                raise
            return CommitRecord.of(row)

    def _has_child(self, contract_sha: str, parent_hash: str, seq: int) -> bool:
        with Session(self.engine) as s:
            return s.exec(select(CommitRow.hash).where(
                CommitRow.contract_sha == contract_sha,
                (CommitRow.parent == parent_hash) | (CommitRow.seq == seq))).first() is not None

    # -- reading ---------------------------------------------------------------------------
    def head(self, contract_sha: str) -> CommitRecord | None:
        """Return the newest commit of the lineage, or None before the root."""
        with Session(self.engine) as s:
            row = s.exec(select(CommitRow).where(CommitRow.contract_sha == contract_sha)
                         .order_by(col(CommitRow.seq).desc()).limit(1)).first()
            return CommitRecord.of(row) if row else None

    def commits(self, contract_sha: str) -> list[CommitRecord]:
        """Return the lineage's commits in chain order (root first)."""
        with Session(self.engine) as s:
            rows = s.exec(select(CommitRow).where(CommitRow.contract_sha == contract_sha).order_by(col(CommitRow.seq)))
            return [CommitRecord.of(r) for r in rows]

    def get_commit(self, commit_hash_: str) -> CommitRecord | None:
        with Session(self.engine) as s:
            row = s.get(CommitRow, commit_hash_)
            return CommitRecord.of(row) if row else None

    def artifact(self, sha: str) -> Any:
        """Return an artifact's JSON value. Raises KeyError if missing."""
        with Session(self.engine) as s:
            row = s.get(ArtifactRow, sha)
            if row is None:
                raise KeyError(sha)
            return json.loads(row.content)

    def _candidate_record(self, s: Session, row: CandidateRow) -> CandidateRecord:
        evidence = None
        if row.evidence is not None:
            d = json.loads(row.evidence)
            arts = {}
            for name, ref in d["artifacts"].items():
                art = s.get(ArtifactRow, ref["$artifact"])
                arts[name] = json.loads(art.content) if art else {"$missing_artifact": ref["$artifact"]}
            d["artifacts"] = arts
            d["timings"] = json.loads(row.timings or "{}")
            try:
                evidence = Evidence.from_json(d)
            except ArithmeticError as e:  # an edited bound "1/0": a decode error (ValueError) every reader reports
                raise ValueError(f"memory row {row.id}: evidence has an unreadable number ({e})") from None
        return CandidateRecord(
            id=stored(row.id), session_id=row.session_id, head_commit=row.head_commit, payload=json.loads(row.payload),
            payload_sha=row.payload_sha, proposer=row.proposer, meta=json.loads(row.proposer_meta), label=row.label,
            reasons=tuple(json.loads(row.reasons)), evidence=evidence, evidence_sha=row.evidence_sha,
            timings=json.loads(row.timings or "{}"), commit_hash=row.commit_hash, created_at=row.created_at,
        )

    def candidate(self, candidate_id: int) -> CandidateRecord | None:
        with Session(self.engine) as s:
            row = s.get(CandidateRow, candidate_id)
            return self._candidate_record(s, row) if row else None

    def candidates(self, contract_sha: str, *, batch: int = 500) -> Iterable[CandidateRecord]:
        """Yield every candidate of the lineage, oldest first (streamed in batches)."""
        last = 0
        while True:
            with Session(self.engine) as s:
                rows = list(s.exec(select(CandidateRow).where(CandidateRow.contract_sha == contract_sha,
                                                              col(CandidateRow.id) > last)
                                   .order_by(col(CandidateRow.id)).limit(batch)))
                records = [self._candidate_record(s, r) for r in rows]
            if not records:
                return
            yield from records
            last = records[-1].id

    def seen_payloads(self, contract_sha: str) -> frozenset[str]:
        with Session(self.engine) as s:
            return frozenset(s.exec(select(CandidateRow.payload_sha).where(CandidateRow.contract_sha == contract_sha)))

    def label_counts(self, contract_sha: str) -> dict[str, int]:
        with Session(self.engine) as s:
            rows = s.exec(select(CandidateRow.label, func.count()).where(CandidateRow.contract_sha == contract_sha)
                          .group_by(CandidateRow.label))
            return {label: int(n) for label, n in rows}

    def recent_rejections(self, contract_sha: str, k: int) -> tuple[Rejection, ...]:
        """Return the last k refused candidates (newest first) as negative examples."""
        with Session(self.engine) as s:
            rows = s.exec(select(CandidateRow).where(CandidateRow.contract_sha == contract_sha,
                                                     col(CandidateRow.label).in_([l.value for l in REJECTED]))
                          .order_by(col(CandidateRow.id).desc()).limit(k))
            return tuple(Rejection(json.loads(r.payload), Label(r.label), tuple(json.loads(r.reasons))) for r in rows)
