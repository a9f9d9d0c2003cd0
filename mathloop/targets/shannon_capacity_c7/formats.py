"""Candidate files in the formats independent-set searches publish, read into this target's payload.

Accepted (the result still goes through `parse_payload`, which is the judge):
- the target's own JSON: {"n": 5, "vertices": [[...], ...]};
- a JSON list of vertices: [[0, 0, 0, 0, 5], ...] or [[...]] written as tuples by other tools;
- a text file, one vertex per line: coordinates separated by spaces, commas or tabs, optionally in
  parentheses or brackets ("(0, 0, 0, 0, 5)"), or one word of n digits ("00005"); blank lines and
  `#` comments are skipped.
n is the length of the first vertex. Coordinates are read exactly as written: no reduction mod 7
(a 7 or a -1 is refused by the parser, not silently wrapped).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mathloop.bounded import InputError, StrictJSONError, decode_utf8, read_bytes, strict_loads

MAX_FILE_BYTES = 2_000_000
_SEPARATORS = re.compile(r"[\s,;()\[\]]+")
_DIGIT_WORD = re.compile(r"[0-9]+")


def read_candidate(path: Path | str, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Return the payload of a candidate file (target JSON, JSON list of tuples, or text one vertex per line).

    `max_bytes` caps the file (the contract's payload limit when larger than MAX_FILE_BYTES).

    Raises:
        InputError: unreadable, too large, not UTF-8, bad JSON, or a line that is not a vertex
            (the message names the file and the line).
    """
    text = decode_utf8(read_bytes(path, max_bytes, "--candidate"), str(path))
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")) and not _looks_like_text_lines(stripped):
        try:
            value = strict_loads(text)
        except StrictJSONError as e:
            raise InputError(f"{path}: not valid JSON: {e}") from None
        return payload_from_json(value)
    return payload_from_lines(text, str(path))


def _looks_like_text_lines(text: str) -> bool:
    """Return True for a text file whose lines are bracketed vertices ("[0, 1, 2]" per line, no outer list)."""
    first = text.splitlines()[0].strip()
    return first.startswith("[") and not first.startswith("[[") and first.endswith("]") and "\n" in text.strip()


def payload_from_json(value: Any) -> Any:
    """Return {"n", "vertices"} for a bare JSON list of vertices; any other JSON value unchanged.

    >>> payload_from_json([[0, 2], [2, 4]])
    {'n': 2, 'vertices': [[0, 2], [2, 4]]}
    """
    if isinstance(value, list) and value and isinstance(value[0], list):
        return {"n": len(value[0]), "vertices": value}
    return value


def payload_from_lines(text: str, where: str) -> dict[str, Any]:
    """Return {"n", "vertices"} for text with one vertex per line.

    >>> payload_from_lines("# a comment\\n0 2\\n(2, 4)\\n40\\n", "x.txt")
    {'n': 2, 'vertices': [[0, 2], [2, 4], [4, 0]]}

    Raises:
        InputError: a line holds something other than integers (naming the file and line number).
    """
    vertices: list[list[int]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        tokens = [t for t in _SEPARATORS.split(body) if t]
        if len(tokens) == 1 and _DIGIT_WORD.fullmatch(tokens[0]) and len(tokens[0]) > 1:
            tokens = list(tokens[0])  # a digit word "00005": one digit per coordinate
        try:
            vertices.append([_integer(t) for t in tokens])
        except ValueError:
            raise InputError(f"{where}: line {lineno}: not a vertex (integers separated by spaces or commas): "
                             f"{body[:60]!r}") from None
    if not vertices:
        raise InputError(f"{where}: no vertices found")
    return {"n": len(vertices[0]), "vertices": vertices}


def _integer(token: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]{1,6}", token):
        raise ValueError(token)
    return int(token)
