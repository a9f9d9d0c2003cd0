"""Strict payload parsing for the Levinson–Conrey target: exact rationals only, limits enforced."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey.schema import Candidate, Limits, parse_payload, parse_rational

LIM = Limits()
SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}


def with_(**kw):
    return {**SEED, **kw}


def test_parses_the_seed_into_exact_rationals():
    c = parse_payload(SEED, LIM)
    assert c == Candidate((Fraction(0), Fraction(1)), (Fraction(1), Fraction(-1)), Fraction(13, 10))
    assert c.payload() == SEED


@pytest.mark.parametrize("text, value", [("13/10", Fraction(13, 10)), ("1.3", Fraction(13, 10)), ("-2", Fraction(-2)),
                                         ("+4/6", Fraction(2, 3)), (".5", Fraction(1, 2)), ("2.5e-3", Fraction(1, 400)),
                                         ("1E2", Fraction(100)), ("-0", Fraction(0))])
def test_accepts_integer_fraction_and_decimal_spellings(text, value):
    assert parse_rational("R", text, LIM) == value


def test_decimal_and_fraction_spellings_give_the_same_canonical_candidate():
    assert parse_payload(with_(R="1.3"), LIM).payload() == parse_payload(SEED, LIM).payload()


def test_normalises_trailing_zero_coefficients():
    c = parse_payload(with_(P=["0", "1", "0", "0/7"]), LIM)
    assert c.P == (Fraction(0), Fraction(1))
    assert parse_payload(with_(P=["0", "0"]), LIM).payload()["P"] == ["0"]


@pytest.mark.parametrize("bad, where", [
    ("nan", "R"), ("inf", "R"), ("-Infinity", "R"), ("1e999", "R"), ("1e31", "R"), ("0x10", "R"), ("1/0", "R"),
    ("1_000", "R"), (" 1", "R"), ("1/2/3", "R"), ("", "R"), ("١٢", "R"), ("1" * 65, "R"), ("2**3", "R"),
    ("__import__('os')", "R"),
])
def test_rejects_non_numeric_or_non_finite_strings(bad, where):
    with pytest.raises(Malformed, match=rf"^{where}: "):
        parse_payload(with_(R=bad), LIM)


@pytest.mark.parametrize("value", [1.3, 13, True, None, ["1"], {"x": "1"}])
def test_rejects_numbers_that_are_not_strings(value):
    with pytest.raises(Malformed, match=r"^R: must be a string"):
        parse_payload(with_(R=value), LIM)


def test_rejection_names_the_offending_coefficient():
    with pytest.raises(Malformed, match=r"^P\[2\]: "):
        parse_payload(with_(P=["0", "1", "1e999"]), LIM)
    with pytest.raises(Malformed, match=r"^Q\[1\]: must be a string"):
        parse_payload(with_(Q=["1", -1.0]), LIM)


def test_rejects_extra_and_missing_keys():
    with pytest.raises(Malformed, match=r"^S: unknown key"):
        parse_payload({**SEED, "S": "1"}, LIM)
    with pytest.raises(Malformed, match=r"^R: missing"):
        parse_payload({"P": SEED["P"], "Q": SEED["Q"]}, LIM)
    with pytest.raises(Malformed, match=r"^payload: must be an object"):
        parse_payload([SEED], LIM)


def test_rejects_degree_over_the_limit_even_with_trailing_zeros():
    ok = ["0", "1"] + ["0"] * 11  # 13 entries = degree 12
    parse_payload(with_(P=ok), LIM)
    with pytest.raises(Malformed, match=r"^P: 14 coefficients"):
        parse_payload(with_(P=ok + ["0"]), LIM)
    with pytest.raises(Malformed, match=r"^Q: empty"):
        parse_payload(with_(Q=[]), LIM)


def test_rejects_numerators_and_denominators_over_the_limit():
    parse_payload(with_(R=f"{10**15}/{10**15 - 1}"), Limits(r_max=Fraction(10)))
    with pytest.raises(Malformed, match=r"^P\[1\]: numerator"):
        parse_payload(with_(P=["0", str(10**15 + 1)]), LIM)
    with pytest.raises(Malformed, match=r"^Q\[1\]: denominator"):
        parse_payload(with_(Q=["1", f"1/{10**15 + 1}"]), LIM)


def test_rejects_r_above_the_limit_but_leaves_r_le_zero_to_the_checker():
    with pytest.raises(Malformed, match=r"^R: 11 exceeds"):
        parse_payload(with_(R="11"), LIM)
    assert parse_payload(with_(R="-1"), LIM).R == -1
    assert parse_payload(with_(R="0"), LIM).R == 0


def test_parses_json_text_and_refuses_json_numbers_and_constants():
    assert parse_payload(json.dumps(SEED), LIM) == parse_payload(SEED, LIM)
    with pytest.raises(Malformed, match=r"^payload: JSON number"):
        parse_payload('{"P": ["0", "1"], "Q": ["1", "-1"], "R": 1.3}', LIM)
    with pytest.raises(Malformed, match=r"^payload: non-finite"):
        parse_payload('{"P": ["0", "1"], "Q": ["1", "-1"], "R": NaN}', LIM)
    with pytest.raises(Malformed, match=r"^payload: not valid JSON"):
        parse_payload('{"P": ', LIM)
    with pytest.raises(Malformed, match=r"^payload: larger than"):
        parse_payload(" " * 5000, LIM)
