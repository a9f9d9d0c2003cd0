"""The sidon-autocorrelation target (C1a): exact values, published constructions, file formats,
should-prove / should-refuse pairs, the proposer and the Lean claims."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from mathloop.targets import load_contract
from mathloop.domain import Label, Verdict
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import Malformed
from mathloop.targets.sidon_autocorrelation import value as value_mod
from mathloop.targets.sidon_autocorrelation.value import autoconvolution_value, plain_value
from tests.support.contracts import shipped

DATA = Path(value_mod.__file__).parent / "data"
# (file, published figure as printed, digits printed): the certified value rounds up to the figure.
PUBLISHED = [
    ("alphaevolve-600-1.5053.txt", "1.5053", 4),
    ("alphaevolve-600-1.5040.txt", "1.5040", 4),
    ("alphaevolve-984-1.5036.txt", "1.5036", 4),
    ("alphaevolve-1444-1.5035a.txt", "1.5035", 4),
    ("alphaevolve-1416-1.5035b.txt", "1.5035", 4),
    ("alphaevolve-1319-1.503164.txt", "1.503164", 6),
    ("thetaevolve-1319-1.503133.txt", "1.503133", 6),
    ("matolcsi-vinuesa-208-1.5098.txt", "1.5098", 4),
]


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract(shipped("sidon-autocorrelation")))


def check(target, payload):
    return target.check(None, target.parse(payload))


def result(ev, oid):
    return next(r for r in ev.results if r.id == oid)


def round_up(q: F, digits: int) -> F:
    s = q * 10**digits
    return F(-((-s.numerator) // s.denominator), 10**digits)


# --- the exact value ------------------------------------------------------------------------

def test_flint_value_equals_the_plain_fraction_evaluation_on_random_heights():
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 9)
        hs = [F(rng.randint(0, 20), rng.randint(1, 5)) for _ in range(n)]
        if not any(hs):
            continue
        den = 1
        for h in hs:
            den = den * h.denominator
        ints = [int(h * den) for h in hs]
        assert autoconvolution_value(ints).value == plain_value(hs)


def test_seed_indicator_has_value_two(target):
    ev = check(target, {"heights": ["1"]})
    assert ev.bounds["C1a"] == 2


def test_two_steps_one_and_zero_value_is_four_and_scale_invariant(target):
    # f = 1 on the left half only: f*f peaks at w·1, ∫f = w: 2n·1/1 = 4
    assert check(target, {"heights": ["1", "0"]}).bounds["C1a"] == 4
    assert check(target, {"heights": ["7/3", "0"]}).bounds["C1a"] == 4


# --- published constructions ----------------------------------------------------------------

@pytest.mark.parametrize("name,figure,digits", PUBLISHED)
def test_published_alphaevolve_construction_certifies_its_printed_figure(target, name, figure, digits):
    payload = target.read_candidate_file(DATA / name)
    ev = check(target, payload)
    v = ev.bounds["C1a"]
    assert round_up(v, digits) == F(figure)
    assert decide(target.contract, None, ev).label is not Label.ERROR


def test_published_5000_step_construction_certifies_1_5033():
    t = build_target(load_contract(shipped("sidon-autocorrelation")))
    v = check(t, t.read_candidate_file(DATA / "alphaevolve-5000-1.5033.txt")).bounds["C1a"]
    assert round_up(v, 4) == F("1.5033")


@pytest.mark.slow  # ~1.5-2.5 s on a loaded machine
def test_ttt_discover_30000_step_construction_certifies_1_5029_below_the_goal():
    t = build_target(load_contract(shipped("sidon-autocorrelation")))
    ev = check(t, t.read_candidate_file(DATA / "ttt-discover-30000-1.5029.txt"))
    assert round_up(ev.bounds["C1a"], 4) == F("1.5029")
    assert result(ev, "c1a-upper-bound").verdict is Verdict.PROVED  # at or below the goal (best published)


def test_matolcsi_vinuesa_construction_agrees_with_the_plain_fraction_path(target):
    payload = target.read_candidate_file(DATA / "matolcsi-vinuesa-208-1.5098.txt")
    ev = check(target, payload)
    assert ev.bounds["C1a"] == plain_value([F(h) for h in payload["heights"]])
    assert ev.bounds["C1a"] < F("1.50992")  # the table's figure for [MV2009]


# --- should prove / should refuse -----------------------------------------------------------

def test_construction_with_one_height_changed_certifies_a_different_value(target):
    payload = target.read_candidate_file(DATA / "alphaevolve-600-1.5053.txt")
    base = check(target, payload).bounds["C1a"]
    changed = dict(payload, heights=list(payload["heights"]))
    changed["heights"][300] = "9"
    other = check(target, changed).bounds["C1a"]
    assert other != base and other > F("1.5053")


def test_negative_height_is_refuted_not_certified(target):
    ev = check(target, {"heights": ["1", "-1/2", "1"]})
    assert result(ev, "nonnegative").verdict is Verdict.REFUTED
    assert "negative" in result(ev, "nonnegative").reasons[0]
    assert "C1a" not in ev.bounds


def test_all_zero_heights_are_refuted(target):
    ev = check(target, {"heights": ["0", "0"]})
    assert result(ev, "nonnegative").verdict is Verdict.REFUTED and "C1a" not in ev.bounds


def test_value_below_the_published_lower_bound_is_a_checker_error(target, monkeypatch):
    monkeypatch.setattr(type(target), "evaluate", lambda self, steps: (F(127, 100), {}))
    ev = check(target, {"heights": ["1"]})
    d = decide(target.contract, None, ev)
    assert d.label is Label.ERROR and "beyond the class floor" in d.reasons[0] and "a theorem" in d.reasons[0]


def test_more_steps_than_the_limit_are_malformed(target):
    with pytest.raises(Malformed, match="more than the limit 65536"):
        target.parse({"heights": ["1"] * 65537})


def test_json_numbers_in_a_payload_are_malformed(target):
    with pytest.raises(Malformed, match="must be a string"):
        target.parse({"heights": [1, 2]})


def test_huge_common_denominator_is_malformed(target):
    primes = [1000003, 1000033, 1000037, 1000039, 1000081, 1000099, 1000117, 1000121, 1000133, 1000151]
    hs = [f"1/{p ** 30}" for p in primes]
    with pytest.raises(Malformed, match="common denominator"):
        target.parse({"heights": hs})


# --- file formats and exactness -------------------------------------------------------------

def test_text_json_list_and_own_json_files_give_the_same_exact_value(target, tmp_path):
    hs = ["0.1", "0.25", "1e-3", "0.7"]
    (tmp_path / "a.txt").write_text(" ".join(hs))
    (tmp_path / "a.json").write_text("[0.1, 0.25, 1e-3, 0.7]")
    (tmp_path / "own.json").write_text(json.dumps({"heights": ["1/10", "1/4", "1/1000", "7/10"]}))
    values = {check(target, target.read_candidate_file(tmp_path / f)).bounds["C1a"] for f in ("a.txt", "a.json", "own.json")}
    assert values == {plain_value([F(h) for h in hs])}


def test_npy_float_file_certifies_the_stored_doubles_which_round_differently(target, tmp_path):
    hs = [0.1, 0.25, 0.3, 0.7]
    np.save(tmp_path / "a.npy", np.array(hs))
    (tmp_path / "a.txt").write_text("\n".join(repr(h) for h in hs))
    from_npy = check(target, target.read_candidate_file(tmp_path / "a.npy")).bounds["C1a"]
    from_text = check(target, target.read_candidate_file(tmp_path / "a.txt")).bounds["C1a"]
    assert from_npy == plain_value([F(h) for h in hs])          # the binary doubles, exactly
    assert from_text == plain_value([F(repr(h)) for h in hs])   # the decimals as written
    assert from_npy != from_text


def test_npy_with_pickled_objects_is_refused(target, tmp_path):
    np.save(tmp_path / "obj.npy", np.array([1, "x"], dtype=object), allow_pickle=True)
    with pytest.raises(Malformed, match="pickle"):
        target.read_candidate_file(tmp_path / "obj.npy")


@pytest.mark.parametrize("text,why", [("1 2 nan", "not a number"), ("[1, NaN]", "not a number"),
                                      ("", "no numbers"), ("1 two 3", "not a number")])
def test_non_numbers_in_a_text_file_are_refused_with_the_file_named(target, tmp_path, text, why):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(Malformed, match=why) as e:
        target.read_candidate_file(p)
    assert "bad.txt" in str(e.value)


# --- schema, proposer -----------------------------------------------------------------------

def test_schema_offered_to_models_is_the_heights_list(target):
    s = target.candidate_schema()
    assert s["required"] == ["heights"] and s["properties"]["heights"]["maxItems"] == 65536


def test_local_proposer_improves_on_the_seed_and_its_proposal_checks(target):
    from dataclasses import replace

    from mathloop.propose.base import Context
    from mathloop.targets.sidon_autocorrelation.proposer import PLAN, float_value, optimise
    from mathloop.targets.sidon_autocorrelation.smooth_max import Schedule
    from mathloop.targets.sidon_autocorrelation.step_proposer import StepProposer, integer_heights

    plan = replace(PLAN, levels=(20,), starts=1, scratch=Schedule(1e-3, 1e-8, 200, 600), slp_steps=0)
    small = lambda seed, start: optimise(seed, start, plan)
    p = StepProposer(target, 0, small, integer_heights, float_value)
    ctx = Context(contract=target.contract, head=None, open_obligations=(), rejections=(), seen=frozenset(), round=0)
    [prop] = p.propose(ctx)
    ev = check(target, prop.payload)
    assert ev.bounds["C1a"] < 2  # the seed, the indicator of [-1/4, 1/4], has value 2
    again = StepProposer(target, 0, small, integer_heights, float_value).propose(ctx)[0]
    assert again.payload == prop.payload  # deterministic for a seed


def test_autoconvolution_problem_rows_linear_and_pullback_match_finite_differences():
    from mathloop.targets.sidon_autocorrelation.proposer import AutoconvolutionProblem

    rng = np.random.default_rng(5)
    n = 6
    a, p, d = rng.random(n), rng.random(2 * n - 1), rng.random(n)
    P = AutoconvolutionProblem(n)
    assert np.allclose(P.values(a), np.convolve(a, a) * 2 * n / n**2, atol=1e-14)
    e = 1e-6
    J = np.array([(P.values(a + e * np.eye(n)[j]) - P.values(a - e * np.eye(n)[j])) / (2 * e) for j in range(n)]).T
    assert np.allclose(P.rows(a, np.arange(2 * n - 1)), J, atol=1e-8)
    assert np.allclose(P.linear(a, d), J @ d, atol=1e-8) and np.allclose(P.pullback(a, p), J.T @ p, atol=1e-8)


# --- Lean -----------------------------------------------------------------------------------

def test_lean_claims_state_the_certified_value(target):
    from mathloop.targets.sidon_autocorrelation.lean_claims import sidon_lean
    from mathloop.targets.sidon_autocorrelation.value import square_coefficients

    a = [1, 2, 3, 0, 5]
    v = autoconvolution_value(a).value
    defs, claims = sidon_lean(a, square_coefficients(a), v)
    names = {d.name: d.value for d in defs}
    assert names["C1a"] == f"(qp {v.numerator} {v.denominator})"
    assert [c.name for c in claims] == ["steps", "square", "peak_is_max", "total_is_sum", "value"]


@pytest.mark.lean
def test_lean_kernel_accepts_the_claims_and_refuses_a_tampered_coefficient():
    from tests.support.step_lean import kernel_verdict
    from mathloop.targets.sidon_autocorrelation.lean_claims import sidon_lean
    from mathloop.targets.sidon_autocorrelation.value import square_coefficients

    a = [1, 2, 3, 0, 5]
    c = square_coefficients(a)
    v = autoconvolution_value(a).value
    assert kernel_verdict(*sidon_lean(a, c, v)) is Verdict.PROVED
    c[3] += 1
    assert kernel_verdict(*sidon_lean(a, c, v)) is Verdict.REFUTED


def _tampered_sidon(n: int, seed: int):
    """Return (a, c, value) of random 37-bit heights (the record's size) and the four claim sets to judge:
    the true one, then one coefficient off by one, a wrong peak, a wrong value, all in the tree form."""
    from mathloop.targets.sidon_autocorrelation.lean_claims import TREES, sidon_lean
    from mathloop.targets.sidon_autocorrelation.value import square_coefficients

    rng = random.Random(seed)
    a = [rng.randrange(1, 2**37) for _ in range(n)]
    c = square_coefficients(a)
    v = F(2 * n * max(c), sum(a) ** 2)
    off = list(c)
    off[n // 3] += 1
    defs, claims = sidon_lean(a, c, v, TREES)
    wrong_peak = [replace(d, value=str(max(c) - 1)) if d.name == "peak" else d for d in defs]
    wrong_value = [replace(d, value=f"(qp {v.numerator} {v.denominator + 1})") if d.name == "C1a" else d for d in defs]
    return [(defs, claims), sidon_lean(a, off, v, TREES), (wrong_peak, claims), (wrong_value, claims)]


def test_data_are_lists_up_to_4096_steps_and_trees_beyond(target):
    from mathloop.targets.sidon_autocorrelation.lean_claims import LIST_MAX_STEPS, MAX_LEAN_STEPS

    assert LIST_MAX_STEPS == 4096 and MAX_LEAN_STEPS >= 30000  # the record's 30,000 steps are rendered
    for n, module in [(4096, "Mathloop.StepFunctions"), (4097, "Mathloop.StepTrees")]:
        ev = check(target, {"heights": [str(1 + i % 7) for i in range(n)]})
        rendered = target.lean_render("ab" * 32, ev)
        assert rendered is not None and list(rendered.support)[-1] == module
        assert ("NTree" in rendered.statement) is (n > 4096)
    defs, _ = _tampered_sidon(200, 0)[0]
    tree = {d.name: d for d in defs}["a"]
    assert tree.type == "NTree" and tree.value.count("NTree.leaf") == 4  # 200 heights: 4 chunks of 64


def test_a_tree_form_file_above_the_size_cap_is_not_rendered(target, monkeypatch):
    from mathloop.targets.sidon_autocorrelation import lean_claims

    ev = check(target, {"heights": [str(1 + i % 7) for i in range(4097)]})
    size = len(target.lean_render("ab" * 32, ev).check_source().encode("utf-8"))
    monkeypatch.setattr(lean_claims, "MAX_TREE_BYTES", size - 1)  # not refused (read as refuted) nor left to crash
    assert target.lean_render("ab" * 32, ev) is None


@pytest.mark.lean
def test_tree_form_claims_are_proved_and_a_wrong_coefficient_peak_or_value_is_refused():
    from mathloop.targets.sidon_autocorrelation.lean_claims import TREE_SUPPORT
    from tests.support.step_lean import kernel_verdict

    verdicts = [kernel_verdict(d, c, TREE_SUPPORT) for d, c in _tampered_sidon(300, 1)]
    assert verdicts == [Verdict.PROVED, Verdict.REFUTED, Verdict.REFUTED, Verdict.REFUTED]


@pytest.mark.lean
@pytest.mark.slow  # four kernel checks of 8000 steps (16,000 coefficients): about a minute and a half
def test_at_8000_steps_the_kernel_proves_the_claims_and_refuses_a_wrong_coefficient_peak_or_value():
    from mathloop.targets.sidon_autocorrelation.lean_claims import TREE_SUPPORT
    from tests.support.step_lean import kernel_verdict

    verdicts = [kernel_verdict(d, c, TREE_SUPPORT) for d, c in _tampered_sidon(8000, 2)]
    assert verdicts == [Verdict.PROVED, Verdict.REFUTED, Verdict.REFUTED, Verdict.REFUTED]


# --- the CLI ------------------------------------------------------------------------------------

def _cli_check(*args: str):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    return CliRunner().invoke(app, ["check", "sidon-autocorrelation", *args])


@pytest.mark.slow  # a checker worker process and the CLI's imports: seconds on a loaded machine
def test_cli_check_reads_an_npy_file_and_prints_the_exact_fraction_and_a_rounded_up_decimal(tmp_path):
    np.save(tmp_path / "f.npy", np.array([0.5, 1.0, 0.25]))
    r = _cli_check("--candidate", str(tmp_path / "f.npy"), "--json")
    out = json.loads(r.stdout)
    exact = plain_value([F(1, 2), F(1), F(1, 4)])
    assert out["bounds_exact"] == {"C1a": str(exact)} and r.exit_code == 0
    assert F(out["bounds"]["C1a"]) >= exact  # rounded up: an upper bound is never understated
    r = _cli_check("--candidate", str(tmp_path / "f.npy"))
    assert f"exact {exact}" in r.stdout


def test_cli_check_refuses_a_text_file_with_a_non_number_naming_the_file(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("1 2 x")
    r = _cli_check("--candidate", str(p))
    assert r.exit_code == 2 and "bad.txt" in r.output
