"""Run the real `mathloop` CLI as a subprocess (what a user runs), with a private store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def mathloop(*args: str, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `python -m mathloop ARGS` from the checkout root; return the completed process."""
    full_env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "mathloop", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=full_env)


def mathloop_json(*args: str, timeout: float = 300):
    proc = mathloop(*args, "--json", timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def invoke(*args: str):
    """Run the CLI in-process (fast; same code path as the console script); return click's Result."""
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    return CliRunner().invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": "200", "NO_COLOR": "1"})
