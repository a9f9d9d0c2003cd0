"""Acceptance: the README's flagship command reaches Conrey's 0.4088 from the seed in under 5 minutes."""

import time
from decimal import Decimal

import pytest

from tests.integration.cli import mathloop, mathloop_json


@pytest.mark.slow
def test_default_levinson_conrey_run_certifies_conreys_bound_quickly(tmp_path):
    db = str(tmp_path / "flagship.db")
    t0 = time.monotonic()
    proc = mathloop("run", "levinson-conrey", "--db", db, "--no-progress", timeout=400)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 300
    kappa = Decimal(mathloop_json("status", "levinson-conrey", "--db", db)["head"]["bounds"]["kappa"])
    assert Decimal("0.4088") <= kappa <= Decimal("0.408960")
    log = mathloop_json("log", "levinson-conrey", "--db", db)
    assert all(Decimal(b["bounds"]["kappa"]) > Decimal(a["bounds"]["kappa"]) for a, b in zip(log, log[1:]))
    print(f"flagship: kappa >= {kappa} in {elapsed:.1f} s with {len(log)} commits")
