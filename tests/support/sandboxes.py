"""Helpers for sandbox tests: the sandbox processes alive on this host, a loopback server that counts connections."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from mathloop.sandbox import probe
from mathloop.sandbox.view import PROGRAM

_MARK = PROGRAM.encode()


def sandbox_pids() -> list[int]:
    """Return the pids of every process running a sandboxed program (bubblewrap, the launcher, the program, its forks)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if _MARK in f.read():
                    out.append(int(name))
        except OSError:
            continue
    return out


def wait_no_sandbox(timeout_s: float = 5.0) -> list[int]:
    """Return the sandbox processes still alive after waiting up to timeout_s for them to go."""
    end = time.monotonic() + timeout_s
    while True:
        left = sandbox_pids()
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.05)


def needs_sandbox() -> None:
    """Skip with the probe's one-line reason where no sandbox can be made (CI installs bubblewrap: never skipped there)."""
    why = probe()
    if why is not None and os.environ.get("CI") != "true":
        pytest.skip(f"no sandbox here: {why}")


class LoopbackServer:
    """A TCP server on 127.0.0.1 that records every connection it accepts (to prove that none came)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[tuple[str, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, addr = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted.append(addr)
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()
