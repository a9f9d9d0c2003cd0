"""Length-prefixed frames over pipes with deadlines: how the session and its checker children talk.

The session writes pickled jobs (it trusts itself) and reads canonical JSON replies (it trusts no child);
every read is bounded in size and time, every write in time.
"""

from __future__ import annotations

import os
import select
import struct
import time

HEADER = struct.Struct(">Q")


class FrameTimeout(TimeoutError):
    """The other side did not answer in time."""


class FrameClosed(EOFError):
    """The other side closed the pipe (it died)."""


class FrameTooLarge(ValueError):
    """The other side announced a frame beyond the cap."""


def _wait(fd: int, until: float | None, write: bool) -> None:
    while True:
        left = None if until is None else until - time.monotonic()
        if left is not None and left <= 0:
            raise FrameTimeout
        r, w, _ = select.select([] if write else [fd], [fd] if write else [], [], left)
        if r or w:
            return


def write_frame(fd: int, body: bytes, until: float | None = None) -> None:
    """Write one frame to `fd` (non-blocking writes, so that a child that stopped reading cannot hang us)."""
    data = memoryview(HEADER.pack(len(body)) + body)
    while data:
        _wait(fd, until, write=True)
        try:
            n = os.write(fd, data)
        except BlockingIOError:
            continue
        except (BrokenPipeError, OSError) as e:
            raise FrameClosed(str(e)) from None
        data = data[n:]


def _read_exact(fd: int, n: int, until: float | None) -> bytes:
    parts, got = [], 0
    while got < n:
        _wait(fd, until, write=False)
        try:
            block = os.read(fd, min(n - got, 1 << 20))
        except BlockingIOError:
            continue
        except OSError as e:
            raise FrameClosed(str(e)) from None
        if not block:
            raise FrameClosed("pipe closed")
        parts.append(block)
        got += len(block)
    return b"".join(parts)


def read_frame(fd: int, cap: int, until: float | None = None) -> bytes:
    """Return the next frame's body from `fd`. Raises FrameTimeout, FrameClosed or FrameTooLarge."""
    (n,) = HEADER.unpack(_read_exact(fd, HEADER.size, until))
    if n > cap:
        raise FrameTooLarge(f"{n} bytes announced, beyond the {cap}-byte limit")
    return _read_exact(fd, n, until)
