"""Source trees of small target plug-in distributions (hostile ones included), for tests that pip-install them.

Each tree is a pyproject.toml with one `mathloop.targets` entry point and one package; `contract` (a TOML
text) ships as package data in `contracts/`. Install them with `pip install --target DIR`, never into the
shared Python.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_PYPROJECT = '''[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "0.1.0"
requires-python = ">=3.11"

[project.entry-points."mathloop.targets"]
{key} = "{package}.target:{cls}"

[tool.setuptools]
packages = ["{package}"]

[tool.setuptools.package-data]
{package} = ["contracts/*.toml"]
'''


def write_dist(root: Path, dist: str, key: str, cls: str, source: str, contract: str | None = None) -> Path:
    """Write a distribution `dist` registering `key` = <package>.target:`cls` (module text `source`); return its folder."""
    package = dist.replace("-", "_")
    folder = root / dist
    (folder / package / "contracts").mkdir(parents=True)
    (folder / "pyproject.toml").write_text(_PYPROJECT.format(dist=dist, key=key, package=package, cls=cls), encoding="utf-8")
    (folder / package / "__init__.py").write_text("", encoding="utf-8")
    (folder / package / "target.py").write_text(source, encoding="utf-8")
    if contract is not None:
        (folder / package / "contracts" / f"{key}.toml").write_text(contract, encoding="utf-8")
    return folder


def pip_install_target(folders: list[Path], target_dir: Path, cwd: Path) -> subprocess.CompletedProcess:
    """Install the distributions into `target_dir` (pip --target: the running Python is left unchanged)."""
    return subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target_dir),
                           *map(str, folders)], cwd=cwd, capture_output=True, text=True, timeout=600)
