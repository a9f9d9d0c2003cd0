"""Payload text: a candidate's raw text (bytes or str) read into a JSON value under a byte limit.

A target's `parse_payload` accepts either a parsed JSON value or its text; this is the one place that
reads the text (UTF-8, the size limit before parsing, the one strict JSON parser) and the one place
that measures the canonical payload against the same limit afterwards. Refusals are
Malformed("payload: why").
"""

from __future__ import annotations

import json
from typing import Any

from mathloop.bounded import StrictJSONError, strict_loads
from mathloop.targets.base import Malformed


def load_payload(payload: Any, max_bytes: int, *, numbers: bool = True) -> Any:
    """Return the JSON value of `payload` if it is bytes or text, else `payload` unchanged.

    `numbers=False` refuses every JSON number (targets whose numbers are all exact-rational strings).

    Raises:
        Malformed: not UTF-8, larger than `max_bytes`, or not strict JSON.
    """
    if isinstance(payload, (bytes, bytearray)):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError:
            raise Malformed("payload: not UTF-8") from None
    if isinstance(payload, str):
        if len(payload.encode("utf-8", errors="replace")) > max_bytes:
            raise Malformed(f"payload: larger than {max_bytes} bytes")
        try:
            payload = strict_loads(payload, numbers=numbers)
        except StrictJSONError as e:
            raise Malformed(f"payload: {e}" if e.refused else f"payload: not valid JSON: {e}") from None
    return payload


def check_size(canonical: Any, max_bytes: int) -> None:
    """Raise Malformed unless the compact JSON of the canonical payload fits in `max_bytes`."""
    if len(json.dumps(canonical, separators=(",", ":"))) > max_bytes:
        raise Malformed(f"payload: larger than {max_bytes} bytes")
