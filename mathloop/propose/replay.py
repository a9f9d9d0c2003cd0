"""A proposer that replays payloads from a JSONL file (one candidate per line), in order.

The file is streamed line by line (never read whole). What is wrong with one line is that
line's fault and becomes a `malformed` proposal whose reason names the line: not UTF-8, a NUL
byte, longer than MAX_LINE_BYTES (skipped without being held in memory), not JSON, not a JSON
object. A file that cannot be opened at all is the user's error: ReplayFileError, which the CLI
shows as a bad `--proposer` (exit 2) naming the file and the reason.

Credit: a replayed candidate is the replay's. Its meta is `replay` = {file, sha256 of the file, line} and,
when the line carried a `meta` object, that object under `untrusted_line_meta`: a line may claim a model, an
origin or a raw reply, and nothing (dataset, `bench`, web view, log) reads those claims as facts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, BinaryIO, Callable

from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.propose.extract import loads_strict
from mathloop.propose.redact import storable_value

MAX_LINE_BYTES = 1_000_000
_EXCERPT_CHARS = 200
_SKIP_CHUNK = 1 << 20
UNTRUSTED_LINE_META = "untrusted_line_meta"  # a line's own `meta`: its claims, kept apart and never credited


class ReplayFileError(ValueError):
    """The replay file cannot be read at all; str() is "replay file PATH: reason"."""


class ReplayProposer(Proposer):
    """Replays `FILE.jsonl`: each line is a payload object, or {"payload": ..., "meta": {...}}.

    `canonical` (the target's canonical spelling, `targets.spelling.canonical_payload`) respells each payload,
    as a model's replies are through the target's form, so that a respelled copy of a stored candidate is a repeat.
    """

    def __init__(self, path: Path, canonical: Callable[[Any], Any] | None = None) -> None:
        self.name = f"replay:{path.name}"
        self.path = path
        self.canonical = canonical
        try:
            if not path.is_file():
                raise ReplayFileError(f"replay file {path}: not a regular file")
            self._file: BinaryIO | None = open(path, "rb")  # noqa: SIM115 - streamed across propose() calls
            self.sha256 = _sha256(self._file)  # the credit names the file by content, read from this very handle
        except OSError as e:
            raise ReplayFileError(f"replay file {path}: {e.strerror or e}") from None
        self._line = 0

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (also done when it is exhausted)."""
        f, self._file = getattr(self, "_file", None), None
        if f is not None:
            f.close()

    def _next_raw(self) -> tuple[bytes, bool] | None:
        """Return (the next line's bytes, whether it was too long and skipped), or None at the end."""
        if self._file is None:
            return None
        raw = self._file.readline(MAX_LINE_BYTES + 1)
        if not raw:
            self.close()
            return None
        self._line += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while (chunk := self._file.readline(_SKIP_CHUNK)) and not chunk.endswith(b"\n"):
                pass  # skip the rest of the overlong line without holding it
            return raw[:_EXCERPT_CHARS], True
        return raw, False

    def _credit(self, n: int) -> dict[str, Any]:
        return {"replay": {"file": self.path.name, "sha256": self.sha256, "line": n}}

    def _malformed(self, n: int, excerpt: str | None, why: str) -> Proposal:
        return Proposal(excerpt, self.name, self._credit(n), malformed=f"{self.path.name} line {n}: {why}")

    def _proposal(self, n: int, payload: Any, line_meta: Any) -> Proposal:
        meta = self._credit(n)
        if line_meta is not None:
            meta[UNTRUSTED_LINE_META] = line_meta
        canonical = self.canonical(payload) if self.canonical is not None else payload
        if canonical != payload:
            meta["replay"]["as_written"] = payload
        return Proposal(canonical, self.name, meta)

    def _parse(self, n: int, raw: bytes) -> Proposal | None:
        """Return the proposal for one line (None for a blank line)."""
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]  # a UTF-8 byte-order mark
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return self._malformed(n, raw[:_EXCERPT_CHARS].decode("utf-8", "replace"),
                                   f"not UTF-8 (byte {e.start + 1}: {raw[e.start:e.start + 1]!r})")
        line = text.strip()
        if not line:
            return None
        excerpt = storable_value(line[:_EXCERPT_CHARS])
        if "\x00" in line:
            return self._malformed(n, excerpt, f"NUL byte at character {line.index(chr(0)) + 1}")
        try:
            value = loads_strict(line)  # no NaN/Infinity, no duplicate keys, bounded integers
        except (ValueError, RecursionError) as e:
            return self._malformed(n, excerpt, f"not JSON: {e}")
        if not isinstance(value, dict):
            return self._malformed(n, excerpt, f"expected a JSON object, got {type(value).__name__}")
        value = storable_value(value)
        if set(value) <= {"payload", "meta"} and "payload" in value:
            return self._proposal(n, value["payload"], value.get("meta"))
        return self._proposal(n, value, None)

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return up to ctx.samples proposals from the next lines (blank lines skipped); [] at the end."""
        out: list[Proposal] = []
        while len(out) < max(1, ctx.samples):
            got = self._next_raw()
            if got is None:
                break
            raw, too_long = got
            n = self._line
            if too_long:
                out.append(self._malformed(n, None, f"longer than {MAX_LINE_BYTES} bytes"))
                continue
            p = self._parse(n, raw)
            if p is not None:
                out.append(p)
        return out


def _sha256(f: BinaryIO) -> str:
    """Return the sha256 of the whole file (streamed) and rewind it."""
    h = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
    f.seek(0)
    return h.hexdigest()
