"""Start `mathloop serve` as a real subprocess on a free port; stop it (its whole process group) afterwards."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

from tests.integration.cli import ROOT


@contextmanager
def serving(db: str, *extra: str, timeout: float = 60):
    """Yield (base URL, first stdout line) of a running `mathloop serve --db DB --port 0`."""
    env = {**os.environ, "COLUMNS": "300", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "mathloop", "serve", "--db", db, "--port", "0", *extra], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        line = ""
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if "serving" in line or proc.poll() is not None:
                break
        m = re.search(r"http://(\S+?):(\d+)/", line)
        if not m:
            raise RuntimeError(f"serve did not start: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}")
        yield f"http://{m.group(1)}:{m.group(2)}", line
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)
