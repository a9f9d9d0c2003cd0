"""Candidate files for spencer-discrepancy in the forms matrices are published in, read into the target's payload.

Accepted (the result still goes through `parse_payload`, which is the judge):
- the target's own JSON: {"matrix": [["1", "-1"], ["1", "1"]]};
- a JSON list of rows: [[1, -1], [1, 1]] (integer entries) or [["1", "-1/2"], ...] (exact strings);
- a text file, one row per line, entries separated by spaces, commas, tabs or semicolons, optionally in brackets
  (the blocks printed in constants/10c.md); blank lines and `#` comments are skipped.
Entries are read exactly as written: "0.5" stays the decimal 1/2, a JSON float (0.5 as a number) is refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mathloop.bounded import InputError, StrictJSONError, decode_utf8, read_bytes, strict_loads

MAX_FILE_BYTES = 1_000_000
_SEPARATORS = re.compile(r"[\s,;()\[\]]+")
_TOKEN = re.compile(r"[+-]?[0-9./eE+-]{1,40}")


def read_candidate(path: Path | str, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Return the payload of a candidate file (own JSON, a JSON list of rows, or a text matrix).

    Raises:
        InputError: unreadable, too large, not UTF-8, bad JSON, a JSON float, or a line that is not a row
            (the message names the file and the line).
    """
    text = decode_utf8(read_bytes(path, max_bytes, "--candidate"), str(path))
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("[["):
        try:
            value = strict_loads(text)
        except StrictJSONError as e:
            raise InputError(f"{path}: not valid JSON: {e}") from None
        return payload_from_json(value, str(path))
    return payload_from_lines(text, str(path))


def payload_from_json(value: Any, where: str) -> Any:
    """Return {"matrix": rows} for a bare JSON list of rows (integers become their decimal strings); else unchanged.

    >>> payload_from_json([[1, -1], ["1/2", 1]], "m.json")
    {'matrix': [['1', '-1'], ['1/2', '1']]}

    Raises:
        InputError: a JSON number that is not an integer (exactness is lost in a float).
    """
    if isinstance(value, list) and value and isinstance(value[0], list):
        rows = []
        for i, row in enumerate(value):
            if not isinstance(row, list):
                return {"matrix": value}  # the parser names the bad row
            out = []
            for j, v in enumerate(row):
                if isinstance(v, float):
                    raise InputError(f"{where}: row {i + 1}, entry {j + 1}: {v!r} is a JSON float; write exact "
                                     f"entries as integers or strings (\"1/2\", \"0.5\")")
                out.append(str(v) if isinstance(v, int) and not isinstance(v, bool) else v)
            rows.append(out)
        return {"matrix": rows}
    return value


def payload_from_lines(text: str, where: str) -> dict[str, Any]:
    """Return {"matrix": rows of entry strings} for text with one row per line.

    >>> payload_from_lines("# A\\n 1  -1\\n[1, 1/2]\\n", "m.txt")
    {'matrix': [['1', '-1'], ['1', '1/2']]}

    Raises:
        InputError: a line holding something other than numbers (naming the file and line number), or no rows.
    """
    rows: list[list[str]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        tokens = [t for t in _SEPARATORS.split(body) if t]
        if not tokens or not all(_TOKEN.fullmatch(t) for t in tokens):
            raise InputError(f"{where}: line {lineno}: not a matrix row (numbers separated by spaces or commas): "
                             f"{body[:60]!r}")
        rows.append(tokens)
    if not rows:
        raise InputError(f"{where}: no matrix rows found")
    return {"matrix": rows}
