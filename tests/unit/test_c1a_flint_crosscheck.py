"""A third path for the C₁ₐ figures that matter most: the square of an integer polynomial in FLINT.

For n equal steps on [-1/4, 1/4] with heights v, f*f is piecewise linear with knots at the step width, so
C = 2n·max_k (v*v)_k / (Σv)². Integer heights make that an exact integer computation; a float height is its
exact binary rational, scaled to integers by the common denominator.
"""
import json
from fractions import Fraction
from importlib.resources import files

import flint

DATA = files("mathloop.targets.sidon_autocorrelation") / "data"


def _c1a(heights: list[Fraction]) -> Fraction:
    den = max(h.denominator for h in heights)
    ints = [int(h * den) for h in heights]
    square = flint.fmpz_poly(ints) ** 2
    return Fraction(2 * len(ints) * max(int(c) for c in square.coeffs()), sum(ints) ** 2)


def test_mathloops_c1a_record_is_the_exact_value_records_toml_states():
    heights = [Fraction(int(h)) for h in json.loads((DATA / "mathloop-record-1.502862777922.json").read_text())["heights"]]
    assert len(heights) == 30_000
    assert _c1a(heights) == Fraction(1086877503351055850834115600, 723204752501820817679891521)


def test_togetherais_construction_is_above_mathloops_record():
    heights = [Fraction(float(t)) for t in (DATA / "togetherai-30000-1.502862.txt").read_text().split()]
    theirs = _c1a(heights)
    assert Fraction("1.502862858705") < theirs < Fraction("1.502862858706")
    assert theirs - Fraction(1086877503351055850834115600, 723204752501820817679891521) > Fraction(8, 10**8)


def test_a_one_unit_change_of_a_height_changes_the_value():
    heights = [Fraction(int(h)) for h in json.loads((DATA / "mathloop-record-1.502862777922.json").read_text())["heights"]]
    heights[15_000] += 1
    assert _c1a(heights) != Fraction(1086877503351055850834115600, 723204752501820817679891521)
