"""Checkpoints: the head hash, chain length and memory chain tips, kept outside the store to detect rollbacks.

A store cannot prove from inside that nobody deleted its newest rows; a checkpoint written
elsewhere can: the chain must still contain the checkpoint's head at its seq, and every session
chain must still contain its recorded tip.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Mapping

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from mathloop.contract.fields import first_error, refuse
from mathloop.store import raw
from mathloop.store.repository import Repository, now

FORMAT = "mathloop/checkpoint/1"
_HEX = re.compile(r"[0-9a-f]{64}")
_SEAL = re.compile(r"[0-9]{1,18}:[0-9a-f]{64}")


class CheckpointError(ValueError):
    """A checkpoint file is not a valid checkpoint (the message names the field)."""


def _matching(pattern: re.Pattern[str], what: str) -> BeforeValidator:
    """Return the check of a string key that must match `pattern` (refused as "must be <what>")."""
    def check(value: Any) -> Any:
        if not isinstance(value, str) or not pattern.fullmatch(value):
            raise refuse(f"must be {what}")
        return value
    return BeforeValidator(check)


def _format(value: Any) -> Any:
    if value != FORMAT:
        raise refuse(f"must be {FORMAT!r}")
    return value


def _null_or_hex(value: Any) -> Any:
    if value is not None and (not isinstance(value, str) or not _HEX.fullmatch(value)):
        raise refuse("must be null or 64 lowercase hex digits")
    return value


Hex = Annotated[str, _matching(_HEX, "64 lowercase hex digits")]
Rows = Annotated[int, Field(ge=1)]


class _Object(BaseModel):
    """A JSON object of a checkpoint file with exactly its keys (strict JSON types)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise refuse("must be a JSON object")
        return data


class _Session(_Object):
    session: int | None = None  # None: the session-less rows
    rows: Rows
    tip: Hex


class _Chain(_Object):
    table: str
    rows: Rows
    tip: Hex


class _Seal(_Object):
    session: int
    seal: Annotated[str, _matching(_SEAL, "'count:64 hex digits'")]


class _File(_Object):
    format: Annotated[str, BeforeValidator(_format)]
    contract_sha: Hex
    head: Annotated[str | None, BeforeValidator(_null_or_hex)] = None
    length: Annotated[int, Field(ge=0)]
    memory_rows: int | None = None  # written for readers; recomputed from `sessions`
    sessions: list[_Session] = []
    taken_at: str = ""
    chains: list[_Chain] = []
    seals: list[_Seal] = []  # absent in checkpoints written before seals were kept

    @model_validator(mode="after")
    def _length_matches_head(self) -> "_File":
        if (self.length == 0) != (self.head is None):
            raise refuse("must be a non-negative integer, 0 exactly when head is null", "length")
        return self


@dataclass(frozen=True)
class Checkpoint:
    """What a lineage looked like at one moment.

    Attributes:
        contract_sha: the lineage.
        head: the head commit's hash (None before the root).
        length: commits in the chain (head seq + 1).
        memory: {session id (None = session-less rows): (chained rows, last row hash)}.
        taken_at: when it was taken (UTC ISO-8601).
        chains: other hash chains of the lineage by table name (e.g. lean_attestations): (rows, last hash).
        seals: {session id: its seal} of the sessions that had ended (an ended session stays sealed as it was).
    """

    contract_sha: str
    head: str | None
    length: int
    memory: Mapping[int | None, tuple[int, str]] = field(default_factory=dict)
    taken_at: str = ""
    chains: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    seals: Mapping[int, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "contract_sha": self.contract_sha,
            "head": self.head,
            "length": self.length,
            "memory_rows": sum(n for n, _ in self.memory.values()),
            "sessions": [{"session": sid, "rows": n, "tip": tip}
                         for sid, (n, tip) in sorted(self.memory.items(), key=lambda kv: (kv[0] is not None, kv[0] or 0))],
            "taken_at": self.taken_at,
            "chains": [{"table": t, "rows": n, "tip": tip} for t, (n, tip) in sorted(self.chains.items())],
            "seals": [{"session": sid, "seal": seal} for sid, seal in sorted(self.seals.items())],
        }

    @classmethod
    def from_json(cls, d: Any) -> "Checkpoint":
        """Return the checkpoint. Raises CheckpointError naming the field."""
        try:
            f = _File.model_validate(d)
        except ValidationError as e:
            key, reason = first_error(e, d, root="checkpoint")
            raise CheckpointError(f"{key}: {reason}") from None
        return cls(f.contract_sha, f.head, f.length, {s.session: (s.rows, s.tip) for s in f.sessions}, f.taken_at,
                   {c.table: (c.rows, c.tip) for c in f.chains}, {e.session: e.seal for e in f.seals})

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1) + "\n"


