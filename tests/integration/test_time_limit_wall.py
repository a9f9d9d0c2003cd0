"""`run --time-limit T` is the wall time of the whole command, Lean included (markers `lean`, `slow`).

A real `mathloop run` process, timed from outside as `time` would: it ends within MARGIN_S of T. The Lean
checks the limit cuts stay pending (no attestation says `unavailable` or `killed`), the summary says how
many and how to check them, and the next `run` resumes them, within its own limit too.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.integration.cli import ROOT

pytestmark = [pytest.mark.lean, pytest.mark.slow]

ENV = {**os.environ, "COLUMNS": "300", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
MARGIN_S = 4.0  # docs/guide.md states it (start-up counts inside the limit; teardown after it)


def _timed(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "mathloop", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=600, env=ENV)
    return r, time.monotonic() - start


def test_the_time_limit_bounds_the_whole_run_and_leaves_cut_checks_pending(tmp_path):
    from mathloop.lean.toolchain import discover

    if not discover().available:
        pytest.skip("no Lean here")
    db = tmp_path / "s.db"
    limit = 15
    r, wall = _timed("run", "sidon-autocorrelation", "--db", str(db), "--time-limit", str(limit), "--no-progress")
    print(f"run --time-limit {limit}: {wall:.2f} s wall")
    assert r.returncode == 0, r.stderr
    assert wall <= limit + MARGIN_S, f"--time-limit {limit} took {wall:.1f} s\n{r.stdout}"
    log = subprocess.run([sys.executable, "-m", "mathloop", "log", "sidon-autocorrelation", "--db", str(db), "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, env=ENV)
    statuses = [c["lean"]["status"] for c in json.loads(log.stdout)]
    pending = statuses.count("pending")
    assert set(statuses) <= {"checked", "pending"}, statuses
    with sqlite3.connect(db) as c:
        bodies = [json.loads(b) for (b,) in c.execute("SELECT body FROM lean_attestations")]
    assert not [b for b in bodies if any("killed" in x or "signal" in x for x in b.get("reasons") or ())]
    flat = " ".join(r.stdout.split())
    if pending:
        assert (f"the time limit ended the checks; {pending} commit(s) stay Lean-pending: `mathloop lean-check "
                f"sidon-autocorrelation` or the next `mathloop run` checks them.") in flat, r.stdout
        assert re.search(rf"Lean: \d+ checked, {pending} pending", flat), r.stdout
    again, wall2 = _timed("run", "sidon-autocorrelation", "--db", str(db), "--time-limit", "8", "--no-progress")
    print(f"run --time-limit 8 (resuming {pending}): {wall2:.2f} s wall")
    assert again.returncode == 0, again.stderr
    assert wall2 <= 8 + MARGIN_S, f"--time-limit 8 took {wall2:.1f} s\n{again.stdout}"
    if pending:
        assert f"Lean: resuming {pending} commit(s) left pending by earlier sessions" in " ".join(again.stdout.split())
