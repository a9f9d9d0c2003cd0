"""Audit of the rows beside the commit chain: the memory (training data), sessions, artifacts, the contract row."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from mathloop.domain import sha256_hex
from mathloop.store.findings import Finding
from mathloop.store import raw
from mathloop.store.chain import (
    CANDIDATE_FIELDS,
    CANDIDATE_FIELDS_V3,
    SESSION_OPEN_FIELDS,
    SESSION_END_FIELDS,
    SESSION_FIELDS,
    edited_columns,
    no_session_genesis,
    row_hash,
    session_genesis,
    session_seal,
)
from mathloop.store.models import CandidateRow, SessionOpeningRow, SessionRow, stored
from mathloop.store.repository import Repository, fields_of

if TYPE_CHECKING:
    from mathloop.audit.lineage import LineageLinks

Add = Callable[[Finding], None]  # reports one finding


@dataclass
class MemoryStats:
    """What the memory pass saw: rows chained and legacy (chain format 1, not covered), sessions."""

    chained: int = 0
    legacy: int = 0
    sessions: int = 0
    sealed: int = 0
    artifacts: int = 0
    anchored: int = 0  # sessions of chain format 3 (their chain starts from the lineage)
    tips: dict[int | None, tuple[int, str]] = field(default_factory=dict)


def _where(row: Any) -> str:
    return "session-less rows" if row is None else f"session {row}"


def audit_memory(contract_sha: str, repo: Repository, reported: set[tuple[str, str]],
                 progress: Callable[[int], None] | None = None, *, anchor: str | None = None,
                 openings: dict[int, SessionOpeningRow] | None = None, links: LineageLinks | None = None) -> tuple[list[Finding], MemoryStats]:
    """Return (findings, stats) for every memory row, session row and artifact of the lineage.

    Each session's rows must form an unbroken chain from the session's opening fields (format 3: and
    from the lineage anchor and the head it opened on); a row without chain fields is legacy only while
    no chained row precedes it. `links` (audit/lineage.LineageLinks) checks each row against the
    lineage's commits.
    """
    findings: list[Finding] = []
    stats = MemoryStats()
    sessions = raw.session_rows(repo.engine, contract_sha)
    openings = openings if openings is not None else raw.session_openings(repo.engine, contract_sha)
    chains: dict[int | None, tuple[int, str]] = {}
    artifacts: set[str] = set()
    first_chained: int | None = None

    def add(f: Finding) -> None:
        if (f.table, str(f.row)) not in reported:
            reported.add((f.table, str(f.row)))
            findings.append(f)

    for n, row in enumerate(raw.candidate_rows(repo.engine, contract_sha), 1):
        artifacts |= _artifact_refs(row, add)
        if progress:
            progress(n)
        if row.row_hash is None and row.chain_seq is None:
            if first_chained is None:
                stats.legacy += 1
            else:
                add(Finding(None, row.commit_hash, f"memory row {row.id} has no chain fields but row {first_chained} "
                            "before it is chained: its row hash was removed", table="candidates", row=row.id,
                            field="row_hash"))
            continue
        first_chained = first_chained or stored(row.id)
        stats.chained += 1
        key = row.session_id
        if key not in chains:
            chains[key] = (0, _genesis(contract_sha, key, sessions, add, openings, anchor))
        want, prev = chains[key]
        if row.chain_seq != want:
            add(Finding(None, row.commit_hash, f"{_where(key)}: memory row at chain position {want} is missing "
                        f"(row {row.id} sits at {row.chain_seq}): rows were deleted or reordered",
                        table="candidates", row=row.id, field="chain_seq"))
        elif prev != "deleted":
            fields = fields_of(row, CANDIDATE_FIELDS_V3 if key in openings else CANDIDATE_FIELDS)
            again = row_hash(prev, fields)
            if again != row.row_hash:
                cols = edited_columns(row.field_digests, fields)
                add(Finding(None, row.commit_hash,
                            f"memory row {row.id} ({_where(key)}, position {want}) was edited: "
                            + (f"column {', '.join(cols)} changed" if cols else
                               "it does not chain from its session's start (the session's opening or the lineage "
                               "anchor differ: copied from another store?)" if want == 0 else
                               "its hashed columns or its chain link changed (locator edited too)"),
                            table="candidates", row=row.id, field=",".join(cols) or None,
                            stored=row.row_hash, recomputed=again))
        if links is not None:  # after the hash check, so that an edited column is named first
            links.memory_row(row, add)
        chains[key] = (stored(row.chain_seq) + 1, str(row.row_hash))
    stats.tips = chains
    stats.sessions = len(sessions)
    stats.anchored = sum(1 for sid in sessions if sid in openings)
    for sid, s in sorted(sessions.items()):
        if links is not None and sid in openings:
            links.opening(sid, openings[sid], add)
        if s.seal:
            stats.sealed += 1
            _check_seal(contract_sha, s, chains.get(sid), add, openings.get(sid), anchor)
        elif s.ended_at is not None and s.field_digests is not None:  # chained sessions are sealed when they end
            add(Finding(None, None, f"session {s.id} ended ({s.outcome!r} at {s.ended_at}) but has no seal: "
                        "its seal was removed", table="sessions", row=s.id, field="seal"))
    for sha in sorted(artifacts):
        stats.artifacts += 1
        art = raw.artifact_row(repo.engine, sha)
        if art is None:
            add(Finding(None, None, f"artifact {sha[:12]} cited by the memory is missing", table="artifacts", row=sha))
        elif (again := sha256_hex(art.content.encode("utf-8"))) != sha:
            add(Finding(None, None, f"artifact {sha[:12]}: content was edited", table="artifacts", row=sha,
                        field="content", stored=sha, recomputed=again))
    return findings, stats


def _start(s: SessionRow, opening: SessionOpeningRow | None, anchor: str | None) -> str:
    """Return a session's chain start: format 3 from the lineage anchor and its opening, else format 2."""
    if opening is None:
        return session_genesis(fields_of(s, SESSION_FIELDS))
    return session_genesis({**fields_of(s, SESSION_FIELDS), **fields_of(opening, SESSION_OPEN_FIELDS)}, anchor)


