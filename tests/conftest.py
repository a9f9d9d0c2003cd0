"""Shared fixtures: the toy target registered for core tests, temp stores, the CLI runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from mathloop.targets import registry
from mathloop.targets import load_contract
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.support.toy_target import TOY_CONTRACT

ROOT = Path(__file__).resolve().parents[1]

# Property tests draw the same examples on every run, so that a verdict depends on the commit, not on
# the draw; MATHLOOP_FUZZ_EXPLORE=1 draws fresh ones (what they find becomes a test of its own).
settings.register_profile("derandomised", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile("explore" if os.environ.get("MATHLOOP_FUZZ_EXPLORE") == "1" else "derandomised")


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
