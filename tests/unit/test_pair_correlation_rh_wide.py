"""The wide primal lineage `pair-correlation-rh-wide` (issue 36): the same checker past the first lineage's 600 nodes."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from mathloop.domain import Verdict
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.pair_correlation_rh.proposer import allowed_configs


@pytest.fixture(scope="module")
def wide():
    return build_target(load_contract("pair-correlation-rh-wide"))


@pytest.fixture(scope="module")
def first():
    return build_target(load_contract("pair-correlation-rh"))


def _fejer(n: int, nodes: int, lower_c0: F = F(0)) -> dict:
    """Return r-hat = (1 - |alpha|)_+ on h = 1/n with `nodes` nodes (zeros beyond 1): P is Fejér's kernel, B = 2/3."""
    c = [F(n - j, n) if j < n else F(0) for j in range(nodes)]
    c[0] -= lower_c0
    return {"h": f"1/{n}", "A": str(F(nodes, n)), "nodes": [str(x) for x in c]}


def test_wide_lineage_proves_800_nodes_that_the_first_lineage_refuses_to_parse(wide, first):
    payload = _fejer(100, 800)  # A = 8, 800 nodes; P = Fejér's kernel >= 0 with 49 double zeros in (0, pi)
    ev = wide.check(None, wide.parse(payload))
    assert ev.result("r-nonnegative").verdict is Verdict.PROVED
    assert ev.bounds == {"proportion": F(2, 3)}
    with pytest.raises(Malformed) as e:
        first.parse(payload)
    assert str(e.value).startswith("nodes:") and "600" in str(e.value)


def test_wide_lineage_refuses_800_nodes_dipping_below_zero(wide):
    ev = wide.check(None, wide.parse(_fejer(100, 800, lower_c0=F(1, 10**9))))  # P = -1e-9 at Fejér's zeros
    assert ev.result("r-nonnegative").verdict is Verdict.REFUTED and not ev.bounds


def test_wide_lineage_refuses_what_its_own_limits_forbid(wide):
    with pytest.raises(Malformed) as e:
        wide.parse(_fejer(100, 1700))  # 1700 nodes > 1600
    assert str(e.value).startswith("nodes:")
    with pytest.raises(Malformed) as e:
        wide.parse(_fejer(10, 170))  # A = 17 > 16
    assert str(e.value).startswith("A:")


def test_the_proposer_goes_past_600_nodes_only_in_the_wide_lineage(wide, first):
    old = allowed_configs(first)
    new = allowed_configs(wide)
    assert max(A / h for h, A in old) <= 600 and old == new[:len(old)]
    assert max(A / h for h, A in new) > 600


def test_the_wide_lineage_is_a_partner_of_the_ceiling_in_the_bracket():
    from mathloop.check.bracket import _partner_contracts

    assert {c.name for c in _partner_contracts("pair-correlation-rh")} == {"pair-correlation-rh", "pair-correlation-rh-wide"}


def test_the_lp_stops_once_its_violation_is_what_the_lift_repairs():
    import numpy as np

    from mathloop.targets.pair_correlation_rh import lp

    h, n = F(1, 10), 30  # (1/10, 3)
    res = lp.solve(h, n, margin=1e-9, stop_violation=1e-8)
    c = res.nodes
    low = float((lp.p_matrix(lp.local_minima(c, 16 * n + 1), n) @ c).min())
    assert low >= -1e-8 and res.rounds < 12
    assert 0.675 < res.bound < 0.6795  # above the seed's 0.675000, below the ceiling
    assert np.all(c[int(1 / h):] <= 1e-12)  # r-hat <= 0 beyond 1 holds in the LP itself
