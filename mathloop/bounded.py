"""Read user files with a size cap, streamed, as strict UTF-8 and strict JSON; every error names the file.

Every input path (candidate files, certificate manifests and the files they name, checkpoints,
contracts, replay files) goes through here, so that a 2 GB file, a FIFO, invalid UTF-8, a lone
surrogate or a NaN is a clear `InputError`, never a traceback or a memory blow-up.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Iterator

CHUNK = 1 << 20
MAX_CANDIDATE_BYTES = 50_000_000
MAX_MANIFEST_BYTES = 10_000_000
MAX_CHECKPOINT_BYTES = 10_000_000
MAX_LINE_BYTES = 1_000_000


class InputError(ValueError):
    """A user file cannot be used; the message starts with what and which file it is."""


def read_bytes(path: Path | str, cap: int, what: str = "file") -> bytes:
    """Return the bytes of a regular file of at most `cap` bytes, read in chunks (never more than cap + 1).

    Raises:
        InputError: missing, not a regular file (directory, FIFO, device), unreadable, or larger than cap.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(f"{what} {path}: no such file") from None
    except OSError as e:
        raise InputError(f"{what} {path}: cannot open: {e.strerror or e}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputError(f"{what} {path}: not a regular file")
    with os.fdopen(fd, "rb", buffering=0) as f:
        if st.st_size > cap:
            raise InputError(f"{what} {path}: {st.st_size} bytes, larger than the {cap}-byte limit")
        parts, total = [], 0
        while True:
            try:
                block = f.read(min(CHUNK, cap + 1 - total))
            except OSError as e:
                raise InputError(f"{what} {path}: cannot read: {e.strerror or e}") from None
            if not block:
                break
            parts.append(block)
            total += len(block)
            if total > cap:  # the file grew while being read
                raise InputError(f"{what} {path}: larger than the {cap}-byte limit")
    return b"".join(parts)


def decode_utf8(data: bytes, where: str) -> str:
    """Return `data` as strict UTF-8 text. Raises InputError naming the byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{where}: not valid UTF-8 (byte {e.start}: {e.reason})") from None


def read_text(path: Path | str, cap: int, what: str = "file") -> str:
    """Return the file's text (strict UTF-8, at most `cap` bytes). Raises InputError."""
    return decode_utf8(read_bytes(path, cap, what), f"{what} {path}")


class StrictJSONError(ValueError):
    """Text that strict JSON refuses; str() is the reason, `refused` marks valid JSON refused on principle
    (NaN/Infinity, a duplicate key, a number where only strings are allowed) rather than broken syntax."""

    def __init__(self, reason: str, *, refused: bool) -> None:
        super().__init__(reason)
        self.refused = refused

    def __reduce__(self):  # it may cross the pipe from a checker process
        return (_strict_json_error, (str(self), self.refused))


def _strict_json_error(reason: str, refused: bool) -> StrictJSONError:
    return StrictJSONError(reason, refused=refused)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise StrictJSONError(f"duplicate key {k[:80]!r}", refused=True)
        out[k] = v
    return out


def _no_constant(name: str) -> Any:
    raise StrictJSONError(f"non-finite number {name}", refused=True)


def _no_number(text: str) -> Any:
    raise StrictJSONError(f"JSON number {text[:20]} is not allowed; write exact rationals as strings", refused=True)


def strict_loads(text: str, *, numbers: bool = True) -> Any:
    """Return the JSON value of `text`, refusing NaN/Infinity, duplicate keys and (unless `numbers`) any number.

    The one strict JSON parser: user files, model replies, replay lines and text payloads all use it.

    >>> strict_loads('{"R": "13/10"}')
    {'R': '13/10'}
    >>> strict_loads('[NaN]')
    Traceback (most recent call last):
    ...
    mathloop.bounded.StrictJSONError: non-finite number NaN

    Raises:
        StrictJSONError: with the reason.
    """
    hooks: dict[str, Any] = {} if numbers else {"parse_float": _no_number, "parse_int": _no_number}
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates, **hooks)
    except StrictJSONError:
        raise
    except RecursionError:
        raise StrictJSONError("nested too deeply", refused=False) from None
    except json.JSONDecodeError as e:
        raise StrictJSONError(f"{e.msg} (line {e.lineno}, column {e.colno})", refused=False) from None
    except ValueError as e:  # e.g. an integer beyond Python's int-string digit limit
        raise StrictJSONError(str(e)[:200], refused=False) from None


def parse_json(text: str, where: str) -> Any:
    """Return the strict JSON value of `text`: no NaN/Infinity, no duplicate keys, no lone surrogates.

    >>> parse_json('{"a": [1, "x"]}', "x.json")
    {'a': [1, 'x']}
    >>> parse_json('{"\\\\ud800": 1}', "x.json")
    Traceback (most recent call last):
    ...
    mathloop.bounded.InputError: x.json: not valid JSON: lone surrogate \\ud800 in a key at $
    """
    try:
        value = strict_loads(text)
    except StrictJSONError as e:
        raise InputError(f"{where}: not valid JSON: {e}") from None
    why = lone_surrogate(value)
    if why:
        raise InputError(f"{where}: not valid JSON: {why}")
    return value


def lone_surrogate(value: Any) -> str | None:
    """Return where a string (key or value) holds a lone UTF-16 surrogate (not encodable as UTF-8), or None.

    >>> lone_surrogate({"a": ["ok", "\\udc00"]})
    'lone surrogate \\\\udc00 in a string at $.a[1]'
    """
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        v, path = stack.pop()
        if isinstance(v, str):
            bad = _surrogate(v)
            if bad:
                return f"lone surrogate {bad} in a string at {path}"
        elif isinstance(v, dict):
            for k, x in v.items():
                bad = _surrogate(k)
                if bad:
                    return f"lone surrogate {bad} in a key at {path}"
                stack.append((x, f"{path}.{k}"))
        elif isinstance(v, list):
            stack.extend((x, f"{path}[{i}]") for i, x in enumerate(v))
    return None


def _surrogate(s: str) -> str | None:
    try:
        s.encode("utf-8")
        return None
    except UnicodeEncodeError as e:
        return f"\\u{ord(s[e.start]):04x}"


def read_json(path: Path | str, cap: int, what: str = "file") -> Any:
    """Return the strict JSON value of a file of at most `cap` bytes. Raises InputError."""
    return parse_json(read_text(path, cap, what), f"{what} {path}")


def iter_lines(path: Path | str, max_line: int = MAX_LINE_BYTES, what: str = "file") -> Iterator[tuple[int, bytes | None]]:
    """Yield (line number, raw line without its newline) streamed; None for a line over `max_line` bytes.

    An over-long line is skipped without being held in memory. Raises InputError if the file
    cannot be opened or is not a regular file.
    """
    path = Path(path)
    try:
        f = open(path, "rb")
    except OSError as e:
        raise InputError(f"{what} {path}: cannot open: {e.strerror or e}") from None
    with f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise InputError(f"{what} {path}: not a regular file")
        n = 0
        while True:
            line = f.readline(max_line + 1)
            if not line:
                return
            n += 1
            if len(line) > max_line and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # drain the rest of the over-long line
                    line = f.readline(CHUNK)
                yield n, None
                continue
            yield n, line.rstrip(b"\r\n")
