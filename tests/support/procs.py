"""Find every process a test started, orphans included: each carries an environment tag it inherited."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

TAG_VAR = "MATHLOOP_LEAK_TAG"


def new_tag() -> str:
    """Return a fresh tag to put in a child's environment as MATHLOOP_LEAK_TAG."""
    return uuid.uuid4().hex


def tagged(tag: str) -> list[tuple[int, str]]:
    """Return (pid, command line) of every live (non-zombie) process whose environment carries the tag."""
    needle = f"{TAG_VAR}={tag}".encode()
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            env = (p / "environ").read_bytes()
            if needle not in env.split(b"\0"):
                continue
            if (p / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:160]
        except OSError:
            continue
        out.append((int(p.name), cmd))
    return out


def wait_gone(tag: str, timeout_s: float = 10.0) -> list[tuple[int, str]]:
    """Return the tagged processes still alive after waiting up to timeout_s for them to exit."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = tagged(tag)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def kill_tagged(tag: str) -> None:
    """SIGKILL every tagged process (cleanup after a failed leak test, by PID)."""
    for pid, _ in tagged(tag):
        try:
            os.kill(pid, 9)
        except OSError:
            pass
