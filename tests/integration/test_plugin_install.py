"""Targets are plug-ins: the example plug-in installs with pip into a venv, appears, works, and is gone after uninstall.

The temporary venv sees this test environment's packages (mathloop and its dependencies) through a
`.pth` file, so only the plug-in is installed into it, by its own pip, from its own pyproject.toml.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin-target"


def _run(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture
def venv(tmp_path) -> Path:
    """Return the python of a fresh venv layered over this environment's site-packages."""
    v = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(v)], check=True, timeout=120)
    py = v / "bin" / "python"
    purelib = _run(str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).stdout.strip()
    # this interpreter's own site-packages first (a set had no order: with a second editable mathloop in the
    # base Python's site-packages, the venv could see that one instead of the one under test)
    parents = [p for p in dict.fromkeys([sysconfig.get_paths()["purelib"], *site.getsitepackages()]) if Path(p).is_dir()]
    Path(purelib, "_parent_env.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in parents))
    return py


def _targets(py: Path, cwd: Path) -> dict[str, dict]:
    proc = _run(str(py), "-m", "mathloop", "targets", "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return {t["name"]: t for t in json.loads(proc.stdout)}


@pytest.mark.slow
def test_the_example_plugin_installs_appears_works_and_uninstalls(venv, tmp_path):
    work = tmp_path / "empty"
    work.mkdir()
    plugin = shutil.copytree(PLUGIN, tmp_path / "plugin-target")  # setuptools builds in the tree it is given
    assert "sqrt2-below" not in _targets(venv, work)
    proc = _run(str(venv), "-m", "pip", "install", "-q", "--no-deps", str(plugin), cwd=work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    listed = _targets(venv, work)
    assert listed["sqrt2-below"]["package"] == "mathloop-plugin-sqrt2"
    assert listed["sqrt2-below"]["implementation"] == "sqrt2-below" and listed["sqrt2-below"]["source"] == "package"
    assert {"levinson-conrey", "pair-correlation-rh"} <= set(listed)
    tests = _run(str(venv), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(plugin / "tests"),
                 "-c", os.devnull, str(plugin / "tests"), cwd=work)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    proc = _run(str(venv), "-m", "pip", "uninstall", "-y", "-q", "mathloop-plugin-sqrt2", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert "sqrt2-below" not in _targets(venv, work)
