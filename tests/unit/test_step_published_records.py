"""The published records of C1a and C1b (each package's data/records.toml): every stored construction re-certifies
to the exact value the file states (rounded up to 12 places) and to the figure its authors printed; a record
without a construction says why; the plot reference lines are the same list."""

from __future__ import annotations

import tomllib
from fractions import Fraction as F
from importlib import resources

import pytest

from mathloop.targets import build_target, load_contract, target_class
from tests.support.contracts import shipped

PACKAGES = {"sidon-autocorrelation": "mathloop.targets.sidon_autocorrelation",
            "erdos-minimum-overlap": "mathloop.targets.erdos_minimum_overlap"}
KEYS = {"who", "value", "date", "source", "construction", "certified", "why_not"}


def records(name: str) -> dict:
    """Read data/records.toml as package data (a small reader until the shared loader lands)."""
    return tomllib.loads((resources.files(PACKAGES[name]) / "data" / "records.toml").read_text(encoding="utf-8"))


def round_up(q: F, places: int) -> F:
    s = q * 10**places
    return F(-((-s.numerator) // s.denominator), 10**places)


def places(decimal: str) -> int:
    return len(decimal.partition(".")[2])


def entries(slow: bool) -> list:
    out = []
    for name in PACKAGES:
        for e in records(name)["published"]:
            if e["construction"] and ("30000" in e["construction"]) == slow:
                out.append(pytest.param(name, e, id=f"{name}:{e['construction']}"))
    return out


@pytest.fixture(scope="module")
def targets():
    return {name: build_target(load_contract(shipped(name))) for name in PACKAGES}


def _certify(target, entry) -> F:
    data = resources.files(PACKAGES[target.name]) / "data" / entry["construction"]
    with resources.as_file(data) as path:
        ev = target.check(None, target.parse(target.read_candidate_file(path)))
    return ev.bounds[target.bound_name]


def _assert_reproduces(value: F, entry) -> None:
    assert round_up(value, 12) == F(entry["certified"]), (entry["who"], float(value))
    assert round_up(value, places(entry["value"])) == F(entry["value"])  # the authors' printed digits


@pytest.mark.parametrize("name, entry", entries(slow=False))
def test_each_published_construction_certifies_the_stated_value_and_the_printed_figure(targets, name, entry):
    _assert_reproduces(_certify(targets[name], entry), entry)


@pytest.mark.slow  # 30,000 steps: ~0.4 s idle, several seconds under load
@pytest.mark.parametrize("name, entry", entries(slow=True))
def test_the_30000_step_construction_certifies_the_stated_value_and_the_printed_figure(targets, name, entry):
    _assert_reproduces(_certify(targets[name], entry), entry)


@pytest.mark.parametrize("name", PACKAGES)
def test_records_file_names_the_contracts_bound_and_every_entry_is_complete(name):
    r = records(name)
    contract = load_contract(shipped(name))
    assert r["constant"]["bound"] in {o.id for o in contract.obligations}
    assert r["constant"]["direction"] == "upper"
    for e in r["published"]:
        assert set(e) == KEYS, e
        assert F(e["value"]) > 0 and e["date"][:4].isdigit()
        if e["construction"]:
            assert e["certified"] and not e["why_not"]
            assert (resources.files(PACKAGES[name]) / "data" / e["construction"]).is_file()
        else:
            assert not e["certified"] and e["why_not"], e["who"]


@pytest.mark.parametrize("name", PACKAGES)
def test_plot_reference_lines_are_the_records_files_published_values(name):
    cls = target_class(name)
    lines = {value for _, value in cls.published_bounds(cls.bound_name)}
    assert lines == {F(e["value"]) for e in records(name)["published"]}


def test_simpletes_2400_step_record_is_below_togetherai_and_ttt_discover():
    r = {e["who"]: F(e["certified"]) for e in records("erdos-minimum-overlap")["published"] if e["certified"]}
    assert r["SimpleTES"] < r["TogetherAI"] < r["TTT-Discover"] < r["AlphaEvolve"]
