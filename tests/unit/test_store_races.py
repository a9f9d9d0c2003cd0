"""A store write that loses a race to another writer is tried again, a bounded number of times (store/races.py)."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from mathloop.domain import Label
from mathloop.store import engine as engine_mod
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import WRITE_RETRIES, Repository


def _lost_race(n: int, real):
    """Return `real` wrapped so that its first `n` calls fail as a unique key refusing the row would."""
    calls = {"n": 0}

    def wrapped(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] <= n:
            raise IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed: candidates.chain_seq"))
        return real(*args, **kwargs)
    return wrapped, calls


def _record(repo: Repository, toy_contract) -> int:
    return repo.record(contract_sha=toy_contract.sha256, session_id=None, head_commit=None, payload={"x": "1"},
                       proposer="local", meta={}, label=Label.MALFORMED, reasons=["bad"], evidence=None)


def test_a_memory_row_that_lost_a_race_is_written_on_a_later_try(repo, toy_contract, monkeypatch):
    repo.ensure_contract(toy_contract)
    wrapped, calls = _lost_race(WRITE_RETRIES - 1, repo._candidate_row)
    monkeypatch.setattr(repo, "_candidate_row", wrapped)
    assert _record(repo, toy_contract) > 0 and calls["n"] == WRITE_RETRIES


def test_a_memory_row_that_loses_every_race_raises_after_the_bound(repo, toy_contract, monkeypatch):
    repo.ensure_contract(toy_contract)
    wrapped, calls = _lost_race(WRITE_RETRIES, repo._candidate_row)
    monkeypatch.setattr(repo, "_candidate_row", wrapped)
    with pytest.raises(IntegrityError):
        _record(repo, toy_contract)
    assert calls["n"] == WRITE_RETRIES


def test_a_store_whose_schema_fails_every_try_is_one_store_error(tmp_path, monkeypatch):
    calls = {"n": 0}

    def failing(engine) -> None:
        calls["n"] += 1
        raise RuntimeError("database is locked\nmore")
    monkeypatch.setattr(engine_mod, "upgrade", failing)
    monkeypatch.setattr(engine_mod, "SCHEMA_RETRIES", 3)
    with pytest.raises(StoreError, match="cannot open store: database is locked$"):
        make_engine(str(tmp_path / "s.db"))
    assert calls["n"] == 3
    monkeypatch.setattr(engine_mod, "upgrade", _lost_race(2, lambda engine: None)[0])
    assert make_engine(str(tmp_path / "s.db")) is not None
