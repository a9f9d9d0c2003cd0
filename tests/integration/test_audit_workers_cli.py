"""`mathloop audit --workers 2` on a real compact `critical-line-zeros` store prints what the serial audit prints."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def ml(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathloop", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


@pytest.mark.slow  # a real `mathloop run --workers 2` of four ranges, then four audits in checker children: ~40 s
def test_audit_with_two_workers_reports_what_the_serial_audit_reports_clean_and_tampered(tmp_path):
    import sqlite3

    db = str(tmp_path / "z.db")
    r = ml("run", "critical-line-zeros", "--db", db, "--budget", "4", "--workers", "2", "--no-lean",
           "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    serial, pooled = (ml("audit", "critical-line-zeros", "--db", db, *w) for w in ((), ("--workers", "2")))
    assert serial.returncode == pooled.returncode == 0, serial.stdout + pooled.stdout
    assert pooled.stdout == serial.stdout and "re-checked evidence and gate" in " ".join(serial.stdout.split())  # rich wraps
    with sqlite3.connect(db) as conn:  # the second range's commit edited by hand
        conn.execute("UPDATE commits SET created_at = '2020-01-01' WHERE seq = 2")
    serial, pooled = (ml("audit", "critical-line-zeros", "--db", db, *w) for w in ((), ("--workers", "2")))
    assert serial.returncode == pooled.returncode == 1
    assert pooled.stdout == serial.stdout and "hash mismatch" in serial.stdout
