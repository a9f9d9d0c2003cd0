"""The reply text inside a completion, in the shapes trainers hand completions over."""

from __future__ import annotations

from typing import Any


def completion_text(completion: Any) -> Any:
    """Return the reply text of a completion: a string, or the last assistant message of a conversation.

    Conversational completions are lists of {"role", "content"} messages (content a string, or a list
    of {"type": "text", "text"} parts); anything else is returned unchanged and is scored malformed.

    >>> completion_text([{"role": "assistant", "content": '{"R": "6/5"}'}])
    '{"R": "6/5"}'
    >>> completion_text([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
    'ab'
    >>> completion_text([{"role": "user", "content": "hi"}]) is None
    True
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, (list, tuple)):
        return completion
    for message in reversed(completion):
        if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
            return _content_text(message.get("content"))
    return None


def _content_text(content: Any) -> Any:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)) and all(isinstance(p, dict) for p in content):
        texts = [p.get("text") for p in content if p.get("type", "text") == "text"]
        if texts and all(isinstance(t, str) for t in texts):
            return "".join(texts)
    return content
