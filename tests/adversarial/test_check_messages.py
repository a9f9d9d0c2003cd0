"""`mathloop check` on a refused candidate certifies nothing, in the same runner as `run`."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.toy_target import TOY_CONTRACT

ROOT = Path(__file__).resolve().parents[2]


def toy_check(tmp_path: Path, payload: dict, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "toy.toml").write_text(TOY_CONTRACT, encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps(payload), encoding="utf-8")
    return subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "toy_cli.py"), "check", "toy.toml",
                           "--candidate", "c.json", *extra], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})


def test_refused_candidate_prints_nothing_as_certified(tmp_path):
    r = toy_check(tmp_path, {"x": "2"})
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert "certified: nothing (refused)" in lines and lines[-1] == "refused"
    assert not any(line.startswith("certified: value") for line in lines)


def test_checker_crash_in_check_is_exit_1_with_the_reason(tmp_path):
    r = toy_check(tmp_path, {"x": "1/2", "crash": True}, "--json")
    assert r.returncode == 1 and json.loads(r.stdout)["reasons"] == ["checker could not answer: asked to crash"]


def test_accepted_candidate_is_certified_through_the_worker(tmp_path):
    r = toy_check(tmp_path, {"x": "1/2"}, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["bounds"] == {"value": "0.500000"}
