"""The evolve loop in mathloop (`run --proposer openai --form program`) against a scripted endpoint over real HTTP:
replies are read as programs or edits, each runs in the sandbox, parents and near misses reach the next prompt with
their certified values and reasons, the prompt stays within its bound, and only certified progress is committed."""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract
from tests.integration.cli import invoke
from tests.support.sandboxes import needs_sandbox
from tests.support.scripted_chat import ScriptedChat

TARGET = "erdos-minimum-overlap"
DIFF = "Finer steps:\n<<<<<<< SEARCH\nn = 40\n=======\nn = 60\n>>>>>>> REPLACE\n"
MISSING = "<<<<<<< SEARCH\nn = 41\n=======\nn = 60\n>>>>>>> REPLACE\n"
WORSE = "```python\nimport json\nprint(json.dumps({'heights': ['0', '1', '1', '0']}))\n```"
CRASH = "```python\nimport numpy as np\nprint(undefined_name)\n```"


@pytest.fixture(autouse=True)
def sandbox_here():
    needs_sandbox()


def run(chat: ScriptedChat, db: str, *extra: str):
    return invoke("run", TARGET, "--proposer", "openai", "--form", "program", "--model", "scripted", "--base-url",
                  chat.base_url, "--db", db, "--samples", "4", "--concurrency", "1", "--no-progress", "--no-lean",
                  "--program-time", "20", *extra)  # one request at a time: reply i answers request i


@pytest.mark.slow  # two rounds of four programs (~8 s)
def test_programs_and_edits_from_the_model_commit_certified_progress(tmp_path):
    db = str(tmp_path / "s.db")
    with ScriptedChat([DIFF, MISSING, WORSE, CRASH, "I would try 0.38."]) as chat:
        res = run(chat, db, "--budget", "8")
        prompts = [r["messages"][1]["content"] for r in chat.requests]
    assert res.exit_code == 0, res.output
    contract = load_contract(TARGET)
    repo = Repository(make_engine(db))
    rows = [c for c in repo.candidates(contract.sha256) if c.proposer == "openai:scripted"]
    committed = [c for c in rows if c.commit_hash]
    assert len(committed) == 1 and committed[0].meta["program_shape"] == "diff"
    assert "n = 60" in committed[0].meta["program"]["text"] and committed[0].meta["raw_response"] == DIFF
    head = repo.head(contract.sha256)
    assert head.candidate_id == committed[0].id and head.bounds["C1b"] < Fraction(2, 5)
    reasons = {r for c in rows for r in c.reasons}
    assert any(r.startswith("reply off the program form: edit 1: the SEARCH text ('n = 41'") for r in reasons)
    assert any(r.startswith("program exited with status 1: NameError") for r in reasons)
    assert any(r.startswith("reply off the program form: no program") for r in reasons)
    # round two shows the committed program as program A with its certified value, and what went wrong
    second = prompts[4]
    assert f"## Program A (its output certified C1b = {float(head.bounds['C1b']):.10g})" in second
    assert "n = 60" in second and "NameError" in second and "the SEARCH text ('n = 41'" in second
    assert "## Program B (its output certified C1b = 0.5)" in second  # the seed's heights: a repeat keeps its value
    assert invoke("audit", TARGET, "--db", db).exit_code == 0


def tent(slope: str, n: int = 20) -> str:
    """Return a whole program (no numpy: quick) printing a tent of n steps f = 1 - slope·|x| clipped to [0, 1]."""
    return (f"import json\nn = {n}\nh = [max(0.0, min(1.0, 1 - abs(-1 + (i + 0.5) * 2 / n) * {slope})) "
            "for i in range(n)]\nprint(json.dumps({'heights': [f'{v:.6f}' for v in h]}))\n")


