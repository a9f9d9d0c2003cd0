"""Adversarial review of the `critical-line-zeros` checker: attempts to get a wrong or sloppy
certificate through, on a small contract (cap g_400). The defects found in review are fixed;
their tests pin the fixes.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from mathloop.targets import load_contract
from mathloop.domain import Verdict
from mathloop.targets import build_target
from mathloop.targets.base import CheckerCrash, Malformed
from mathloop.targets.critical_line_zeros.counting import zeros_up_to
from mathloop.targets.critical_line_zeros.gram import gram_ceil, gram_floor
from mathloop.targets.critical_line_zeros.turing import above_trudgian_range
from tests.support.clz import small_contract, small_env

ROOT = Path(__file__).resolve().parents[2]
DIGITS = 30  # height_digits of the contract
# The first zero 1/2 + i*14.13472514173469379045725198356247027078425711569924317568556...
Z0_MINUS_1E17 = "14.1347251417346937804572519835624702707842"  # Z < 0 here, |Z| ~ 8e-18
Z0_PLUS_1E25 = "14.1347251417346937904572520835624702707842"  # Z > 0 here, |Z| ~ 8e-26


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return small_env(tmp_path_factory.mktemp("clz-adv"))


def _copy(chunk):
    return {"start": chunk["start"], "blocks": [{"end": b["end"], "points": list(b["points"])} for b in chunk["blocks"]]}


def _block(payload, end):
    return next(b for b in payload["blocks"] if b["end"] == end)


def _decimal(q: Fraction, places: int) -> str:
    """Return the exact decimal string of q (whose denominator divides 10^places)."""
    n = q * 10**places
    assert n.denominator == 1
    whole, frac = divmod(n.numerator, 10**places)
    return f"{whole}.{frac:0{places}d}"


def _first_block_with(env, points):
    """Return the first chunk with block [g_-1, g_0) given `points`."""
    _, _, chunk, _, _ = env
    bad = _copy(chunk)
    bad["blocks"][0] = {"end": 0, "points": points}
    return bad


# ---------------------------------------------------------------- placement of sample points


@pytest.mark.parametrize(
    "point, why",
    [
        (lambda: gram_floor(126, DIGITS), "on one side of g_126"),  # lower rational bound of an interior g
        (lambda: gram_ceil(126, DIGITS), "on one side of g_126"),  # upper rational bound
        (lambda: gram_floor(126, DIGITS) + Fraction(1, 2 * 10**DIGITS), "on one side of g_126"),  # in between
        (lambda: gram_ceil(125, DIGITS), "not certified inside the block"),  # = the start's upper bound
        (lambda: gram_floor(127, DIGITS), "not certified inside the block"),  # = the end's lower bound
        (lambda: Fraction(2805, 10), "not certified inside the block"),  # below g_125 (in the previous block)
        (lambda: Fraction(2845, 10), "not certified inside the block"),  # above g_127 (in the next block)
    ],
)
def test_refuses_points_on_or_outside_the_rational_gram_bounds(env, point, why):
    target, root, chunk, _, _ = env
    bad = _copy(chunk)
    blk = _block(bad, 127)  # [g_125, g_127), g_126 bad
    blk["points"] = [_decimal(point(), DIGITS + 1)]
    ev = target.check(root.state, target.parse(bad))
    assert ev.result("blocks").verdict is Verdict.REFUTED
    assert "block 126 [g_125, g_127)" in ev.reasons()[0] and why in ev.reasons()[0]
    assert ev.state == root.state and ev.bounds == root.bounds


def test_refuses_a_point_attributed_to_the_neighbouring_block(env):
    target, root, chunk, _, _ = env
    bad = _copy(chunk)
    moved = _block(bad, 127)["points"].pop()
    _block(bad, 125)["points"].append(moved)  # [g_124, g_125) gets the point of [g_125, g_127)
    ev = target.check(root.state, target.parse(bad))
    assert ev.result("blocks").verdict is Verdict.REFUTED
    assert "not certified inside the block" in ev.reasons()[0]


def test_refuses_a_block_that_swallows_a_good_gram_point(env):
    target, root, chunk, _, _ = env
    bad = _copy(chunk)
    i = next(i for i, b in enumerate(bad["blocks"]) if b["end"] == 10)
    merged = {"end": 11, "points": []}  # [g_9, g_11) with g_10 good: not a Gram block
    bad["blocks"][i : i + 2] = [merged]
    ev = target.check(root.state, target.parse(bad))
    assert "g_10 is a good Gram point inside the block" in ev.reasons()[0]


def test_extra_samples_around_a_zero_still_count_one_change(env):
    target, root, chunk, _, _ = env
    bad = _copy(chunk)
    # [g_-1, g_0) holds one zero (14.13): more samples on both sides still give exactly one change
    bad["blocks"][0]["points"] = ["12", "14", "15", "16"]
    ev = target.check(root.state, target.parse(bad))
    assert ev.result("blocks").verdict is not Verdict.REFUTED
    assert ev.artifacts["chunk"]["blocks"][0]["sign_changes"] == 1


# ---------------------------------------------------------------- parser


@pytest.mark.parametrize(
    "point",
    ["-14.5", "0", "0.0", "0/7", "14_5", "1e1", "1E1", "+14.5", " 14.5", "14.5 ", "14.", ".5", "١٤.٥", "１４.５",
     "14.5\r", "0x1A", "inf", "NaN", "14,5", "29/-2", "29/0", "2.5/1"],
)
def test_rejects_non_canonical_or_non_positive_point_strings(env, point):
    target = env[0]
    with pytest.raises(Malformed, match=r"blocks\[0\]\.points\[0\]"):
        target.parse({"start": -1, "blocks": [{"end": 0, "points": [point]}]})


@pytest.mark.parametrize("point", ["14.5\n", "29/2\n"])
def test_rejects_point_strings_with_a_trailing_newline(env, point):
    target = env[0]
    with pytest.raises(Malformed):
        target.parse({"start": -1, "blocks": [{"end": 0, "points": [point]}]})


@pytest.mark.parametrize(
    "payload, reason",
    [
        ({"start": -1, "blocks": [{"end": 0, "points": ["14.5", "29/2"]}]}, "strictly increasing"),  # same value
        ({"start": -1, "blocks": [{"end": 0, "points": ["14.5", "14.5"]}]}, "strictly increasing"),
        ({"start": 0.5, "blocks": []}, "start: must be an integer"),
        ({"start": "-1", "blocks": []}, "start: must be an integer"),
        ({"start": -2, "blocks": []}, "outside"),
        ({"start": -1, "blocks": [{"end": 0, "points": ["15"] * 201}]}, "201 points, limit 200"),
        ({"start": -1, "blocks": [{"end": 0, "points": []}] * 2001}, "2001 blocks, limit 2000"),
        ({"start": -1, "blocks": [{"end": 41, "points": []}]}, "outside"),  # longer than max_block_length
        ({"start": -1, "blocks": [{"end": 0, "points": [], "sign": 1}]}, "unknown key"),
        ({"start": -1, "blocks": [{"end": 0, "points": []}], "parent_state": None}, "must be an object"),
        ({"start": -1, "blocks": [{"end": 0, "points": "14.5"}]}, "must be a list"),
    ],
)
def test_rejects_malformed_chunks(env, payload, reason):
    with pytest.raises(Malformed, match=reason):
        env[0].parse(payload)


# ---------------------------------------------------------------- parent state: never trusted by the loop


def test_a_payload_parent_state_never_overrides_the_head_state(env):
    target, root, chunk, first, _ = env
    forged = dict(first.state)  # claims the prefix is already at g_319
    ev = target.check(root.state, target.parse(dict(chunk, parent_state=forged)))
    assert ev.result("blocks").verdict is Verdict.REFUTED
    assert "certificate was made for the prefix ending at g_319" in ev.reasons()[0]
    assert ev.state == root.state and ev.bounds == root.bounds


def test_envelope_claims_of_state_and_bounds_are_ignored(env):
    target, root, chunk, first, _ = env
    envelope = {"mathloop_certificate": "x", "candidate": chunk, "parent_state": root.state,
                "state": dict(first.state, count=10**6), "bounds": {"height": "99999", "count": "1000000"},
                "chunk": {"blocks": []}}
    ev = target.check(root.state, target.parse(envelope))
    assert ev.canonical_bytes() == first.canonical_bytes()


def _forged_envelope(cap: int) -> dict:
    p = cap - 1
    return {"mathloop_certificate": "mathloop/critical-line-zeros/certificate/1",
            "candidate": {"start": p, "blocks": []},
            "parent_state": {"last_gram_index": p, "blocks_verified": p + 1, "tail": list(range(p - 8, p + 1)),
                             "bad_gram_points": 0, "first_bad_gram": None, "longest_block": 1}}


def _cli_check(path: Path, candidate: Path):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    return CliRunner().invoke(app, ["check", str(path), "--candidate", str(candidate), "--json"],
                              env={"COLUMNS": "200", "NO_COLOR": "1"})


def test_cli_check_does_not_certify_bounds_that_rest_on_a_forged_certificate_parent(env, tmp_path):
    path = env[4]
    f = tmp_path / "forged.json"
    f.write_text(json.dumps(_forged_envelope(400)))
    res = _cli_check(path, f)
    out = json.loads(res.stdout)
    top = {k: v for k, v in out.items() if k != "evidence"}
    flagged = "conditional" in json.dumps(top)
    assert not out["ok"] or flagged, (res.exit_code, out["bounds"])
    assert "conditional_on_parent" in out["evidence"]["state"] or not out["bounds"]


def test_cli_check_flags_a_raw_payload_parent_state_as_conditional(env, tmp_path):
    path = env[4]
    env_json = _forged_envelope(400)
    f = tmp_path / "forged-raw.json"
    f.write_text(json.dumps(dict(env_json["candidate"], parent_state=env_json["parent_state"])))
    res = _cli_check(path, f)
    out = json.loads(res.stdout)
    assert "conditional_on_parent" in out["evidence"]["state"]  # the target already says so
    top = {k: v for k, v in out.items() if k != "evidence"}
    assert not out["ok"] or "conditional" in json.dumps(top)


def test_cli_check_rejects_deeply_nested_json_as_bad_input(env, tmp_path):
    f = tmp_path / "deep.json"
    f.write_text('{"start": -1, "blocks": ' + "[" * 100_000 + "]" * 100_000 + "}")
    res = _cli_check(env[4], f)
    assert res.exit_code == 2 and not isinstance(res.exception, RecursionError)


# ---------------------------------------------------------------- Turing window, height and count


def test_turing_closes_only_once_the_window_starts_above_168_pi(env):
    target, root, chunk, _, _ = env
    ends = [b["end"] for b in chunk["blocks"]]
    b1 = next(e for e in ends if above_trudgian_range(e))  # first block boundary above 168*pi
    b0 = ends[ends.index(b1) - 1]
    assert not above_trudgian_range(b0)
    short = {"start": -1, "blocks": [b for b in chunk["blocks"] if b["end"] <= b1]}
    ev = target.check(root.state, target.parse(short))
    assert ev.result("turing").verdict is Verdict.UNKNOWN and ev.bounds == {}  # window would start at g_b0
    longer = {"start": -1, "blocks": [b for b in chunk["blocks"] if b["end"] <= ends[ends.index(b1) + 1]]}
    ev = target.check(root.state, target.parse(longer))
    assert ev.state["turing"]["closed_at"] == b1 and ev.bounds["count"] == b1 + 1
    assert gram_floor(b1, DIGITS) == ev.bounds["height"]


def test_height_is_below_the_window_start_and_above_every_counted_sample(env):
    _, _, _, first, _ = env
    q = first.state["turing"]["closed_at"]
    T = first.bounds["height"]
    assert T < gram_floor(q, DIGITS) + Fraction(1, 10**DIGITS) and T > gram_floor(q, DIGITS) - Fraction(1, 10**DIGITS)
    for b in first.artifacts["chunk"]["blocks"]:
        if b["end"] <= q:
            assert all(Fraction(p[0]) < T for p in b["points"])
    # the certified count matches an independent count (mpmath's Gram/Rosser-based nzeros)
    import mpmath

    with mpmath.workdps(20):
        assert mpmath.nzeros(mpmath.mpf(T.numerator) / T.denominator) == first.bounds["count"] == q + 1


def test_evidence_does_not_depend_on_workers_or_global_precision(env, tmp_path):
    import flint
    import mpmath

    target, root, chunk, first, _ = env
    t2 = build_target(load_contract(small_contract(tmp_path, **{"check_workers = 1": "check_workers = 2"})))
    ev2 = t2.check(root.state, t2.parse(chunk))
    assert ev2.canonical_bytes() == first.canonical_bytes()
    old = flint.ctx.prec, mpmath.mp.dps
    try:
        flint.ctx.prec, mpmath.mp.dps = 20, 5
        assert target.check(root.state, target.parse(chunk)).canonical_bytes() == first.canonical_bytes()
    finally:
        flint.ctx.prec, mpmath.mp.dps = old


def test_evidence_reasons_hold_no_float_formatting(env):
    _, _, _, first, _ = env
    text = json.dumps([r.reasons for r in first.results])
    assert "319.000000" not in text and "certified count 319 below the goal 21136125" in text, text


# ---------------------------------------------------------------- recorded balls and signs


def test_a_point_close_to_a_zero_is_decided_by_the_ball_not_its_printed_midpoint(env):
    target, root, _, _, _ = env
    ev = target.check(root.state, target.parse(_first_block_with(env, ["12", Z0_MINUS_1E17])))
    # the sign is certified correctly (Z < 0 before the first zero): one change in [g_-1, g_0)
    assert ev.result("turing").verdict is Verdict.PROVED
    assert ev.artifacts["chunk"]["blocks"][0]["sign_changes"] == 1


def test_recorded_ball_of_a_certified_sign_excludes_zero(env):
    target, root, _, _, _ = env
    ev = target.check(root.state, target.parse(_first_block_with(env, ["12", Z0_MINUS_1E17])))
    text, mid, rad, _ = ev.artifacts["chunk"]["blocks"][0]["points"][1]
    assert text == Z0_MINUS_1E17
    assert Decimal(mid) < 0 and abs(Decimal(mid)) > Decimal(rad), (mid, rad)


def test_zeros_up_to_uses_certified_signs(env):
    target, root, _, _, _ = env
    ev = target.check(root.state, target.parse(_first_block_with(env, ["12", Z0_MINUS_1E17])))
    T = Fraction(Z0_MINUS_1E17) + Fraction(1, 2 * 10**17)  # still below the first zero
    assert zeros_up_to(T, [ev.artifacts["chunk"]]) == 0


def test_crosscheck_accepts_a_certified_point_very_close_to_a_zero(env):
    target, root, _, _, _ = env
    try:
        ev = target.check(root.state, target.parse(_first_block_with(env, [Z0_PLUS_1E25])))
    except CheckerCrash as e:
        pytest.fail(f"spurious crash: {e}")
    assert ev.result("turing").verdict is Verdict.PROVED