# Another hash chain of the lineage kept beside the commits: its (rows, tip), and the hash at a position.
ChainAccess = tuple[Callable[[Repository, str], tuple[int, str] | None], Callable[[Repository, str, int], str | None]]


def take(repo: Repository, contract_sha: str, chains: Mapping[str, ChainAccess] | None = None) -> Checkpoint:
    """Return the lineage's checkpoint now: head, length, every session chain's tip and every other chain's."""
    head = repo.head(contract_sha)
    tips = {name: tip for name, (tip_of, _) in (chains or {}).items() if (tip := tip_of(repo, contract_sha))}
    seals = {sid: s.seal for sid, s in raw.session_rows(repo.engine, contract_sha).items() if s.seal}
    return Checkpoint(contract_sha, head.hash if head else None, head.seq + 1 if head else 0,
                      raw.memory_tips(repo.engine, contract_sha), now(), tips, seals)


def compare(repo: Repository, contract_sha: str, cp: Checkpoint,
            chains: Mapping[str, ChainAccess] | None = None) -> list[str]:
    """Return why the store no longer extends the checkpoint ([] when it does)."""
    if cp.contract_sha != contract_sha:
        return [f"the checkpoint is of lineage {cp.contract_sha[:12]}, not {contract_sha[:12]}"]
    problems = []
    if cp.head is not None:
        commits = raw.commit_rows(repo.engine, contract_sha)
        if len(commits) < cp.length:
            problems.append(f"rollback: the chain has {len(commits)} commit(s), the checkpoint saw {cp.length} "
                            f"(head {cp.head[:12]} at seq {cp.length - 1} is gone)")
        elif commits[cp.length - 1].hash != cp.head:
            problems.append(f"the chain no longer extends the checkpoint: seq {cp.length - 1} is "
                            f"{commits[cp.length - 1].hash[:12]}, the checkpoint's head is {cp.head[:12]}")
    for sid, (n, tip) in sorted(cp.memory.items(), key=lambda kv: (kv[0] is not None, kv[0] or 0)):
        row = raw.memory_row_at(repo.engine, contract_sha, sid, n - 1)
        who = "session-less memory" if sid is None else f"session {sid}"
        if row is None:
            problems.append(f"rollback of the memory: {who} had {n} row(s) at the checkpoint; row {n - 1} is gone")
        elif row.row_hash != tip:
            problems.append(f"{who}: memory row {n - 1} (id {row.id}) differs from the checkpoint "
                            f"(stored {str(row.row_hash)[:12]}, checkpoint {tip[:12]})")
    sessions = raw.session_rows(repo.engine, contract_sha) if cp.seals else {}
    for sid, seal in sorted(cp.seals.items()):
        now_seal = sessions[sid].seal if sid in sessions else None
        if now_seal != seal:
            problems.append(f"session {sid} was sealed at the checkpoint ({seal[:20]}…) and is now "
                            + ("deleted" if sid not in sessions else "unsealed" if now_seal is None else "sealed otherwise"))
    for name, (n, tip) in sorted(cp.chains.items()):
        access = (chains or {}).get(name)
        if access is None:
            problems.append(f"{name}: the checkpoint covers this chain but this mathloop cannot read it")
            continue
        at = access[1](repo, contract_sha, n - 1)
        if at is None:
            problems.append(f"rollback of {name}: {n} row(s) at the checkpoint; row {n - 1} is gone")
        elif at != tip:
            problems.append(f"{name}: row {n - 1} differs from the checkpoint (stored {at[:12]}, checkpoint {tip[:12]})")
    return problems
