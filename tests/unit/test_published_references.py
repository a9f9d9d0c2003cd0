"""Plots and views draw the published records of the open-constants targets beside their certified bounds."""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathloop.targets import load_contract
from mathloop.view.history import references


@pytest.mark.parametrize("name, bound, who, value", [
    ("sidon-autocorrelation", "C1a", "TogetherAI", Fraction("1.50286286")),
    ("erdos-minimum-overlap", "C1b", "SimpleTES", Fraction("0.380868")),
    ("shannon-capacity-c7", "capacity", "Polak", None),
    ("feng-przz", "kappa", "PRZZ", Fraction("0.417293962")),
])
def test_the_published_records_are_reference_lines_beside_the_bound(name, bound, who, value):
    contract = load_contract(name)
    refs = [r for r in references(contract, contract.bound_spec(bound)) if r.kind == "published"]
    mine = [r for r in refs if who in r.label]
    assert mine, [r.label for r in refs]
    if value is not None:
        assert mine[0].value == value


def test_a_target_without_published_records_draws_none():
    contract = load_contract("pair-correlation")
    assert all(r.kind != "published" for b in contract.bounds for r in references(contract, b))
