"""The erdos-minimum-overlap target (C1b): exact values, the published construction, normalisation,
should-prove / should-refuse pairs, the proposer and the Lean claims."""

from __future__ import annotations

import random
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from mathloop.targets import load_contract
from mathloop.domain import Label, Verdict
from mathloop.check.gate import decide
from mathloop.targets import build_target
from mathloop.targets.base import Malformed
from mathloop.targets.erdos_minimum_overlap import value as value_mod
from mathloop.targets.erdos_minimum_overlap.value import overlap_value, plain_value
from tests.support.contracts import shipped

DATA = Path(value_mod.__file__).parent / "data"


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract(shipped("erdos-minimum-overlap")))


def check(target, payload):
    return target.check(None, target.parse(payload))


def result(ev, oid):
    return next(r for r in ev.results if r.id == oid)


def test_flint_value_equals_the_plain_fraction_evaluation_on_random_admissible_heights():
    rng = random.Random(3)
    seen = 0
    while seen < 40:
        n = rng.randint(1, 10)
        a = [rng.randint(0, 9) for _ in range(n)]
        if sum(a) == 0 or any(n * x > 2 * sum(a) for x in a):
            continue
        seen += 1
        assert overlap_value(a).value == plain_value([F(x) for x in a])


def test_seed_half_interval_has_erdos_first_bound_one_half(target):
    assert check(target, target.seed_payload()).bounds["C1b"] == F(1, 2)


def test_overlap_is_invariant_under_scaling_the_heights(target):
    a = check(target, {"heights": ["0", "1", "1", "0"]}).bounds["C1b"]
    b = check(target, {"heights": ["0", "3/7", "3/7", "0"]}).bounds["C1b"]
    assert a == b


