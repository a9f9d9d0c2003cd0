"""The installed package works on its own: `pip install .` (not editable) into a fresh venv, run from an empty dir."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from mathloop.targets import shipped_contracts

ROOT = Path(__file__).resolve().parents[2]
# every contract mathloop's own targets ship, read from the registry of this source tree
SHIPPED = {c.name for c in shipped_contracts() if c.distribution == "mathloop"}


def _run(*args: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.slow
def test_a_non_editable_install_lists_checks_runs_and_renders_lean_from_an_empty_directory(tmp_path):
    src = shutil.copytree(ROOT, tmp_path / "src", ignore=shutil.ignore_patterns(
        ".git", "*.db", "*.db-*", "__pycache__", ".lake", "build", "*.egg-info", ".pytest_cache", ".hypothesis"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _run(str(venv / "bin" / "pip"), "install", "-q", str(src), cwd=empty)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shutil.rmtree(src)  # nothing may be read from a source tree
    mathloop = str(venv / "bin" / "mathloop")
    proc = _run(mathloop, "targets", "--json", cwd=empty)
    assert proc.returncode == 0, proc.stderr
    listed = {t["name"]: t for t in json.loads(proc.stdout)}
    assert SHIPPED <= set(listed)
    for name in SHIPPED:
        t = listed[name]
        assert t["source"] == "package" and t["package"] == "mathloop" and len(t["contract_sha256"]) == 64, t
        assert "error" not in t and t["implementation"]
    proc = _run(mathloop, "run", "levinson-conrey", "--no-progress", cwd=empty)
    assert proc.returncode == 0, proc.stderr[-3000:]
    status = json.loads(_run(mathloop, "status", "levinson-conrey", "--json", cwd=empty).stdout)
    assert Decimal(status["head"]["bounds"]["kappa"]) >= Decimal("0.4088")
    assert status["contract_source"] == "package" and "site-packages" in status["contract_path"]
    # Package data beyond contracts: the stored published set is checked from the installed copy.
    (data,) = venv.glob("lib/python*/site-packages/mathloop/targets/shannon_capacity_c7/data/polak_schrijver_367.txt")
    out = json.loads(_run(mathloop, "check", "shannon-capacity-c7", "--candidate", str(data), "--json", cwd=empty).stdout)
    assert out["ok"] and out["bounds"]["capacity"] == "3.257865966783"
    # The contracts and Lean sources are the installed top-level `obligations/` and `lean/` (DESIGN's layout).
    site = next(venv.glob("lib/python*/site-packages"))
    assert Path(status["contract_path"]) == site / "mathloop" / "obligations" / "levinson-conrey.toml"
    assert (site / "mathloop" / "lean_sources" / "lakefile.toml").is_file()
    (empty / "c.json").write_text('{"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}', encoding="utf-8")
    proc = _run(mathloop, "check", "levinson-conrey", "--candidate", "c.json", "--json", cwd=empty)
    assert proc.returncode == 0 and json.loads(proc.stdout)["bounds"]["kappa"] == "0.389858306972", proc.stderr
    # A Lean rendering of the run's commits: the support modules are the installed library's bytes.
    proc = _run(mathloop, "export", "levinson-conrey", "--lean", "lean-out", cwd=empty)
    assert proc.returncode == 0, proc.stderr[-3000:]
    library = site / "mathloop" / "lean_sources" / "Mathloop"
    for name in ("Exact.lean", "LevinsonConrey.lean"):
        assert (empty / "lean-out" / "Mathloop" / name).read_bytes() == (library / name).read_bytes()
    assert list((empty / "lean-out" / "Certs").glob("C*/Proof.lean"))
    assert sorted(p.name for p in empty.iterdir()) == ["c.json", "lean-out", "mathloop.db"]
