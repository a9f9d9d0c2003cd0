"""The product order and the five labels, exhaustively on small cases and by property."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from mathloop.contract.model import BoundSpec
from mathloop.domain import Direction, Label, Scores
from mathloop.order import compare

MAX = {"k": BoundSpec("k", Direction.MAXIMIZE, Fraction(1, 10))}
MIN = {"e": BoundSpec("e", Direction.MINIMIZE, Fraction(1, 10))}


def scores(a, b, k=None):
    return Scores({"a": a, "b": b}, {} if k is None else {"k": Fraction(k)})


def test_every_rank_combination_gets_the_label_of_the_rule():
    for a0 in range(3):
        for b0 in range(3):
            for a1 in range(3):
                for b1 in range(3):
                    cmp = compare(scores(a0, b0), scores(a1, b1), {})
                    better = a1 < a0 or b1 < b0
                    worse = a1 > a0 or b1 > b0
                    expected = (Label.INCOMPARABLE if better and worse else Label.REGRESSION if worse
                                else (Label.CORRECT if a1 == b1 == 0 else Label.PROGRESS) if better
                                else Label.NO_PROGRESS)
                    assert cmp.label is expected, (a0, b0, a1, b1)


def test_bound_gain_below_min_improvement_is_no_progress():
    assert compare(scores(0, 0, "0.5"), scores(0, 0, "0.59"), MAX).label is Label.NO_PROGRESS
    assert compare(scores(0, 0, "0.5"), scores(0, 0, "0.6"), MAX).label is Label.CORRECT


def test_any_bound_loss_is_worse_even_below_min_improvement():
    assert compare(scores(0, 0, "0.5"), scores(0, 0, "0.4999"), MAX).label is Label.REGRESSION


def test_losing_a_certified_bound_is_worse():
    assert compare(scores(0, 0, "0.5"), scores(0, 0), MAX).label is Label.REGRESSION


def test_minimised_bounds_improve_downwards():
    h = Scores({}, {"e": Fraction(1)})
    assert compare(h, Scores({}, {"e": Fraction(8, 10)}), MIN).label is Label.CORRECT
    assert compare(h, Scores({}, {"e": Fraction(11, 10)}), MIN).label is Label.REGRESSION


def test_bound_gain_with_a_rank_loss_is_incomparable():
    assert compare(scores(0, 0, "0.5"), scores(1, 0, "0.9"), MAX).label is Label.INCOMPARABLE


def test_no_head_makes_everything_better():
    assert compare(None, scores(1, 0, "0.1"), MAX).label is Label.PROGRESS


def test_obligation_missing_from_new_evidence_is_worse():
    assert compare(scores(0, 0), Scores({"a": 0}, {}), {}).label is Label.REGRESSION


ranks = st.dictionaries(st.sampled_from("abcd"), st.integers(0, 3), min_size=4, max_size=4)
values = st.fractions(min_value=0, max_value=1, max_denominator=50)


@given(ranks, ranks, values, values)
def test_gate_passes_exactly_on_strict_progress(r0, r1, k0, k1):
    h, n = Scores(r0, {"k": k0}), Scores(r1, {"k": k1})
    cmp = compare(h, n, MAX)
    none_worse = all(r1[o] <= r0[o] for o in r0) and k1 >= k0
    some_better = any(r1[o] < r0[o] for o in r0) or k1 >= k0 + Fraction(1, 10)
    assert cmp.passes_gate == (none_worse and some_better)


@given(ranks, values)
def test_a_state_never_beats_itself(r, k):
    s = Scores(r, {"k": k})
    assert compare(s, s, MAX).label is Label.NO_PROGRESS
