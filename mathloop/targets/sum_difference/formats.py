"""Candidate files for the sum-difference targets, read into the payload {"points": [[x, y, "weight"], ...]}.

Accepted (the result still goes through `parse_payload`, which is the judge):
- the target's own JSON;
- the published certificates' JSON forms: {"weights": [{"x", "y", "num", "den"}, ...]} (constant 3b, PR #92),
  {"distribution_x_y_numden": [[x, y, [num, den]], ...]} (3c, PR #93) and {"denominator": "10^k",
  "distribution_x_y_num": [[x, y, num], ...]} (3c, PR #185); numerators and denominators are JSON integers, read
  exactly;
- a text file, one point per line: "x y weight" (separated by spaces, commas or tabs; the weight an integer, p/q or a
  decimal); blank lines and `#` comments are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mathloop.bounded import InputError, StrictJSONError, decode_utf8, read_bytes, strict_loads

MAX_FILE_BYTES = 2_000_000
_INT = re.compile(r"[+-]?[0-9]{1,12}")
_POWER = re.compile(r"10\^([0-9]{1,4})")


def read_candidate(path: Path | str, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Return the payload of a candidate file (own JSON, a published certificate, or "x y weight" lines).

    Raises:
        InputError: unreadable, too large, not UTF-8, bad JSON, or a line/entry that is not a point (naming it).
    """
    text = decode_utf8(read_bytes(path, max_bytes, "--candidate"), str(path))
    if text.lstrip().startswith("{"):
        try:
            value = strict_loads(text)
        except StrictJSONError as e:
            raise InputError(f"{path}: not valid JSON: {e}") from None
        return payload_from_json(value, str(path))
    return payload_from_lines(text, str(path))


def _integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: must be a JSON integer, got {type(value).__name__}")
    return value


def payload_from_json(value: Any, where: str) -> Any:
    """Return {"points": ...} for a published certificate's JSON; any other JSON value unchanged.

    >>> payload_from_json({"weights": [{"x": 0, "y": 1, "num": 1, "den": 2}, {"x": 1, "y": 0, "num": 1, "den": 2}]}, "c")
    {'points': [[0, 1, '1/2'], [1, 0, '1/2']]}

    Raises:
        InputError: a certificate entry of the wrong shape (naming the entry).
    """
    if not isinstance(value, dict) or "points" in value:
        return value
    try:
        if "weights" in value:
            return {"points": [[_integer(w["x"], f"{where}: weights[{i}].x"), _integer(w["y"], f"{where}: weights[{i}].y"),
                                f"{_integer(w['num'], f'{where}: weights[{i}].num')}/"
                                f"{_integer(w['den'], f'{where}: weights[{i}].den')}"]
                               for i, w in enumerate(value["weights"])]}
        if "distribution_x_y_numden" in value:
            return {"points": [[_integer(x, f"{where}: distribution_x_y_numden[{i}][0]"),
                                _integer(y, f"{where}: distribution_x_y_numden[{i}][1]"),
                                f"{_integer(nd[0], where)}/{_integer(nd[1], where)}"]
                               for i, (x, y, nd) in enumerate(value["distribution_x_y_numden"])]}
        if "distribution_x_y_num" in value:
            m = _POWER.fullmatch(str(value.get("denominator", "")))
            if not m:
                raise InputError(f"{where}: denominator: must be \"10^k\"")
            den = 10 ** int(m.group(1))
            return {"points": [[_integer(x, f"{where}: distribution_x_y_num[{i}][0]"),
                                _integer(y, f"{where}: distribution_x_y_num[{i}][1]"),
                                f"{_integer(n, f'{where}: distribution_x_y_num[{i}][2]')}/{den}"]
                               for i, (x, y, n) in enumerate(value["distribution_x_y_num"])]}
    except InputError:
        raise
    except (KeyError, TypeError, ValueError, IndexError):
        raise InputError(f"{where}: a certificate entry is not of the published form (x, y and an exact weight)") from None
    return value


def payload_from_lines(text: str, where: str) -> dict[str, Any]:
    """Return {"points": [[x, y, weight string], ...]} for text with one "x y weight" per line.

    >>> payload_from_lines("# law\\n0 1 1/2\\n1, 0, 0.5\\n", "c.txt")
    {'points': [[0, 1, '1/2'], [1, 0, '0.5']]}

    Raises:
        InputError: a line that is not two integers and a weight (naming the file and line), or no points.
    """
    points: list[list[Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        tokens = [t for t in re.split(r"[\s,;]+", body) if t]
        if len(tokens) != 3 or not _INT.fullmatch(tokens[0]) or not _INT.fullmatch(tokens[1]):
            raise InputError(f"{where}: line {lineno}: not a point \"x y weight\": {body[:60]!r}")
        points.append([int(tokens[0]), int(tokens[1]), tokens[2]])
    if not points:
        raise InputError(f"{where}: no points found")
    return {"points": points}