def _genesis(contract_sha: str, sid: int | None, sessions: dict[int, SessionRow], add: Add,
             openings: dict[int, SessionOpeningRow], anchor: str | None) -> str:
    """Return the chain start of a session, reporting an edited or deleted session row."""
    if sid is None:
        return no_session_genesis(contract_sha)
    s = sessions.get(sid)
    if s is None:
        add(Finding(None, None, f"session {sid} has memory rows but its session row was deleted",
                    table="sessions", row=sid))
        return "deleted"
    fields = fields_of(s, SESSION_FIELDS)
    cols = edited_columns(s.field_digests, fields)
    if cols:
        add(Finding(None, None, f"session {sid}: column {', '.join(cols)} was edited", table="sessions", row=sid,
                    field=",".join(cols)))
    return _start(s, openings.get(sid), anchor)


def _check_seal(contract_sha: str, s: SessionRow, chain: tuple[int, str] | None, add: Add,
                opening: SessionOpeningRow | None, anchor: str | None) -> None:
    count, tip = chain if chain else (0, _start(s, opening, anchor))
    stored_count, _, _ = str(s.seal).partition(":")
    if stored_count != str(count):
        add(Finding(None, None, f"session {s.id} was sealed with {stored_count} memory rows but {count} are chained: "
                    "rows were deleted or added after it ended", table="sessions", row=s.id, field="seal"))
        return
    again = session_seal(tip, count, fields_of(s, SESSION_END_FIELDS))
    if again != s.seal:
        add(Finding(None, None, f"session {s.id}: its end (ended_at/outcome) or last memory row was edited",
                    table="sessions", row=s.id, field="ended_at,outcome", stored=s.seal, recomputed=again))


def _artifact_refs(row: CandidateRow, add: Add) -> set[str]:
    """Return the artifact keys a memory row's evidence cites (reporting evidence that does not decode)."""
    if row.evidence is None:
        return set()
    try:
        arts = json.loads(row.evidence).get("artifacts", {})
        return {str(ref["$artifact"]) for ref in arts.values()}
    except (ValueError, AttributeError, KeyError, TypeError) as e:
        add(Finding(None, row.commit_hash, f"memory row {row.id}: stored evidence is unreadable ({type(e).__name__})",
                    table="candidates", row=row.id, field="evidence"))
        return set()


def audit_contract_row(contract_sha: str, repo: Repository) -> list[Finding]:
    """Return a finding if the stored contract text no longer hashes to its lineage key."""
    from mathloop.contract.load import _contract_sha  # the lineage key's one definition

    row = raw.contract_row(repo.engine, contract_sha)
    if row is None:
        return []
    try:
        again = _contract_sha(tomllib.loads(row.text))
    except (tomllib.TOMLDecodeError, ValueError) as e:
        again = f"unparsable ({type(e).__name__})"
    if again != contract_sha:
        return [Finding(None, None, "the stored contract text was edited", table="contracts", row=contract_sha,
                        field="text", stored=contract_sha, recomputed=again)]
    return []
