"""The independent re-check of step-function records (tests/support/step_recheck.py, no code shared with the
checkers) agrees with the checkers exactly on the shipped constructions and on random heights, and refuses what
they refuse."""

from __future__ import annotations

import json
import random
from fractions import Fraction as F
from importlib import resources

import pytest

from mathloop.targets import build_target, load_contract
from tests.support import step_recheck
from tests.support.contracts import shipped

CASES = [("erdos-minimum-overlap", "c1b", "mathloop.targets.erdos_minimum_overlap", name) for name in
         ("haugland-51-0.380927.txt", "alphaevolve-95-0.380924.txt", "ttt-discover-600-0.380876.txt",
          "togetherai-600-0.380871.txt", "simpletes-2400-0.380868.txt")] + \
        [("sidon-autocorrelation", "c1a", "mathloop.targets.sidon_autocorrelation", name) for name in
         ("matolcsi-vinuesa-208-1.5098.txt", "alphaevolve-1319-1.503164.txt", "simpletes-972-1.503871.txt")]


@pytest.mark.parametrize("target_name, which, pkg, name", CASES)
def test_independent_exact_value_equals_the_checkers_on_published_constructions(tmp_path, target_name, which, pkg,
                                                                                 name):
    target = build_target(load_contract(shipped(target_name)))
    with resources.as_file(resources.files(pkg) / "data" / name) as path:
        payload = target.read_candidate_file(path)
    (tmp_path / "c.json").write_text(json.dumps(payload), encoding="utf-8")
    exact, fl = step_recheck.recheck(which, tmp_path / "c.json")
    assert exact == target.check(None, target.parse(payload)).bounds[target.bound_name]
    assert abs(float(exact) - fl) <= 1e-12


def test_independent_path_agrees_on_random_heights_and_refuses_what_the_checker_refuses():
    erdos = build_target(load_contract(shipped("erdos-minimum-overlap")))
    sidon = build_target(load_contract(shipped("sidon-autocorrelation")))
    rng = random.Random(11)
    for _ in range(60):
        n = rng.randint(1, 12)
        hs = [F(rng.randint(0, 9), rng.randint(1, 5)) for _ in range(n)]
        payload = {"heights": [f"{h.numerator}/{h.denominator}" for h in hs]}
        ev = erdos.check(None, erdos.parse(payload))
        if "C1b" in ev.bounds:
            assert step_recheck.c1b(hs)[0] == ev.bounds["C1b"]
        else:
            with pytest.raises(ValueError, match="not admissible"):
                step_recheck.c1b(hs)
        ev = sidon.check(None, sidon.parse(payload))
        if "C1a" in ev.bounds:
            assert step_recheck.c1a(hs)[0] == ev.bounds["C1a"]
        else:
            with pytest.raises(ValueError, match="not admissible"):
                step_recheck.c1a(hs)
