"""A model's program reply is data: a whole program in one ```python block or SEARCH/REPLACE edits that apply exactly."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from mathloop.propose.program_reply import ReplyError, apply_edits, parse_edits, read_reply

PARENT = "import json\nn = 40\nstep = 0.05\nprint(json.dumps({'n': n}))\n"


def block(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def test_edits_apply_in_order_to_the_parent():
    reply = "Two changes:\n```\n" + block("n = 40\n", "n = 60\n") + block("step = 0.05\n", "step = 0.01\n") + "```\n"
    got = read_reply(reply, PARENT)
    assert got.shape == "diff" and got.edits == 2
    assert got.text == "import json\nn = 60\nstep = 0.01\nprint(json.dumps({'n': n}))\n"


@pytest.mark.parametrize("reply, why", [
    (block("n = 41\n", "n = 60\n"), "edit 1: the SEARCH text ('n = 41'...) is not in the parent program"),
    (block("\n", "x = 1\n"), "edit 1: the SEARCH part is empty"),
    ("<<<<<<< SEARCH\nn = 40\n=======\nn = 60\n", "edit 1: no '>>>>>>> REPLACE' line (the reply may be cut short)"),
    ("<<<<<<< SEARCH\nn = 40\n>>>>>>> REPLACE\n", "edit 1: '>>>>>>> REPLACE' before its '=======' line"),
    ("The answer is 0.38.", "no program: reply with one ```python block"),
    ("```python\nprint(1)\n```\n```python\nprint(2)\n```", "2 ```python blocks"),
])
def test_replies_off_the_form_are_refused_naming_the_rule(reply, why):
    with pytest.raises(ReplyError, match="^" + why.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        read_reply(reply, PARENT)


def test_a_search_text_found_twice_is_ambiguous():
    with pytest.raises(ReplyError, match="occurs 2 times in the parent program, not exactly once"):
        apply_edits("x = 1\nx = 1\n", [("x = 1\n", "x = 2\n")])


def test_edits_without_a_parent_are_refused():
    with pytest.raises(ReplyError, match="showed no parent program"):
        read_reply(block("n = 40\n", "n = 60\n"), None)


@given(st.lists(st.text(alphabet="abcxyz =0123456789", min_size=1, max_size=12), min_size=1, max_size=6, unique=True))
def test_an_edit_replacing_a_unique_line_changes_exactly_that_line(lines):
    parent = "".join(f"{line} # {i}\n" for i, line in enumerate(lines))
    target = f"{lines[-1]} # {len(lines) - 1}\n"
    out = read_reply(block(target, "changed = True\n"), parent).text
    assert out == parent.replace(target, "changed = True\n") and out.count("changed = True") == 1
    assert parse_edits(block(target, "changed = True\n")) == [(target, "changed = True\n")]


def test_a_reply_that_only_adds_a_comment_is_the_same_code():
    from mathloop.propose.program_reply import same_code

    parent = "import json\nn = 40\nprint(json.dumps([n]))\n"
    assert same_code(parent, parent.replace("n = 40", "n = 40  # the new line(s) go here") + "\n\n# done\n")
    assert not same_code(parent, parent.replace("n = 40", "n = 41"))
    assert not same_code(parent, parent.replace("[n]", "[n, n]"))
    assert same_code("x = (\n", "x = (\n") and not same_code("x = (\n", "y = (\n")  # untokenisable: by words
