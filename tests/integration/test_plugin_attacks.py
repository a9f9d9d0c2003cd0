"""Hostile plug-ins installed with pip cannot impersonate a shipped target, hang or crash mathloop.

Four distributions are pip-installed into a `--target` folder seen through PYTHONPATH (the running
Python is never modified): one claims `levinson-conrey` (and would leave a file if its code ever ran),
one raises at import, one sleeps at import, one ships a contract lacking the RH hypothesis its own
target requires. Each is refused alone, naming its distribution; the other targets still work.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import shipped_contracts
from tests.support.contracts import shipped
from tests.support.plugin_dists import pip_install_target, write_dist

IMPOSTOR = '''import os, pathlib
pathlib.Path(os.environ["EVIL_MARKER"]).write_text("the impostor's code ran")
from fractions import Fraction
from mathloop.targets.levinson_conrey.target import LevinsonConrey


class Impostor(LevinsonConrey):
    def check(self, parent_state, candidate):
        ev = super().check(parent_state, candidate)
        return ev.__class__(**{**ev.__dict__, "bounds": {"kappa": Fraction(408, 1000)}})
'''
RAISING = 'raise RuntimeError("evil-boom exploded at import")\n'
SLEEPING = 'import time\ntime.sleep(600)\n'
LACKING = '''from mathloop.targets.pair_correlation_rh.target import PairCorrelationRH


class LackingRH(PairCorrelationRH):
    name = "lacking-rh"
'''
TIMEOUT_S = "3"


def _without_rh(text: str) -> str:
    """Return the pair-correlation-rh contract for implementation lacking-rh, without the RH hypothesis."""
    text = text.replace('implementation = "pair-correlation-rh"', 'implementation = "lacking-rh"', 1)
    text = re.sub(r'\[\[obligations\]\]\nid = "riemann-hypothesis"\n.*?(?=\[\[obligations\]\])', "", text, count=1, flags=re.S)
    return re.sub(r'"riemann-hypothesis",\s*|,\s*"riemann-hypothesis"|"riemann-hypothesis"', "", text)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, str]:
    """Return the environment under which the four hostile distributions are installed."""
    root = tmp_path_factory.mktemp("plugins")
    folders = [write_dist(root, "evil-kappa", "levinson-conrey", "Impostor", IMPOSTOR),
               write_dist(root, "evil-boom", "boom", "Boom", RAISING),
               write_dist(root, "evil-sleep", "sleeper", "Sleeper", SLEEPING),
               write_dist(root, "evil-lacking", "lacking-rh", "LackingRH", LACKING,
                          _without_rh(shipped("pair-correlation-rh").read_text(encoding="utf-8")))]
    site = root / "site"
    proc = pip_install_target(folders, site, cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PYTHONPATH": str(site), "EVIL_MARKER": str(root / "impostor-ran"), "COLUMNS": "200",
            "NO_COLOR": "1", "MATHLOOP_PLUGIN_IMPORT_TIMEOUT_S": TIMEOUT_S}


def _mathloop(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathloop", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_targets_lists_every_hostile_plugin_as_refused_and_the_shipped_ones_as_valid(installed, tmp_path):
    t0 = time.monotonic()
    proc = _mathloop(installed, tmp_path, "targets", "--json")
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - t0 < 90  # the sleeping plug-in costs its time limit, never a hang
    rows = {(r["name"], r["package"]): r for r in json.loads(proc.stdout)}
    clash = rows[("levinson-conrey", "mathloop")]["error"]
    assert "registered more than once" in clash and "evil-kappa" in clash and "distribution mathloop" in clash
    lacking = rows[("lacking-rh", "evil-lacking")]["error"]
    assert "obligations.riemann-hypothesis" in lacking and "shipped by distribution evil-lacking" in lacking
    # every other contract of mathloop's own targets (from the registry) still lists: the clash refuses only the
    # implementation evil-kappa registers again
    for c in shipped_contracts():
        if c.distribution == "mathloop" and c.implementation != "levinson-conrey":
            assert "error" not in rows[(c.name, "mathloop")], rows[(c.name, "mathloop")]
    assert not Path(installed["EVIL_MARKER"]).exists()


@pytest.mark.slow
def test_doctor_names_the_clash_the_raising_and_the_sleeping_plugin(installed, tmp_path):
    proc = _mathloop(installed, tmp_path, "doctor", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["targets"]
    by = {(r["name"], r["distribution"]): r for r in rows}
    assert by[("levinson-conrey", "evil-kappa")]["status"] == by[("levinson-conrey", "mathloop")]["status"] == "conflict"
    assert by[("boom", "evil-boom")]["status"] == "refused"
    assert "RuntimeError: evil-boom exploded at import" in by[("boom", "evil-boom")]["reason"]
    assert f"did not finish within {TIMEOUT_S} s" in by[("sleeper", "evil-sleep")]["reason"]
    assert by[("pair-correlation-rh", "mathloop")]["status"] == "ok"
    text = _mathloop(installed, tmp_path, "doctor")
    assert text.returncode == 0 and "evil-kappa" in text.stdout and "evil-boom" in text.stdout
    assert not Path(installed["EVIL_MARKER"]).exists()


@pytest.mark.slow
def test_run_refuses_the_taken_over_name_and_other_targets_still_work(installed, tmp_path):
    db = tmp_path / "s.db"
    proc = _mathloop(installed, tmp_path, "run", "levinson-conrey", "--db", str(db), "--budget", "1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "evil-kappa" in proc.stderr and "registered more than once" in proc.stderr
    assert not db.exists() and not Path(installed["EVIL_MARKER"]).exists()
    proc = _mathloop(installed, tmp_path, "run", "lacking-rh", "--db", str(db), "--budget", "1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "evil-lacking" in proc.stderr and "riemann-hypothesis" in proc.stderr and not db.exists()
    Repository(make_engine(str(tmp_path / "ok.db")))  # an empty store
    status = _mathloop(installed, tmp_path, "status", "pair-correlation-rh", "--db", str(tmp_path / "ok.db"), "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["contract_source"] == "package"
