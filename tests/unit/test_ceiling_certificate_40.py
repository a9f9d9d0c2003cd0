"""The (1/40, 40) ceiling certificate 0.679672714752, re-checked by two code paths.

The candidate (h = 1/40, A = 40, 79 masses at alpha = 1, 3/2, ..., 40) is the rationalised optimum of the
warm-started LP on graded knots (every node to 3, 1/10 apart to 10, then 1/4). Path one is the target's
checker (exact conditions, Arb cells for a >= 0 and f >= 0). Path two (tests/support/ceiling_scan.py) shares
no code with it: exact conditions in Fractions, and f from the second-difference formula scanned in floats
with its lowest minima refined in mpmath.
"""

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from tests.support.ceiling_scan import exact_conditions, parse, sampled_minimum

CERTIFICATE = Path(__file__).parents[1] / "support" / "pair_correlation_ceiling_40_40.json"
CEILING = F(679672714752, 10**12)


@pytest.fixture(scope="module")
def payload():
    return json.loads(CERTIFICATE.read_text())


def test_the_certificate_is_the_graded_lp_dual_at_one_fortieth(payload):
    c = parse(payload)
    assert (c["h"], c["A"], len(c["nodes"]), len(c["masses"])) == (F(1, 40), 40, 1601, 79)
    assert 2 - c["L"] == CEILING and exact_conditions(c) == []


@pytest.mark.slow
def test_second_path_finds_f_and_a_positive_at_their_minima(payload):
    low_f, _ = sampled_minimum(payload, per_unit=8, keep=6, dps=30)
    low_a, _ = sampled_minimum(payload, which="a", per_unit=8, keep=6, dps=30)
    assert low_f > 1e-7 and low_a > 1e-5


@pytest.mark.slow
def test_second_path_refutes_the_certificate_with_L_raised(payload):
    c = parse(payload)
    bump = F(1, 10**4)
    raised = dict(payload, L=str(c["L"] + bump))
    raised["nodes"] = [str(F(v) - bump) if j <= 40 else v for j, v in enumerate(payload["nodes"])]
    assert exact_conditions(parse(raised)) == [] and sampled_minimum(raised, per_unit=8, keep=6, dps=30)[0] < 0


@pytest.mark.slow
def test_the_checker_certifies_it_and_its_cells_lie_below_the_second_paths_minimum(payload):
    from mathloop.targets import build_target, load_contract

    target = build_target(load_contract("pair-correlation-rh-ceiling"))
    ev = target.check(None, target.parse(payload))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["ceiling"] == CEILING
    low, _ = sampled_minimum(payload)
    assert 0 < F(ev.artifacts["positivity"]["min_lower_bound"]) <= F(low)
