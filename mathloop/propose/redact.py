"""Secret redaction at the model boundary: every string the server sent passes here before it is kept.

A model server receives the API key (the Authorization header) and controls every byte of its
reply, so it can echo the key anywhere: the content, the finish reason, the model name, an error
body, a header quoted in an error, the HTTP status text. `Redactor` replaces the key in any text,
in every spelling that decodes to it, and any run of at least `MIN_FRAGMENT` consecutive characters
of it (a key split across two fields still loses its long parts). Spellings recognised:

- literal, and with whitespace or invisible characters (zero-width, soft hyphen) inside it;
- JSON/Python escapes, with any number of backslashes (``\\u0073``, ``\\\\u0073``, ``\\x73``, ``\\/``);
- percent-encoding (``%73``);
- re-encoded (keys of MIN_FRAGMENT characters or more): reversed, rot13, hexadecimal (either
  case) of its UTF-8 bytes, and standard or URL-safe base64 of them at any byte offset (the
  characters of the encoding that depend on the key's bytes alone, so base64 of
  "prefix + key + suffix" is caught too).

The server already holds the key; the promise here is that an echo never reaches the store, the
logs, an error message or an export, in a spelling that anyone reading them could undo. What it
cannot see: an encoding not listed (encryption, a custom alphabet), or a key cut into pieces
shorter than MIN_FRAGMENT.
"""

from __future__ import annotations

import base64
import codecs
import logging
import re
from typing import Any

REDACTED = "[redacted]"
# Shorter runs of the key (e.g. a public prefix like "sk-proj-") are not worth hiding and would
# mangle ordinary text; longer ones reveal enough of it to matter.
MIN_FRAGMENT = 12
# Secrets shorter than this are placeholders ("x", "not-needed"), not secrets.
MIN_SECRET = 4
# Every spelling that decodes to one character (group 1..4) or to nothing (group 5 / escaped whitespace).
_TOKEN = re.compile(
    r"\\+u([0-9a-fA-F]{4})|\\+U([0-9a-fA-F]{8})|\\+x([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})"
    r"|\\+([^uUx])"
    r"|([\s\u00ad\u180e\u200b-\u200f\u2028-\u202f\u2060-\u2064\ufeff]+)"
)
_ESCAPED_BLANK = frozenset("nrtbf")
# Loggers of the HTTP stack that may quote what the server sent (status text, headers).
_HTTP_LOGGERS = ("openai", "openai._base_client", "httpx", "httpx2", "httpcore", "httpcore2",
                 "httpcore.http11", "httpcore.connection", "httpcore2.http11", "httpcore2.connection")


def _decoded_view(text: str) -> tuple[str, list[int], list[int]]:
    """Return (decoded text, start, end): decoded[i] came from text[start[i]:end[i]]."""
    out: list[str] = []
    start: list[int] = []
    end: list[int] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() > pos:
            out.append(text[pos:m.start()])
            start.extend(range(pos, m.start()))
            end.extend(range(pos + 1, m.start() + 1))
        pos = m.end()
        code = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        if code is not None:
            try:
                ch = chr(int(code, 16))
            except (ValueError, OverflowError):
                ch = ""
        elif m.group(5) is not None:
            ch = "" if m.group(5) in _ESCAPED_BLANK else m.group(5)
        else:
            ch = ""  # whitespace and invisible characters: dropped, so a split key still matches
        if ch and not ch.isspace():
            out.append(ch)
            start.append(m.start())
            end.append(m.end())
    if pos < len(text):
        out.append(text[pos:])
        start.extend(range(pos, len(text)))
        end.extend(range(pos + 1, len(text) + 1))
    return "".join(out), start, end


def storable(text: str) -> str:
    """Return `text` with lone surrogates and NUL characters replaced by U+FFFD.

    >>> storable("a\\x00b\\ud800") == "a\\ufffdb\\ufffd"
    True
    """
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text


def storable_value(obj: Any) -> Any:
    """Return a JSON-like value with every string in it (dict keys included) made storable."""
    return Redactor(None).value(obj)


def _runs(text: str, k: int) -> set[str]:
    """Return every run of k consecutive characters of `text` (all of it when shorter)."""
    return {text[i:i + k] for i in range(max(1, len(text) - k + 1))}


