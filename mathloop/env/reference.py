"""The reference state a completion is scored against: the contract's seed, or a commit of a store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from mathloop.contract import Contract
from mathloop.domain import Label, Scores, canonical_json, sha256_hex
from mathloop.check.bracket import Limit, limits as bracket_limits
from mathloop.check.gate import decide
from mathloop.check.outcome import CheckOutcome
from mathloop.propose.base import Head, Rejection
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.rechecks import resting_on_failed
from mathloop.store.repository import CommitRecord, Repository

SEED = "seed"
# Shortest commit-hash prefix accepted (as `git` would: long enough to be unambiguous in practice).
MIN_PREFIX = 8


class ReferenceError(ValueError):
    """The reference state cannot be used; the message names the field and the reason."""


@dataclass(frozen=True)
class StoreCommit:
    """A commit of a store, named by the store's `--db` (path or URL) and the commit hash (or a prefix).

    Attributes:
        db: a SQLite file path or a SQLAlchemy URL, as `mathloop run --db` takes it.
        commit: the full commit hash or a unique prefix of at least 8 hex digits.
    """

    db: str
    commit: str


@dataclass(frozen=True)
class Reference:
    """A resolved reference state.

    Attributes:
        id: "seed" or the full commit hash.
        head: the state as proposers see it (commit id, state, ranks, bounds).
        rejections: refused candidates shown in the prompt, newest first (store references only).
        db: the store it was read from, or None for the seed.
        limits: the bracket partner's certified bounds in that store (read once), which scores may not cross.
    """

    id: str
    head: Head
    rejections: tuple[Rejection, ...] = ()
    db: str | None = None
    limits: tuple[Limit, ...] = ()

    @property
    def scores(self) -> Scores:
        return Scores(dict(self.head.ranks), dict(self.head.bounds))

    @property
    def key(self) -> str:
        """Return a hash identifying the state (what scores are cached under)."""
        return sha256_hex(canonical_json({"state": self.head.state, "ranks": self.head.ranks,
                                          "bounds": self.head.bounds}))


Check = Callable[[Mapping[str, Any] | None, Any], CheckOutcome]


def seed_reference(contract: Contract, check: Check) -> Reference:
    """Return the contract's seed, checked as `mathloop run` checks it before committing the root.

    Raises:
        ReferenceError: the seed does not check, or certifies a bound beyond its class maximum.
    """
    out = check(None, dict(contract.seed))
    if out.evidence is None:
        raise ReferenceError(f"{contract.path}: seed: {out.malformed or out.error}")
    decision = decide(contract, None, out.evidence)
    if decision.label is Label.ERROR or decision.capped:
        raise ReferenceError(f"{contract.path}: seed: {'; '.join(decision.reasons)}")
    ev = out.evidence
    return Reference(SEED, Head(SEED, 0, ev.state, ev.ranks, dict(ev.bounds)))


def _find_commit(repo: Repository, contract: Contract, commit: str) -> CommitRecord:
    wanted = commit.strip().lower()
    if len(wanted) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in wanted):
        raise ReferenceError(f"commit: expected a commit hash (at least {MIN_PREFIX} hex digits), got {commit!r}")
    found = repo.get_commit(wanted) if len(wanted) == 64 else None
    if found is None:
        matches = [c for c in repo.commits(contract.sha256) if c.hash.startswith(wanted)]
        if len(matches) > 1:
            raise ReferenceError(f"commit: prefix {commit!r} is ambiguous ({len(matches)} commits)")
        found = matches[0] if matches else None
    if found is None:
        raise ReferenceError(f"commit: no commit {commit!r} in lineage {contract.name} "
                             f"(contract {contract.sha256[:12]}) of the store")
    if found.contract_sha != contract.sha256:
        raise ReferenceError(f"commit: {found.hash[:12]} belongs to another contract ({found.contract_sha[:12]}), "
                             f"not {contract.name} ({contract.sha256[:12]})")
    return found


def store_reference(contract: Contract, ref: StoreCommit, *, rejections: int = 0) -> Reference:
    """Return a commit of a store as the reference (read once; the store is never written).

    Raises:
        ReferenceError: no such store, the commit is not in this contract's lineage, or it failed a quarantine
            re-check (or rests on one that did).
    """
    try:
        engine = make_engine(ref.db, create=False)
    except StoreError as e:
        raise ReferenceError(f"db: {e}") from None
    try:
        repo = Repository(engine)
        commit = _find_commit(repo, contract, ref.commit)
        if commit.hash in resting_on_failed(repo, contract.sha256):
            raise ReferenceError(f"commit {commit.hash[:12]} failed the session's re-check or rests on a commit that "
                                 "did (a quarantined worker's answer; `mathloop audit` fails this lineage from there): "
                                 "it cannot be a reward reference")
        shown = repo.recent_rejections(contract.sha256, rejections) if rejections else ()
        limits = bracket_limits(repo, contract, commit.hash)
    finally:
        engine.dispose()
    return Reference(commit.hash, commit.as_head(), tuple(shown), ref.db, limits)


def reference_state(contract: Contract, ref: StoreCommit | None, check: Check, *, rejections: int = 0) -> Reference:
    """Return the resolved reference: the seed (checked with `check`) or the store's commit."""
    if ref is None:
        return seed_reference(contract, check)
    if not isinstance(ref, StoreCommit):
        raise ReferenceError(f"reference: expected None (the seed) or StoreCommit(db, commit), got {ref!r}")
    return store_reference(contract, ref, rejections=rejections)