@pytest.mark.slow  # one session of two rounds, four programs (~7 s on a loaded machine)
def test_the_next_prompt_shows_parents_and_near_misses_with_certified_values_and_reasons(tmp_path):
    db = str(tmp_path / "s.db")
    replies = [f"A tent:\n```python\n{tent('0.9')}```\n", f"```python\n{tent('0.5')}```",
               f"```python\n{tent('0.3')}```", "<<<<<<< SEARCH\nn = 20\n=======\nn = 30\n>>>>>>> REPLACE\n"]
    with ScriptedChat(replies) as chat:
        res = run(chat, db, "--samples", "3", "--budget", "4", "--prompt-chars", "6000")
        sizes = [sum(len(m["content"]) for m in r["messages"]) for r in chat.requests]
        second = chat.requests[3]["messages"][1]["content"]
    assert res.exit_code == 0, res.output
    assert len(sizes) == 4 and max(sizes) <= 6000, sizes
    # program A: the committed whole program with its exact value; B: the next best certified; then the near miss
    assert "## Program A (its output certified C1b = 0.3895454545)\n```python\n" + tent("0.9") in second
    assert "## Program B (its output certified C1b = 0.4816666667)" in second and "* 0.5))" in second
    near = second.split("## Near misses (checked, not kept; newest first)\n", 1)[1].splitlines()[0]
    assert near.startswith("- 0.4948615917: ") and "worse than the head's 0.38954546" in near
    assert "Reply with SEARCH/REPLACE edits of program A only." in second
    repo = Repository(make_engine(db))
    rows = {c.meta["program"]["text"]: c for c in repo.candidates(load_contract(TARGET).sha256)
            if c.proposer == "openai:scripted"}  # a round's replies arrive in any order
    assert set(rows) == {tent("0.9"), tent("0.5"), tent("0.3"), tent("0.9", 30)}
    edited, parent = rows[tent("0.9", 30)], rows[tent("0.9")]
    assert edited.meta["program_shape"] == "diff" and parent.meta["program_shape"] == "full"
    assert edited.meta["parent_program"] == parent.meta["program"]["sha256"] and parent.commit_hash
    assert not rows[tent("0.5")].commit_hash and not rows[tent("0.3")].commit_hash
    assert invoke("audit", TARGET, "--db", db).exit_code == 0


@pytest.mark.slow
def test_a_copy_of_program_a_is_marked_as_a_copy(tmp_path):
    from mathloop.propose.program_prompt import starter

    copy = "Here it is again:\n```python\n" + starter(TARGET, {}) + "```\n"
    # the prompt's example edit sent back as it stands: only a comment changes (the 1.5B model did this on C1b)
    example = "<<<<<<< SEARCH\nn = 40\n=======\nn = 40  # the new line(s) go here\n>>>>>>> REPLACE\n"
    with ScriptedChat([copy, example]) as chat:
        res = run(chat, str(tmp_path / "s.db"), "--budget", "2", "--samples", "2")
    assert res.exit_code == 0, res.output
    repo = Repository(make_engine(str(tmp_path / "s.db")))
    rows = [c for c in repo.candidates(load_contract(TARGET).sha256) if c.proposer == "openai:scripted"]
    assert [(c.meta["program_shape"], c.meta["program_copies_parent"]) for c in rows] == [("full", True),
                                                                                         ("diff", True)]


@pytest.mark.slow
def test_the_prompt_stays_within_its_bound(tmp_path):
    db = str(tmp_path / "s.db")
    with ScriptedChat([DIFF, CRASH]) as chat:
        res = run(chat, db, "--budget", "6", "--prompt-chars", "3000")
        sizes = [sum(len(m["content"]) for m in r["messages"]) for r in chat.requests]
        shown = chat.requests[-1]["messages"][1]["content"]
    assert res.exit_code == 0, res.output
    assert sizes and max(sizes) <= 3000, sizes
    assert "## Program A" not in shown and "Write a whole program" in shown  # program A did not fit: no code, no edits


def test_program_form_needs_the_plain_openai_proposer(tmp_path):
    res = invoke("run", TARGET, "--proposer", "openai+local", "--form", "program", "--model", "m", "--base-url",
                 "http://127.0.0.1:9/v1", "--db", str(tmp_path / "s.db"), "--no-progress")
    assert res.exit_code == 2 and "only with --proposer openai" in res.output
