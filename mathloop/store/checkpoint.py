"""Checkpoints: the head hash, chain length and memory chain tips, kept outside the store to detect rollbacks.

A store cannot prove from inside that nobody deleted its newest rows; a checkpoint written
elsewhere can: the chain must still contain the checkpoint's head at its seq, and every session
chain must still contain its recorded tip.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from mathloop.store import raw
from mathloop.store.repository import Repository, now

FORMAT = "mathloop/checkpoint/1"
_HEX = re.compile(r"[0-9a-f]{64}")
_SEAL = re.compile(r"[0-9]{1,18}:[0-9a-f]{64}")


class CheckpointError(ValueError):
    """A checkpoint file is not a valid checkpoint (the message names the field)."""


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
        if not isinstance(d, dict):
            raise CheckpointError("checkpoint: must be a JSON object")
        if d.get("format") != FORMAT:
            raise CheckpointError(f"format: must be {FORMAT!r}")
        sha, head, length = d.get("contract_sha"), d.get("head"), d.get("length")
        if not isinstance(sha, str) or not _HEX.fullmatch(sha):
            raise CheckpointError("contract_sha: must be 64 lowercase hex digits")
        if head is not None and (not isinstance(head, str) or not _HEX.fullmatch(head)):
            raise CheckpointError("head: must be null or 64 lowercase hex digits")
        if isinstance(length, bool) or not isinstance(length, int) or length < 0 or (length == 0) != (head is None):
            raise CheckpointError("length: must be a non-negative integer, 0 exactly when head is null")
        sessions = d.get("sessions", [])
        if not isinstance(sessions, list):
            raise CheckpointError("sessions: must be a list")
        memory: dict[int | None, tuple[int, str]] = {}
        for i, s in enumerate(sessions):
            if not isinstance(s, dict):
                raise CheckpointError(f"sessions[{i}]: must be an object")
            sid, n, tip = s.get("session"), s.get("rows"), s.get("tip")
            if sid is not None and (isinstance(sid, bool) or not isinstance(sid, int)):
                raise CheckpointError(f"sessions[{i}].session: must be an integer or null")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise CheckpointError(f"sessions[{i}].rows: must be a positive integer")
            if not isinstance(tip, str) or not _HEX.fullmatch(tip):
                raise CheckpointError(f"sessions[{i}].tip: must be 64 lowercase hex digits")
            memory[sid] = (n, tip)
        chains: dict[str, tuple[int, str]] = {}
        raw_chains = d.get("chains", [])
        if not isinstance(raw_chains, list):
            raise CheckpointError("chains: must be a list")
        for i, c in enumerate(raw_chains):
            if not isinstance(c, dict) or not isinstance(c.get("table"), str):
                raise CheckpointError(f"chains[{i}]: must be an object with a string table")
            n, tip = c.get("rows"), c.get("tip")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise CheckpointError(f"chains[{i}].rows: must be a positive integer")
            if not isinstance(tip, str) or not _HEX.fullmatch(tip):
                raise CheckpointError(f"chains[{i}].tip: must be 64 lowercase hex digits")
            chains[c["table"]] = (n, tip)
        seals: dict[int, str] = {}
        raw_seals = d.get("seals", [])  # absent in checkpoints written before seals were kept
        if not isinstance(raw_seals, list):
            raise CheckpointError("seals: must be a list")
        for i, e in enumerate(raw_seals):
            sid, seal = e.get("session") if isinstance(e, dict) else None, e.get("seal") if isinstance(e, dict) else None
            if isinstance(sid, bool) or not isinstance(sid, int):
                raise CheckpointError(f"seals[{i}].session: must be an integer")
            if not isinstance(seal, str) or not _SEAL.fullmatch(seal):
                raise CheckpointError(f"seals[{i}].seal: must be 'count:64 hex digits'")
            seals[sid] = seal
        return cls(sha, head, length, memory, str(d.get("taken_at", "")), chains, seals)

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
