"""A third path for the C₁ᵦ figures that matter most: one product of integer polynomials in FLINT, f against g.

With integer heights a (A = Σa) the normalised steps are f_i = n·a_i/(2A) and g_i = 1 − f_i = G_i/(2A) with
G_i = 2A − n·a_i (>= 0 exactly when the candidate is admissible), so the overlap at the grid shift k is
(2/n)·Σ_i f_i·g_{i+k} = Σ_i a_i·G_{i+k}/(2A²): the coefficients of a(X)·G*(X) (G reversed), one FLINT product, with
no prefix sums and none of the checker's P/Q split. A float height is its exact binary rational, scaled to integers
by the common denominator.
"""
import json
from fractions import Fraction
from importlib.resources import files

import flint

DATA = files("mathloop.targets.erdos_minimum_overlap") / "data"
OWN = Fraction(27422459073824928042931728703, 72000000000001200000000000005)  # records.toml [[mathloop]] exact


def _c1b(heights: list[Fraction]) -> Fraction:
    den = max(h.denominator for h in heights)
    a = [int(h * den) for h in heights]
    n, total = len(a), sum(a)
    g = [2 * total - n * x for x in a]
    assert min(g) >= 0  # admissible: every f_i <= 1
    overlaps = (flint.fmpz_poly(a) * flint.fmpz_poly(g[::-1])).coeffs()
    return Fraction(max(int(c) for c in overlaps), 2 * total * total)


def _own() -> list[Fraction]:
    data = json.loads((DATA / "mathloop-record-0.380867487137.json").read_text())
    return [Fraction(h) for h in data["heights"]]


def test_mathloops_c1b_record_is_the_exact_value_records_toml_states():
    heights = _own()
    assert len(heights) == 2400 and all(h.denominator == 1 for h in heights)
    assert _c1b(heights) == OWN


def test_simpletes_construction_is_above_mathloops_record():
    heights = [Fraction(float(t)) for t in (DATA / "simpletes-2400-0.380868.txt").read_text().split()]
    theirs = _c1b(heights)
    assert Fraction("0.380867675827") < theirs < Fraction("0.380867675828")
    assert theirs - OWN > Fraction(18, 10**8)


def test_mathloops_600_step_best_is_the_exact_value_records_toml_states_and_below_the_older_one():
    data = json.loads((DATA / "mathloop-record-0.380867472394.json").read_text())
    heights = [Fraction(h) for h in data["heights"]]
    assert len(heights) == 600
    got = _c1b(heights)
    assert got == Fraction(6855614503077767217222406182, 18000000000000600000000000005) < OWN


def test_a_one_unit_change_of_a_height_changes_the_value():
    heights = _own()
    heights[1200] += 1
    assert _c1b(heights) != OWN
