"""`mathloop check CONTRACT --candidate FILE` (the real console script, a checker child) on every constant's best
stored published construction, as `mathloop records` prints the command; and a refused candidate exits 1."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from mathloop.targets.records import outward
from mathloop.view.leaderboard import leaderboard
from tests.integration.cli import ROOT, mathloop

pytestmark = pytest.mark.slow  # each check starts a process and a checker child (seconds each)

ROWS = {r.table_id: r for r in leaderboard()}


@pytest.mark.parametrize("table_id", sorted(ROWS))
def test_the_printed_command_recertifies_the_best_stored_construction(table_id):
    row = ROWS[table_id]
    args = row.command.split()[1:]  # "mathloop check CONTRACT --candidate FILE"
    proc = mathloop(*args, "--json", timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    value = Fraction(out["bounds_exact"][row.bound])
    assert out["ok"] and outward(value, row.direction) == row.best.shown


def test_a_matrix_with_a_flipped_sign_is_refused_or_weaker_and_a_bad_entry_exits_2(tmp_path):
    (tmp_path / "m.txt").write_text("1 1\n1 2\n")
    proc = mathloop("check", "spencer-discrepancy", "--candidate", str(tmp_path / "m.txt"))
    assert proc.returncode == 2 and "matrix[1][1]: 2 is not in [-1, 1]" in proc.stdout + proc.stderr
    (tmp_path / "r.json").write_text(json.dumps({"modulus": 65, "residues": [0, 1]}))
    proc = mathloop("check", "furstenberg-sarkozy", "--candidate", str(tmp_path / "r.json"), "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["ok"] is False
    assert (ROOT / "obligations" / "furstenberg-sarkozy.toml").is_file()
