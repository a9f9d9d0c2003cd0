"""Strict JSON extraction from a model's reply: size limits, no NaN/Infinity, no eval.

A reply is either exactly one JSON value, or free text with a JSON object somewhere inside
it (a code fence, a sentence before it). Everything around the JSON is kept as the model's
free-text claims; it is never read by the gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathloop.bounded import StrictJSONError, strict_loads

MAX_REPLY_CHARS = 64 * 1024
# A JSON object can only start at one of the first few braces; beyond that the reply is noise.
_MAX_START_TRIES = 32


class NotJSON(ValueError):
    """The reply holds no acceptable JSON value; str() is the reason recorded as `malformed`."""


class RefusedJSON(NotJSON):
    """Syntactically JSON but refused on principle (NaN/Infinity, duplicate keys): never retried."""


@dataclass(frozen=True)
class Extracted:
    """A JSON value found in a reply and the free text around it (the model's own words)."""

    value: Any
    outside_text: str


def loads_strict(text: str) -> Any:
    """Return the JSON value of `text` by the one strict parser (`bounded.strict_loads`), as a reply error.

    >>> loads_strict('{"R": "13/10"}')
    {'R': '13/10'}
    >>> loads_strict('[NaN]')
    Traceback (most recent call last):
    ...
    mathloop.propose.extract.RefusedJSON: non-finite number NaN in JSON
    """
    try:
        return strict_loads(text)
    except StrictJSONError as e:
        if e.refused:
            raise RefusedJSON(f"{e} in JSON") from None
        raise NotJSON(f"invalid JSON: {e}") from None


def balanced_object_end(text: str, start: int) -> int | None:
    """Return the index just past the `}` closing the object opened at text[start], or None.

    String-aware: braces inside JSON strings (with escapes) do not count.

    >>> balanced_object_end('x {"a": "}"} y', 2)
    12
    >>> balanced_object_end('{"a": 1', 0) is None
    True
    """
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def extract_json(text: str, *, max_chars: int = MAX_REPLY_CHARS) -> Extracted:
    """Return the reply's JSON value: the whole text if it is JSON, else the first balanced object.

    Raises:
        NotJSON: the reply is too long, empty, or holds no parseable JSON object; or the
            JSON is invalid in a way the strict parser refuses (NaN, duplicate keys).
    """
    if len(text) > max_chars:
        raise NotJSON(f"reply too long ({len(text)} chars > {max_chars})")
    stripped = text.strip()
    if not stripped:
        raise NotJSON("empty reply")
    try:
        return Extracted(loads_strict(stripped), "")
    except RefusedJSON:
        raise
    except NotJSON as e:
        whole = e  # not JSON as a whole: look for an object inside the free text
    start = text.find("{")
    tries = 0
    last_error: NotJSON | None = None
    while start != -1 and tries < _MAX_START_TRIES:
        tries += 1
        end = balanced_object_end(text, start)
        if end is None:
            last_error = last_error or NotJSON("unbalanced braces: JSON object never closed")
            break
        try:
            value = loads_strict(text[start:end])
        except RefusedJSON:
            raise
        except NotJSON as e:
            last_error = e
            start = text.find("{", start + 1)
            continue
        return Extracted(value, (text[:start] + text[end:]).strip())
    if last_error is not None:
        raise NotJSON(f"no valid JSON object in reply ({last_error})")
    if stripped[0] in '["-0123456789':  # it meant to be one JSON value: say why that value was refused
        raise NotJSON(f"no JSON object in reply ({whole})")
    raise NotJSON("no JSON object in reply")
