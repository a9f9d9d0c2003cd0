"""Which packages the wheel holds: mathloop's own, plus the top-level `obligations/` and `lean/` (DESIGN's layout).

pyproject.toml holds everything else. This file exists because a `package-dir` mapping of a folder outside
`mathloop/` cannot be combined with package discovery in pyproject.toml alone: the two data packages are
listed by hand, every `mathloop.*` package is still found automatically.
"""

from setuptools import find_packages, setup

DATA_PACKAGES = {"mathloop.obligations": "obligations", "mathloop.lean_sources": "lean"}

setup(packages=[*find_packages(include=["mathloop", "mathloop.*"]), *DATA_PACKAGES], package_dir=DATA_PACKAGES)
