"""`mathloop check shannon-capacity-c7 --candidate FILE` on the formats independent sets are published in."""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources

import pytest

from tests.integration.cli import invoke

# Each check starts a checker worker process (~1.5-8 s under load): slow tier, like test_cli_levinson.
pytestmark = pytest.mark.slow

PS367 = resources.files("mathloop.targets.shannon_capacity_c7") / "data" / "polak_schrijver_367.txt"


def test_check_certifies_the_published_367_text_file_exactly():
    res = invoke("check", "shannon-capacity-c7", "--candidate", str(PS367), "--json")
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and out["ok"]
    assert out["bounds_exact"]["capacity"] == "3257865966783/1000000000000"
    assert out["bounds"]["capacity"] == "3.257865966783"


@pytest.mark.parametrize("text, name", [("[[0, 0], [2, 2], [4, 4]]", "tuples.json"), ("00\n22\n44\n", "words.txt"),
                                        (json.dumps({"n": 2, "vertices": [[0, 0], [2, 2], [4, 4]]}), "own.json")])
def test_check_reads_each_published_format(tmp_path, text, name):
    (tmp_path / name).write_text(text)
    out = json.loads(invoke("check", "shannon-capacity-c7", "--candidate", str(tmp_path / name), "--json").stdout)
    assert out["ok"] and Fraction(out["bounds_exact"]["capacity"]) == Fraction(1732050807568, 10**12)  # √3


def test_check_refuses_an_adjacent_pair_with_exit_1_and_bad_coordinates_with_exit_2(tmp_path):
    (tmp_path / "adj.txt").write_text("0 0\n1 1\n")
    res = invoke("check", "shannon-capacity-c7", "--candidate", str(tmp_path / "adj.txt"))
    assert res.exit_code == 1 and "adjacent" in res.stdout
    (tmp_path / "oor.txt").write_text("0 0\n9 1\n")
    res = invoke("check", "shannon-capacity-c7", "--candidate", str(tmp_path / "oor.txt"))
    assert res.exit_code == 2 and "vertices[1][0]: 9 is not in 0..6" in res.output
