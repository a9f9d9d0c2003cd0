"""Structured-output negotiation: find the `response_format` form an endpoint accepts.

OpenAI, vLLM and llama.cpp's llama-server take `{"type": "json_schema", ...}`; llama-cpp-python's
server takes `{"type": "json_object", "schema": ...}` (its json_schema form fails with HTTP 500);
some servers take only plain `json_object` or nothing. The first form that gets a reply is
kept for the session; after that a refusal is no longer blamed on the format.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

MODES = ("json_schema", "json_object_schema", "json_object", "none")

# Words that show a refused request was about structured output, not about anything else.
_FORMAT_WORDS = ("response_format", "json_schema", "schema", "grammar", "json_object", "structured")
# ... and words that show it was about the prompt's length instead.
_CONTEXT_WORDS = ("context length", "context_length", "context window", "too many tokens", "maximum context")


def is_context_overflow(status: int, body: str) -> bool:
    """Return whether an HTTP error says the prompt plus max_tokens exceeds the model's context.

    >>> is_context_overflow(400, '{"code": "context_length_exceeded"}')
    True
    """
    text = body.lower()
    return status in (400, 413, 422) and any(w in text for w in _CONTEXT_WORDS)


def response_format(mode: str, schema: Mapping[str, Any], name: str = "candidate") -> dict[str, Any] | None:
    """Return the `response_format` request field for a mode (None: send no such field).

    >>> response_format("json_object", {})
    {'type': 'json_object'}
    >>> response_format("none", {}) is None
    True
    """
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema), "strict": True}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": dict(schema)}
    if mode == "json_object":
        return {"type": "json_object"}
    if mode == "none":
        return None
    raise ValueError(f"unknown response_format mode {mode!r} (known: {', '.join(MODES)})")


def is_format_refusal(status: int, body: str) -> bool:
    """Return whether an HTTP error looks like the server refusing the response_format field.

    400/422 are request-shape refusals; a 500 counts only when its text names the format
    (llama-cpp-python fails inside its schema converter).

    >>> is_format_refusal(500, "Internal Server Error")
    False
    >>> is_format_refusal(500, "ValueError: json_schema not supported")
    True
    """
    text = body.lower()
    if is_context_overflow(status, body):
        return False
    if status in (400, 422):
        return True
    return status == 500 and any(w in text for w in _FORMAT_WORDS)


class FormatNegotiation:
    """The session's current mode; thread-safe, moves only forward through MODES until confirmed."""

    def __init__(self, first: str = MODES[0]) -> None:
        if first not in MODES:
            raise ValueError(f"unknown response_format mode {first!r} (known: {', '.join(MODES)})")
        self._index = MODES.index(first)
        self._confirmed = False
        self._lock = threading.Lock()

    @property
    def mode(self) -> str:
        with self._lock:
            return MODES[self._index]

    @property
    def confirmed(self) -> bool:
        with self._lock:
            return self._confirmed

    def confirm(self, mode: str) -> None:
        """Record that `mode` got a reply: keep it for the rest of the session."""
        with self._lock:
            if not self._confirmed and MODES[self._index] == mode:
                self._confirmed = True

    def refuse(self, mode: str) -> bool:
        """Record that the server refused `mode`; return True if a next mode is left to try.

        A refusal of a mode that is no longer current (another thread moved on) is ignored;
        once a mode is confirmed, refusals are not about the format and change nothing.
        """
        with self._lock:
            if self._confirmed:
                return False
            if MODES[self._index] == mode and self._index < len(MODES) - 1:
                self._index += 1
            return MODES[self._index] != mode