def test_published_alphaevolve_construction_certifies_0_380924(target):
    ev = check(target, target.read_candidate_file(DATA / "alphaevolve-95-0.380924.txt"))
    v = ev.bounds["C1b"]
    s = v * 10**6
    assert F(-((-s.numerator) // s.denominator), 10**6) == F("0.380924")
    assert v > F("0.380923")
    assert decide(target.contract, None, ev).label is not Label.ERROR


@pytest.mark.parametrize("name,figure", [("haugland-51-0.380927.txt", "0.380927"),
                                         ("ttt-discover-600-0.380876.txt", "0.380876")])
def test_published_haugland_and_ttt_constructions_certify_their_figures(target, name, figure):
    payload = target.read_candidate_file(DATA / name)
    v = check(target, payload).bounds["C1b"]
    s = v * 10**6
    assert F(-((-s.numerator) // s.denominator), 10**6) == F(figure)
    if len(payload["heights"]) <= 100:
        assert v == plain_value([F(h) for h in payload["heights"]])  # the independent path


def test_construction_with_one_height_changed_certifies_a_different_value(target):
    payload = target.read_candidate_file(DATA / "alphaevolve-95-0.380924.txt")
    base = check(target, payload).bounds["C1b"]
    changed = {"heights": list(payload["heights"])}
    changed["heights"][47] = "0.5"
    assert check(target, changed).bounds["C1b"] != base


def test_negative_height_is_refuted(target):
    ev = check(target, {"heights": ["1", "-1/10", "1", "1"]})
    assert result(ev, "admissible").verdict is Verdict.REFUTED and "C1b" not in ev.bounds


def test_height_above_one_after_normalisation_is_refuted(target):
    # n = 4, Σh = 1: f_0 = 4·1/2 = 2 > 1
    ev = check(target, {"heights": ["1", "0", "0", "0"]})
    assert result(ev, "admissible").verdict is Verdict.REFUTED
    assert "exceeds 1" in result(ev, "admissible").reasons[0]
    assert "C1b" not in ev.bounds


def test_value_below_the_published_lower_bound_is_a_checker_error(target, monkeypatch):
    monkeypatch.setattr(type(target), "evaluate", lambda self, steps: (F("0.379"), {}))
    d = decide(target.contract, None, check(target, target.seed_payload()))
    assert d.label is Label.ERROR


def test_more_steps_than_the_limit_are_malformed(target):
    with pytest.raises(Malformed, match="more than the limit"):
        target.parse({"heights": ["1"] * 65537})


def test_npy_and_text_files_of_the_same_floats_certify_their_own_exact_values(target, tmp_path):
    hs = [0.1, 0.7, 0.9, 0.3]
    np.save(tmp_path / "f.npy", np.array(hs))
    (tmp_path / "f.txt").write_text(" ".join(repr(h) for h in hs))
    v_npy = check(target, target.read_candidate_file(tmp_path / "f.npy")).bounds["C1b"]
    v_txt = check(target, target.read_candidate_file(tmp_path / "f.txt")).bounds["C1b"]
    assert v_npy == plain_value([F(h) for h in hs]) and v_txt == plain_value([F(repr(h)) for h in hs])
    assert v_npy != v_txt


def test_local_proposer_improves_on_the_seed_and_its_proposal_is_admissible(target):
    from mathloop.propose.base import Context
    from mathloop.targets.erdos_minimum_overlap.proposer import PLAN, admissible_integers, float_value, optimise
    from mathloop.targets.sidon_autocorrelation.smooth_max import Schedule
    from mathloop.targets.sidon_autocorrelation.step_proposer import StepProposer
    from dataclasses import replace

    plan = replace(PLAN, levels=(20,), starts=1, scratch=Schedule(1e-3, 1e-8, 200, 1000), slp_steps=0)
    small = lambda seed, start: optimise(seed, start, plan)
    ctx = Context(contract=target.contract, head=None, open_obligations=(), rejections=(), seen=frozenset(), round=0)
    [prop] = StepProposer(target, 0, small, admissible_integers, float_value).propose(ctx)
    ev = check(target, prop.payload)
    assert result(ev, "admissible").verdict is Verdict.PROVED and ev.bounds["C1b"] < F(1, 2)
    assert prop.meta["start"] == "scratch"


def test_overlap_problem_rows_linear_and_pullback_match_finite_differences():
    from mathloop.targets.erdos_minimum_overlap.proposer import OverlapProblem

    rng = np.random.default_rng(2)
    n = 7
    f, p, d = rng.random(n), rng.random(2 * n - 1), rng.random(n)
    P = OverlapProblem(n)
    direct = [sum(f[i] * (1 - f[i + s]) for i in range(n) if 0 <= i + s < n) * 2 / n for s in range(-(n - 1), n)]
    assert np.allclose(P.values(f), direct, atol=1e-15)
    e = 1e-6
    J = np.array([(P.values(f + e * np.eye(n)[j]) - P.values(f - e * np.eye(n)[j])) / (2 * e) for j in range(n)]).T
    assert np.allclose(P.rows(f, np.arange(2 * n - 1)), J, atol=1e-8)
    assert np.allclose(P.linear(f, d), J @ d, atol=1e-8) and np.allclose(P.pullback(f, p), J.T @ p, atol=1e-8)


def test_admissible_integers_caps_heights_at_one_after_normalisation():
    from mathloop.targets.erdos_minimum_overlap.proposer import admissible_integers

    f = np.array([1.0, 1.0, 0.0, 0.0000000004])
    h = admissible_integers(f)
    assert all(len(h) * x <= 2 * sum(h) for x in h)


@pytest.mark.lean
def test_lean_kernel_accepts_the_claims_and_refuses_a_tampered_numerator():
    from mathloop.targets.erdos_minimum_overlap.lean_claims import numerators, overlap_lean
    from tests.support.step_lean import kernel_verdict

    a = [0, 2, 3, 3, 1, 0]
    N = numerators(a)
    v = overlap_value(a).value
    assert F(max(N), 2 * sum(a) ** 2) == v
    assert kernel_verdict(*overlap_lean(a, N, v)) is Verdict.PROVED
    N[2] += 1
    assert kernel_verdict(*overlap_lean(a, N, v)) is Verdict.REFUTED


def _overlap_pairs(n: int, seed: int):
    """Return the C1b claim sets to judge in the tree form for n random admissible heights: the true one, then
    one numerator off by one, and a wrong value."""
    from mathloop.targets.erdos_minimum_overlap.lean_claims import numerators, overlap_lean
    from mathloop.targets.sidon_autocorrelation.lean_claims import TREES

    rng = random.Random(seed)
    a = [rng.randrange(2**36, 2**37) for _ in range(n)]  # within a factor 2 of each other: n·max a <= 2·Σa
    N = numerators(a)
    v = F(max(N), 2 * sum(a) ** 2)
    off = list(N)
    off[n // 2] += 1
    return [overlap_lean(a, N, v, TREES), overlap_lean(a, off, v, TREES), overlap_lean(a, N, v + F(1, 10**30), TREES)]


@pytest.mark.lean
def test_tree_form_claims_are_proved_and_a_wrong_numerator_or_value_is_refused():
    from mathloop.targets.sidon_autocorrelation.lean_claims import TREE_SUPPORT
    from tests.support.step_lean import kernel_verdict

    verdicts = [kernel_verdict(d, c, TREE_SUPPORT) for d, c in _overlap_pairs(300, 3)]
    assert verdicts == [Verdict.PROVED, Verdict.REFUTED, Verdict.REFUTED]


@pytest.mark.lean
@pytest.mark.slow  # three kernel checks of 6000 steps: about a minute
def test_at_6000_steps_the_kernel_proves_the_overlap_and_refuses_a_wrong_numerator_or_value():
    from mathloop.targets.sidon_autocorrelation.lean_claims import TREE_SUPPORT
    from tests.support.step_lean import kernel_verdict

    verdicts = [kernel_verdict(d, c, TREE_SUPPORT) for d, c in _overlap_pairs(6000, 4)]
    assert verdicts == [Verdict.PROVED, Verdict.REFUTED, Verdict.REFUTED]


@pytest.mark.lean
@pytest.mark.parametrize("name,payload", [("erdos-minimum-overlap", {"heights": ["0", "1/2", "1", "1", "1/2", "0"]}),
                                          ("sidon-autocorrelation", {"heights": ["1", "1/3", "2", "0", "1"]})])
def test_rendered_commit_is_checked_by_the_kernel_and_certifies_the_commits_bound(name, payload):
    from mathloop.lean.check import check_source
    from mathloop.lean.commit import check_commit
    from mathloop.lean.toolchain import discover

    tc = discover()
    if not tc.available:
        pytest.skip(f"no Lean here: {tc.reason}")
    t = build_target(load_contract(shipped(name)))
    ev = check(t, payload)
    rendered = t.lean_render("ab" * 32, ev)
    assert rendered is not None and rendered.bounds == {t.bound_name: ev.bounds[t.bound_name]}
    assert check_source(rendered.standalone_source()).verdict is Verdict.PROVED
    out = check_commit(t, "ab" * 32, ev, toolchain=tc)
    assert out.status == "checked", out.reasons


@pytest.mark.parametrize("name,payload", [("erdos-minimum-overlap", {"heights": ["0", "1/2", "1", "1", "1/2", "0"]}),
                                          ("sidon-autocorrelation", {"heights": ["1", "1/3", "2", "0", "1"]})])
def test_a_commit_claiming_another_bound_is_refuted_before_lean_runs(name, payload):
    import dataclasses

    from mathloop.lean.commit import check_commit

    t = build_target(load_contract(shipped(name)))
    ev = check(t, payload)
    forged = dataclasses.replace(ev, bounds={t.bound_name: ev.bounds[t.bound_name] - F(1, 1000)})
    out = check_commit(t, "ab" * 32, forged)
    assert out.status == "refuted" and out.attestation.kind == "render", out.reasons
    assert f"certified {t.bound_name} does not equal" in out.reasons[0]


def test_exported_certificates_reverify_and_a_tampered_file_is_refused(target, tmp_path):
    import json as _json

    from mathloop.targets.base import ChainCheck

    chain = [("a" * 64, check(target, target.seed_payload())),
             ("b" * 64, check(target, {"heights": ["0", "1/2", "1", "1", "1/2", "0"]}))]
    manifest = target.export_certificates(chain, tmp_path)
    read = lambda p: _json.loads(p.read_text())
    ok = target.verify_certificate_chain(manifest, read)
    assert isinstance(ok, ChainCheck) and not ok.reasons and len(ok.evidences) == 2 == ok.files
    second = sorted(tmp_path.glob("cert-*.json"))[1]
    env = read(second)
    env["candidate"]["heights"][2] = "9/10"
    second.write_text(_json.dumps(env))
    bad = target.verify_certificate_chain(manifest, read)
    assert bad.reasons and "sha256" in bad.reasons[0]
