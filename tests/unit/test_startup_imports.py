"""Listing the targets (what `status`, `targets` and the bracket do on every call) loads every target class and
contract without numpy, scipy or networkx: those are imported when a candidate is checked or proposed."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from mathloop.targets import load_contract, shipped_contracts, target_class
for c in shipped_contracts():
    target_class(load_contract(c.name).target)
print(",".join(m for m in ("numpy", "scipy", "networkx") if m in sys.modules))
"""


def test_loading_every_target_class_and_contract_imports_no_numpy_scipy_or_networkx():
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"imported at start-up: {proc.stdout.strip()}"
