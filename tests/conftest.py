"""Shared fixtures: the toy target registered for core tests, temp stores, the CLI runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathloop.targets import registry
from mathloop.contract import load_contract
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.support.toy_target import TOY_CONTRACT

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy_registered(monkeypatch):
    registry.registered()  # the entry points first, so that the toy entry is an addition
    monkeypatch.setitem(registry.REGISTRY, "toy", registry.Registered("toy", "tests.support.toy_target:ToyTarget", "tests"))


@pytest.fixture
def toy_contract(tmp_path, toy_registered):
    path = tmp_path / "toy.toml"
    path.write_text(TOY_CONTRACT, encoding="utf-8")
    return load_contract(path)


@pytest.fixture
def repo(tmp_path) -> Repository:
    return Repository(make_engine(str(tmp_path / "store.db")))
