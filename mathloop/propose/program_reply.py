"""A model's reply in the program form, read as data: a whole program, or SEARCH/REPLACE edits of its parent.

The two shapes a reply may take (anything else is `malformed` with the reason):

- a whole program: exactly one fenced block opened with ```python (its text is the program);
- edits of the parent program the prompt showed, one or more blocks, each the line `<<<<<<< SEARCH`, lines copied
  exactly from the parent, the line `=======`, the lines that replace them, and the line `>>>>>>> REPLACE`.
  Marker lines stand alone (trailing blanks allowed). Blocks apply in order to the text edited so far; each SEARCH
  text must occur exactly once there and be non-empty. Text outside the blocks (and fences around them) is ignored.

Nothing in a reply is executed here: the result is a string that only the sandbox runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"
MAX_BLOCKS = 32
_FENCE = re.compile(r"^```[ \t]*(?:python|py|python3)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


class ReplyError(ValueError):
    """The reply is neither a whole program nor edits that apply; str() says which rule it broke."""


@dataclass(frozen=True)
class ProgramReply:
    """The program a reply gives: its text and how it was written (`full` or `diff`, with the number of edits)."""

    text: str
    shape: str
    edits: int = 0


def _is(line: str, marker: str) -> bool:
    return line.rstrip() == marker


def parse_edits(reply: str) -> list[tuple[str, str]]:
    """Return the (search, replace) pairs of a reply's SEARCH/REPLACE blocks, in order (none: an empty list).

    >>> parse_edits("<<<<<<< SEARCH\\nx = 1\\n=======\\nx = 2\\n>>>>>>> REPLACE\\n")
    [('x = 1\\n', 'x = 2\\n')]

    Raises:
        ReplyError: a block is not closed, has no divider, or there are more than MAX_BLOCKS.
    """
    lines = reply.splitlines(keepends=True)
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        if not _is(lines[i], SEARCH):
            i += 1
            continue
        n = len(out) + 1
        j = i + 1
        while j < len(lines) and not _is(lines[j], DIVIDER):
            if _is(lines[j], SEARCH) or _is(lines[j], REPLACE):
                raise ReplyError(f"edit {n}: {lines[j].strip()!r} before its '{DIVIDER}' line")
            j += 1
        if j == len(lines):
            raise ReplyError(f"edit {n}: no '{DIVIDER}' line after '{SEARCH}'")
        k = j + 1
        while k < len(lines) and not _is(lines[k], REPLACE):
            if _is(lines[k], SEARCH) or _is(lines[k], DIVIDER):
                raise ReplyError(f"edit {n}: {lines[k].strip()!r} before its '{REPLACE}' line")
            k += 1
        if k == len(lines):
            raise ReplyError(f"edit {n}: no '{REPLACE}' line (the reply may be cut short)")
        out.append(("".join(lines[i + 1:j]), "".join(lines[j + 1:k])))
        if len(out) > MAX_BLOCKS:
            raise ReplyError(f"more than {MAX_BLOCKS} edits in one reply")
        i = k + 1
    return out


def apply_edits(parent: str, edits: list[tuple[str, str]]) -> str:
    """Return `parent` with each (search, replace) applied in order; each search must occur exactly once.

    >>> apply_edits("a = 1\\nb = 2\\n", [("b = 2\\n", "b = 3\\n")])
    'a = 1\\nb = 3\\n'

    Raises:
        ReplyError: an empty search text, or one found zero or several times (named by its number).
    """
    text = parent if parent.endswith("\n") else parent + "\n"
    for n, (search, replace) in enumerate(edits, 1):
        if not search.strip():
            raise ReplyError(f"edit {n}: the SEARCH part is empty")
        found = text.count(search)
        if found != 1:
            first = search.strip().splitlines()[0][:80]
            raise ReplyError(f"edit {n}: the SEARCH text ({first!r}...) occurs {found} times in the parent program, "
                             "not exactly once" if found else
                             f"edit {n}: the SEARCH text ({first!r}...) is not in the parent program (copy its lines exactly)")
        text = text.replace(search, replace, 1)
    return text


def read_reply(reply: str, parent: str | None) -> ProgramReply:
    """Return the program a reply gives: edits of `parent` when it has SEARCH blocks, else its one ```python block.

    >>> read_reply("Here:\\n```python\\nprint(1)\\n```\\n", None)
    ProgramReply(text='print(1)\\n', shape='full', edits=0)

    Raises:
        ReplyError: neither shape, two or more python blocks, edits without a parent, or edits that do not apply.
    """
    edits = parse_edits(reply)
    if edits:
        if parent is None:
            raise ReplyError("SEARCH/REPLACE edits, but the prompt showed no parent program to edit")
        return ProgramReply(apply_edits(parent, edits), "diff", len(edits))
    blocks = _FENCE.findall(reply)
    if len(blocks) > 1:
        raise ReplyError(f"{len(blocks)} ```python blocks: send exactly one whole program, or SEARCH/REPLACE edits")
    if not blocks or not blocks[0].strip():
        raise ReplyError("no program: reply with one ```python block holding a whole program, or SEARCH/REPLACE edits")
    return ProgramReply(blocks[0], "full")


def same_code(a: str, b: str) -> bool:
    """Return whether two program texts are the same code: equal token streams, comments and blank lines aside.

    A reply that only adds a comment (the 1.5B model copied the prompt's example edit, `n = 40  # the new line(s) go
    here`, as its whole answer) is a copy of its parent. The texts are only tokenised, never run; a text the tokenizer
    refuses is compared by its words.

    >>> same_code("n = 40\\n", "n = 40  # the new line(s) go here\\n\\n"), same_code("n = 40\\n", "n = 41\\n")
    (True, False)
    """
    import io
    import tokenize

    def tokens(text: str) -> list[tuple[int, str]]:
        skip = (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)
        return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in skip]

    try:
        return tokens(a) == tokens(b)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return a.split() == b.split()
