"""Hostile candidates for every table-constant target (those with a records file, read from the registry): only the
documented refusal escapes the parser, and `mathloop check --candidate` refuses a hostile file in one line, exit 2."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathloop.bounded import InputError
from mathloop.targets import build_target, load_contract, registered, target_class
from mathloop.targets.base import Malformed
from tests.integration.cli import invoke


def _constant_contracts() -> list[str]:
    names = []
    for key, reg in sorted(registered().items()):
        if reg.own:
            cls = target_class(key)
            if cls.constant_records() is not None:
                names += [f.removesuffix(".toml") for f in cls.contract_files]
    return names


CONTRACTS = _constant_contracts()
TARGETS = {name: build_target(load_contract(name)) for name in CONTRACTS}
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=False)
                    | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                    max_leaves=40)
FAST = settings(max_examples=40, deadline=timedelta(seconds=5), derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

HOSTILE = [
    None, [], "", "{", "[]" * 100, 1e308, -0.0, True, {"": None},
    {"n": 10**5000, "vertices": [[0]]}, {"matrix": [["1"] * 2] * 10**4}, {"points": [[0, 0, "1/" + "0" * 50]]},
    {"modulus": -5, "residues": [0]}, {"matrix": [[float("inf")]]}, {"points": [[0, 0, "1e999999"]]},
    {"vertices": "0" * 10**6, "n": 1}, {"residues": list(range(10**5)), "modulus": 10**5},
]


def test_the_inventory_is_read_from_the_registry():
    assert {"shannon-capacity-c7", "shannon-capacity-c7-wide", "spencer-discrepancy", "sum-difference-3b",
            "sum-difference-3c", "furstenberg-sarkozy"} <= set(CONTRACTS)


@pytest.mark.parametrize("name", CONTRACTS)
def test_every_constant_target_parses_its_seed_and_refuses_hostile_payloads_with_malformed_only(name):
    target = TARGETS[name]
    assert target.parse(target.seed_payload()) is not None
    for payload in HOSTILE:
        try:
            target.parse(payload)
        except Malformed as e:
            assert "\n" not in str(e) and str(e).split(":")[0], str(e)
        else:
            pytest.fail(f"{name} accepted {str(payload)[:60]}")


@pytest.mark.parametrize("name", CONTRACTS)
def test_random_json_never_escapes_the_parser_as_anything_but_malformed(name):
    target = TARGETS[name]

    @FAST
    @given(JSON)
    def prop(value):
        try:
            target.parse(value)
        except Malformed:
            pass

    prop()


@pytest.mark.parametrize("name", CONTRACTS)
@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe\x00garbage", "UTF-8"),
    (b"{\"a\": NaN}", "not valid JSON"),
    (b"0 1 x\n\x00", "line"),
])
def test_a_hostile_candidate_file_is_one_line_exit_2(tmp_path, name, content, words):
    path = tmp_path / "c.txt"
    path.write_bytes(content)
    res = invoke("check", name, "--candidate", str(path))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len([x for x in res.output.splitlines() if x.strip()]) == 1
    assert words in res.output or "not a" in res.output or "--candidate" in res.output


@pytest.mark.parametrize("name", CONTRACTS)
def test_a_file_beyond_the_byte_limit_is_refused_before_reading(tmp_path, name):
    path = tmp_path / "big.txt"
    with open(path, "wb") as f:  # sparse: no disk or memory is used
        f.truncate(60_000_000)
    reader = getattr(TARGETS[name], "read_candidate_file", None)
    assert reader is not None, f"{name} reads published formats"
    with pytest.raises((InputError, Malformed), match="larger than"):  # the step targets name the file (Malformed)
        reader(path)
    assert os.path.getsize(path) == 60_000_000
