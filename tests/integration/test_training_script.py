"""A training script scores completions as written: no `__main__` guard, slow imports at top level, or read from
standard input. Checker children are fresh interpreters that never import the user's main module, and their
start-up is not counted in a check's timeout (the levinson contract allows 10 s per check)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.integration.cli import ROOT

pytestmark = pytest.mark.slow

SCRIPT = """
import time
time.sleep(15)  # a trainer's imports (trl, torch) at top level, and no `if __name__ == "__main__":` guard
from mathloop.env import Environment

env = Environment("levinson-conrey", workers=2)
print("LABEL", env.score('{"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}').label.value, flush=True)
env.close()
"""


@pytest.mark.parametrize("how", ["script", "stdin"])
def test_an_unguarded_slow_importing_script_scores_as_a_script_and_from_stdin(how, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT, encoding="utf-8")
    t0 = time.monotonic()
    if how == "script":
        proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    else:
        proc = subprocess.run([sys.executable, "-"], input=SCRIPT, cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "LABEL progress" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert took < 15 + 60  # the script's own 15 s once, never again per checker child
