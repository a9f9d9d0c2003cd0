"""The ceiling target through the real CLI: a short session, status with the bracket, check of a refused dual."""

import json
from fractions import Fraction

import pytest

from tests.integration.cli import mathloop, mathloop_json


@pytest.mark.slow  # heavy: runs in .ci/run's second tier; the default tier stays < 3 min
def test_session_lowers_the_ceiling_and_both_statuses_show_the_bracket(tmp_path):
    db = str(tmp_path / "store.db")
    proc = mathloop("run", "pair-correlation-rh-ceiling", "--db", db, "--budget", "2")
    assert proc.returncode == 0, proc.stderr
    assert "ASSUMED: the Riemann Hypothesis" in proc.stdout
    st = mathloop_json("status", "pair-correlation-rh-ceiling", "--db", db)
    assert st["head"]["seq"] == 2 and float(st["head"]["bounds"]["ceiling"]) < 0.7208
    assert st["bracket"]["primal"]["value"] is None and st["bracket"]["ceiling"]["commit"] == st["head"]["commit"]
    proc = mathloop("run", "pair-correlation-rh", "--db", db, "--budget", "1")
    assert proc.returncode == 0, proc.stderr
    primal = mathloop_json("status", "pair-correlation-rh", "--db", db)
    br = primal["bracket"]
    assert br["consistent"] and br["primal"]["commit"] == primal["head"]["commit"]
    assert br["ceiling"]["value"] == st["head"]["bounds_exact"]["ceiling"] and Fraction(br["width"]) > 0
    text = mathloop("status", "pair-correlation-rh", "--db", db).stdout
    assert "bracket of the class's best value (ASSUMING RH): [0.67" in text


@pytest.mark.slow  # > 1.5 s: the default tier stays under 3 minutes
def test_check_refuses_a_dual_below_the_primal_with_a_witness(tmp_path):
    from fractions import Fraction

    from mathloop.targets import load_contract

    seed = dict(load_contract("pair-correlation-rh-ceiling").seed)
    L = Fraction(133, 100)  # ceiling 0.67 < 0.67928 (certified primal): no valid dual can exist
    nodes = [str(Fraction(j, 5) - L) if j <= 5 else str(max(Fraction(v), -L)) for j, v in enumerate(seed["nodes"])]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**seed, "L": "133/100", "nodes": nodes}), encoding="utf-8")
    proc = mathloop("check", "pair-correlation-rh-ceiling", "--candidate", str(path), "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["ok"] is False and out["bounds"] == {}
    assert out["reasons"][0].startswith("dual-nonnegative: 1 + k-check < 0 at t = ")
    assert out["evidence"]["artifacts"]["positivity"]["witness_x"]
