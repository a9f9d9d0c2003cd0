"""Ctrl-C while Lean checks a commit records nothing about it, and the next `run` checks it (marker `lean`).

Real processes and a real signal: `mathloop run` resumes the lineage's Lean-pending commits, and SIGINT is
sent at a random moment after a Lean process of it has started (the kernel's probe, the prelude or support
build, or a commit's check). A kill the session caused itself is not a verdict: no attestation may say
`unavailable` or `killed`. The next uninterrupted `run` checks every commit still pending.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.integration.cli import ROOT

pytestmark = [pytest.mark.lean, pytest.mark.slow]

ENV = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
TRIES = int(os.environ.get("MATHLOOP_INTERRUPT_TRIES", "10"))


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathloop", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=ENV)


def _is_lean(p: psutil.Process) -> bool:
    try:
        argv = p.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False
    return bool(argv) and (Path(argv[0]).name == "lean" or "lean_main" in " ".join(argv))


def _as_from_a_terminal() -> None:
    """Give the child SIGINT's default action, as a shell's foreground job has: a tier started in the background
    inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_lean(proc: subprocess.Popen, limit_s: float = 120) -> bool:
    """Return True once a Lean process of `proc` runs (False if `proc` ended or `limit_s` passed first)."""
    me = psutil.Process(proc.pid)
    end = time.monotonic() + limit_s
    while time.monotonic() < end and proc.poll() is None:
        try:
            if any(_is_lean(c) for c in me.children(recursive=True)):
                return True
        except psutil.NoSuchProcess:
            return False
        time.sleep(0.005)
    return False


def _attestations(db: Path) -> list[tuple[str, str, dict]]:
    with sqlite3.connect(db) as c:
        try:
            rows = c.execute("SELECT commit_hash, status, body FROM lean_attestations ORDER BY seq").fetchall()
        except sqlite3.OperationalError:  # no table yet: nothing was ever attested
            return []
    return [(h, s, json.loads(b)) for h, s, b in rows]


def _statuses(db: Path) -> dict[str, str]:
    r = _run("log", "levinson-conrey", "--db", str(db), "--json")
    assert r.returncode == 0, r.stderr
    return {c["commit"]: c["lean"]["status"] for c in json.loads(r.stdout)}


def test_an_interrupted_lean_check_records_nothing_and_the_next_run_checks_it(tmp_path):
    from mathloop.lean.toolchain import discover

    tc = discover()
    if not tc.available:
        pytest.skip(f"no Lean here: {tc.reason}")
    rng = random.Random(int(os.environ.get("MATHLOOP_INTERRUPT_SEED", "34")))
    interrupted = resumed = 0
    for i in range(TRIES):
        db = tmp_path / f"s{i}.db"
        proc = subprocess.Popen([sys.executable, "-m", "mathloop", "run", "levinson-conrey", "--db", str(db),
                                 "--budget", "4", "--seed", str(i), "--no-progress"], cwd=ROOT, env=ENV,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal)
        if _wait_for_lean(proc):
            time.sleep(rng.uniform(0.0, 0.4))  # into the kernel's probe, the support build or a commit's check
            proc.send_signal(signal.SIGINT)
            interrupted += 1
        out, err = proc.communicate(timeout=120)
        assert proc.returncode in (0, 130), (proc.returncode, out, err)
        assert "Traceback" not in err, err
        bad = [(h[:12], s, b.get("reasons")) for h, s, b in _attestations(db)
               if s == "unavailable" or any("killed" in r or "signal" in r for r in b.get("reasons") or ())]
        assert bad == [], f"try {i}: an interrupted check was recorded as a verdict: {bad}"
        pending = [h for h, s in _statuses(db).items() if s == "pending"]
        final = _run("run", "levinson-conrey", "--db", str(db), "--budget", "1", "--no-progress")
        assert final.returncode == 0, final.stderr
        if pending:
            resumed += 1
            assert f"resuming {len(pending)} commit(s)" in final.stdout, final.stdout
        left = {h[:12]: s for h, s in _statuses(db).items() if s != "checked"}
        assert left == {}, f"try {i}: after an uninterrupted run, commits are not checked: {left}\n{final.stdout}"
    print(f"{TRIES} runs: {interrupted} interrupted while Lean ran, {resumed} left commits pending that the next run "
          "checked; no attestation unavailable/killed")
    assert interrupted >= TRIES // 2, f"only {interrupted} of {TRIES} runs reached Lean before they ended"
    assert resumed >= 1, "no interrupted run left a commit pending: the resume was never exercised"
