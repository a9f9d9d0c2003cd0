"""The evolve loop's prompt: parents by certified value, near misses with reasons, failures; never over its bound."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from mathloop.domain import Label
from mathloop.propose.program_prompt import PromptLimits, build, starter
from mathloop.search.program_archive import ProgramArchive
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target, load_contract

TARGET = "erdos-minimum-overlap"
SANDBOX = {"packages": ["numpy", "scipy"], "seconds": "20", "memory_mb": 1024}


def program_text(tag: str, lines: int = 3) -> str:
    return "import json\n" + "".join(f"x{i} = {i}  # {tag}\n" for i in range(lines)) + f"print('{tag}')\n"


@pytest.fixture(scope="module")
def store():
    contract = load_contract(TARGET)
    target = build_target(contract)
    repo = Repository(make_engine("sqlite://"))
    repo.ensure_contract(contract)

    def add(tag: str, heights: list[str] | None, label: Label, reasons: list[str], lines: int = 3) -> None:
        ev = target.check(None, target.parse({"heights": heights})) if heights else None
        text = program_text(tag, lines)
        repo.record(contract_sha=contract.sha256, session_id=None, head_commit=None,
                    payload={"heights": heights} if heights else {"program_sha256": tag}, proposer="openai:m",
                    meta={"program": {"text": text, "sha256": tag * 8}}, label=label, reasons=reasons, evidence=ev)

    add("good", ["0", "1", "1", "1", "0"], Label.NO_PROGRESS, ["C1b: certified 0.48 is not better than the head's"])
    add("best", ["1", "2", "3", "2", "1"], Label.NO_PROGRESS, [])
    add("inadm", ["0", "0", "9", "0"], Label.REGRESSION, ["admissible: heights[2]: the normalised height ... exceeds 1"])
    add("crash", None, Label.MALFORMED, ["program exited with status 1: NameError: name 'np' is not defined"])
    add("huge", ["1", "1", "1", "1", "1", "1"], Label.NO_PROGRESS, [], lines=400)
    return contract, target, repo


def prompt(store, max_chars: int):
    contract, target, repo = store
    archive = ProgramArchive(repo.engine, contract)
    archive.refresh()
    head = type("Head", (), {"bounds": {"C1b": Fraction(1, 2)}})()
    return build(contract, target, head, archive, limits=PromptLimits(max_chars=max_chars), sandbox=SANDBOX,
                 starter_text=starter(TARGET, {})), archive


def test_parents_are_the_best_certified_programs_and_misses_carry_reasons(store):
    p, archive = prompt(store, 40_000)
    values = [r.value for r in archive.best(5)]
    assert values == sorted(values)  # C1b is minimised: best first
    user = p.messages[1]["content"]
    assert p.parent == archive.best(1)[0].text
    assert "## Program A (its output certified C1b = " in user and "## Program B" in user
    assert "exceeds 1" in user and "nothing certified: admissible" in user  # the refused one: no value, the reason
    assert "NameError: name 'np' is not defined" in user
    assert p.parent_sha == archive.best(1)[0].sha256


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=2000, max_value=30_000))
def test_the_prompt_never_exceeds_its_bound_and_never_cuts_a_program(store, max_chars):
    p, archive = prompt(store, max_chars)
    assert sum(len(m["content"]) for m in p.messages) <= max_chars
    user = p.messages[1]["content"]
    for r in archive.best(5):
        if r.text.rstrip() in user:
            continue
        assert r.text.splitlines()[1] not in user  # a program is shown whole or not at all


def test_a_target_without_a_starter_starts_from_a_program_printing_the_head():
    text = starter("pair-correlation-rh", {"body": ["1"], "tail": []})
    assert text.endswith('print(json.dumps(state))\n') and '"body": ["1"]' in text
