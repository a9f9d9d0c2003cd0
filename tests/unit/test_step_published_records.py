"""The published records of C1a and C1b (each package's data/records.toml, read by targets/records.py): every stated
certified value reproduces the figure its authors printed, the records name the contracts' bounds, and the 2026
records are ordered as published. (tests/unit/test_records.py re-certifies every stored construction exactly.)"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from mathloop.targets import load_contract, target_class
from mathloop.targets.records import construction_file
from tests.support.contracts import shipped

NAMES = ("sidon-autocorrelation", "erdos-minimum-overlap")


def round_up(q: F, places: int) -> F:
    s = q * 10**places
    return F(-((-s.numerator) // s.denominator), 10**places)


def places(decimal: str) -> int:
    return len(decimal.partition(".")[2])


def _records(name: str):
    return target_class(name).constant_records()


@pytest.mark.parametrize("name", NAMES)
def test_each_stated_certified_value_rounds_up_to_the_authors_printed_figure(name):
    for p in _records(name).published:
        if p.certified:  # certified is the exact value rounded up to 12 places: rounding it up further is exact
            assert round_up(F(p.certified), places(p.value)) == F(p.value), (p.who, p.certified, p.value)


@pytest.mark.parametrize("name", NAMES)
def test_records_file_names_the_contracts_bound_and_every_construction_is_shipped(name):
    cls = target_class(name)
    r = _records(name)
    assert r.constant.bound == cls.bound_name and r.constant.direction.value == "upper"
    for file in cls.contract_files:
        assert load_contract(shipped(file.removesuffix(".toml"))).bound_spec(r.constant.bound)
    for p in r.published:
        assert (p.construction and p.certified) or (not p.construction and p.why_not), p.who
        if p.construction:
            assert construction_file(cls, p.construction).is_file()


def test_simpletes_2400_step_record_is_below_togetherai_and_ttt_discover():
    r = {p.who: F(p.certified) for p in _records("erdos-minimum-overlap").published if p.certified}
    assert r["SimpleTES"] < r["TogetherAI"] < r["TTT-Discover"] < r["AlphaEvolve"]
