"""Every table of the proof store: contracts, sessions, the memory, the commit chain, artifacts."""

from __future__ import annotations

from sqlalchemy import Column, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

GENESIS = "0" * 64  # the parent of a lineage's root commit; keeps (contract, parent) unique for roots


def stored(key: int | None) -> int:
    """Return a number the store must hold: a row's key (None only before its first flush), an aggregate over
    non-null values. None is a bug, raised.

    >>> stored(7)
    7
    """
    if key is None:
        raise ValueError("a row read from or flushed to the store has no key")
    return key


class ContractRow(SQLModel, table=True):
    """A contract lineage: its hash, the file text it was loaded from, and the target it names."""

    __tablename__ = "contracts"
    sha256: str = Field(primary_key=True, max_length=64)
    name: str = Field(index=True)
    target: str
    text: str = Field(sa_column=Column(Text, nullable=False))
    created_at: str


class SessionRow(SQLModel, table=True):
    """One `mathloop run`: proposer, options, and how it ended."""

    __tablename__ = "sessions"
    id: int | None = Field(default=None, primary_key=True)
    contract_sha: str = Field(foreign_key="contracts.sha256", index=True)
    proposer: str
    seed: int
    options: str = Field(sa_column=Column(Text, nullable=False))
    started_at: str
    ended_at: str | None = None
    outcome: str | None = None
    # chain format 2: per-column digests of the opening fields (a locator for audit) and, once ended,
    # the seal "count:hash" over the session's last memory row, its row count, ended_at and outcome.
    field_digests: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    seal: str | None = Field(default=None, max_length=90)


class CandidateRow(SQLModel, table=True):
    """The memory: every candidate ever proposed, with its label, reasons and evidence.

    `evidence` is the canonical evidence JSON with each artifact replaced by {"sha256": ...};
    the artifacts themselves live in `artifacts`. `timings` is kept apart: it is the only part
    of a check that may differ between runs.
    """

    __tablename__ = "candidates"
    __table_args__ = (
        Index("uq_candidate_chain", "contract_sha", "session_id", "chain_seq", unique=True),
        # NULLs are distinct in a unique index: session-less rows need their own, so that their chain cannot fork
        Index("uq_candidate_chain_nosession", "contract_sha", "chain_seq", unique=True,
              sqlite_where=text("session_id IS NULL"), postgresql_where=text("session_id IS NULL")),
    )
    id: int | None = Field(default=None, primary_key=True)
    contract_sha: str = Field(foreign_key="contracts.sha256", index=True)
    session_id: int | None = Field(default=None, foreign_key="sessions.id", index=True)
    head_commit: str | None = Field(default=None, max_length=64)
    payload: str = Field(sa_column=Column(Text, nullable=False))
    payload_sha: str = Field(index=True, max_length=64)
    proposer: str
    proposer_meta: str = Field(sa_column=Column(Text, nullable=False))
    label: str = Field(index=True)
    reasons: str = Field(sa_column=Column(Text, nullable=False))
    evidence: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    evidence_sha: str | None = Field(default=None, max_length=64)
    timings: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    commit_hash: str | None = Field(default=None, max_length=64, index=True)
    created_at: str
    # chain format 2 (None on rows written before the memory was chained): the row's place in its
    # session's chain, its row hash (store/chain.py) and per-column digests (a locator for audit).
    chain_seq: int | None = Field(default=None)
    row_hash: str | None = Field(default=None, max_length=64)
    field_digests: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class CommitRow(SQLModel, table=True):
    """A state that passed the gate. Hash-chained; (contract, parent) unique so the chain cannot fork."""

    __tablename__ = "commits"
    __table_args__ = (
        UniqueConstraint("contract_sha", "parent", name="uq_commit_parent"),
        UniqueConstraint("contract_sha", "seq", name="uq_commit_seq"),
    )
    hash: str = Field(primary_key=True, max_length=64)
    contract_sha: str = Field(foreign_key="contracts.sha256", index=True)
    parent: str = Field(max_length=64)
    seq: int
    candidate_id: int = Field(foreign_key="candidates.id")
    payload_sha: str = Field(max_length=64)
    state: str = Field(sa_column=Column(Text, nullable=False))
    ranks: str = Field(sa_column=Column(Text, nullable=False))
    bounds: str = Field(sa_column=Column(Text, nullable=False))
    evidence_sha: str = Field(max_length=64)
    label: str
    created_at: str
    format: int | None = Field(default=None)  # chain format (store/chain.py); None = 1, written before format 2
    field_digests: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class ArtifactRow(SQLModel, table=True):
    """A content-addressed certificate (canonical JSON), shared by every row that cites it."""

    __tablename__ = "artifacts"
    sha256: str = Field(primary_key=True, max_length=64)
    content: str = Field(sa_column=Column(Text, nullable=False))
    size: int


class LineageAnchorRow(SQLModel, table=True):
    """Chain format 3: a lineage's anchor, the hash of its contract row as stored (store/chain.py).

    Every format-3 commit covers it and every format-3 session chain starts from it, so the contract row's
    exact text, name, target and created_at are sealed into the chains.
    """

    __tablename__ = "lineage_anchors"
    contract_sha: str = Field(primary_key=True, foreign_key="contracts.sha256", max_length=64)
    format: int
    anchor: str = Field(max_length=64)
    field_digests: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # locator, not hashed


class SessionOpeningRow(SQLModel, table=True):
    """Chain format 3: where a session opened (the lineage's head then, GENESIS before the root).

    Its fields are part of the session's chain start (with the lineage anchor), so a session copied from
    another store, or moved onto another head, does not verify.
    """

    __tablename__ = "session_openings"
    session_id: int = Field(primary_key=True, foreign_key="sessions.id")
    contract_sha: str = Field(index=True, max_length=64)
    format: int
    opened_on: str = Field(max_length=64)