def spellings(secret: str) -> list[str]:
    """Return the secret and the re-encodings of it that the redactor hides (each searched for by its runs).

    >>> spellings("key!")[:4]
    ['key!', '!yek', 'xrl!', '6b657921']
    """
    raw = secret.encode("utf-8")
    out = [secret, secret[::-1], codecs.encode(secret, "rot13"), raw.hex(), raw.hex().upper()]
    for offset in range(3):  # base64 groups 3 bytes: the key can start at any of 3 positions in a group
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(b"\0" * offset + raw).decode("ascii")
            first, last = -(-8 * offset // 6), 8 * (offset + len(raw)) // 6  # characters of the key's bits alone
            out.append(text[first:last])
    return [v for v in dict.fromkeys(out) if v]


class Redactor:
    """Replaces a secret in any text or JSON value that might be recorded; its repr never shows it."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret if secret and len(secret) >= MIN_SECRET else None
        if self._secret is not None:
            # runs of MIN_FRAGMENT characters of every spelling; a shorter secret only literally and
            # whole (its reversal or a few hex digits of it would match ordinary words and numbers)
            if len(self._secret) < MIN_FRAGMENT:
                self._grams = frozenset({self._secret})
            else:
                self._grams = frozenset(g for v in spellings(self._secret) for g in _runs(v, MIN_FRAGMENT))
            self._k = min(map(len, self._grams))

    def __repr__(self) -> str:
        return "Redactor(<hidden>)"

    @property
    def active(self) -> bool:
        """Return whether there is a secret to hide."""
        return self._secret is not None

    def _spans(self, decoded: str) -> list[tuple[int, int]]:
        """Return merged [i, j) ranges of `decoded` covered by the runs of the secret's spellings."""
        hits = []
        for gram in self._grams:
            i = decoded.find(gram)
            while i != -1:
                hits.append((i, i + len(gram)))
                i = decoded.find(gram, i + 1)
        hits.sort()
        merged: list[tuple[int, int]] = []
        for a, b in hits:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    def __call__(self, text: str) -> str:
        """Return `text` with every spelling of the secret (or a long run of it) replaced by [redacted].

        The result is always storable: lone surrogates and NUL characters (which UTF-8 and
        PostgreSQL text refuse) become U+FFFD.
        """
        if not isinstance(text, str):
            return text
        text = storable(text)
        if self._secret is None or len(text) < self._k:
            return text
        decoded, start, end = _decoded_view(text)
        spans = self._spans(decoded)
        if not spans:
            return text
        parts, pos = [], 0
        for i, j in spans:
            a, b = start[i], end[j - 1]
            parts.append(text[pos:a])
            parts.append(REDACTED)
            pos = b
        parts.append(text[pos:])
        return "".join(parts)

    def value(self, obj: Any) -> Any:
        """Return a JSON-like value with every string in it (dict keys included) redacted."""
        if isinstance(obj, str):
            return self(obj)
        if isinstance(obj, dict):
            return {self(k) if isinstance(k, str) else k: self.value(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.value(v) for v in obj]
        return obj

    def leaks(self, text: str) -> bool:
        """Return whether `text` still holds the secret, or a long run of it, in any spelling."""
        return self._secret is not None and self(text) != text

    def guard_logs(self) -> None:
        """Redact the records of the HTTP stack's loggers (they quote status texts and headers)."""
        if self._secret is not None:
            _LOG_FILTER.add(self)


class _LogRedaction(logging.Filter):
    """One logging filter on the HTTP stack's loggers: formats a record once and redacts every known secret."""

    def __init__(self) -> None:
        super().__init__()
        self._redactors: dict[str, Redactor] = {}
        self._installed = False

    def add(self, redact: Redactor) -> None:
        self._redactors.setdefault(redact._secret or "", redact)
        if not self._installed:
            for name in _HTTP_LOGGERS:
                logging.getLogger(name).addFilter(self)
            self._installed = True

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot format is shown as its template
            message = str(record.msg)
        for redact in list(self._redactors.values()):
            message = redact(message)
        record.msg, record.args = message, None
        return True


_LOG_FILTER = _LogRedaction()
