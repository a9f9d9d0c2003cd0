"""Adversarial tests of the pair-correlation and pair-correlation-rh checkers.

Positivity is attacked at its edges (touching zeros, roots at and just outside the interval
ends, near-double roots, sign changes of 10^-40) and differentially against an independent
sympy Sturm count; the functionals are compared with independent exact integrals. The defects
found in review (zero/tiny mass, tiny scale, mixed key types) are fixed; their tests pin the fixes.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
import sympy

from mathloop.targets import load_contract
from mathloop.domain import Verdict
from mathloop.targets import build_target
from mathloop.targets.base import Malformed
from mathloop.targets.positivity import certify_nonnegative


@pytest.fixture(scope="module")
def pc():
    return build_target(load_contract("pair-correlation"))


@pytest.fixture(scope="module")
def rh():
    return build_target(load_contract("pair-correlation-rh"))


def _check(t, payload):
    ev = t.check(None, t.parse(payload))
    return ev, {r.id: r.verdict for r in ev.results}


def _mul(a, b):
    out = [F(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _from_roots(lead: F, roots: list[tuple[F, int]]) -> list[F]:
    """Return lead·Π(u − r)^e as coefficients in u (lowest first)."""
    p = [F(lead)]
    for r, e in roots:
        for _ in range(e):
            p = _mul(p, [-r, F(1)])
    return p


def _g(coeffs) -> dict:
    return {"g": [str(F(c)) for c in coeffs]}


# ================================================================ pair-correlation: parser


@pytest.mark.parametrize(
    "bad",
    ["1e2", "1E2", "1_0", "١", "１", " 1", "1 ", "1\n", "0x1", "nan", "inf", "", ".", "+", "--1", "+-1", "1/-2",
     "1/0", "0/0", "1//2", "1.5/2", "½", "1" * 121, True, None, 1, 1.5, ["1"], {"a": "1"}],
)
def test_pc_parser_refuses_non_canonical_numbers(pc, bad):
    with pytest.raises(Malformed, match=r"^g\[0\]:"):
        pc.parse({"g": [bad]})


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"g": []}, "g"),
        ({"g": "1"}, "g"),
        ({"g": ["1"] * 17}, "g"),
        ({}, "g"),
        ({"g": ["1"], "h": "1"}, "h"),
        (["1"], "payload"),
        ('{"g": ["1"]}', "payload"),
        (None, "payload"),
    ],
)
def test_pc_parser_refuses_malformed_shapes(pc, payload, field):
    with pytest.raises(Malformed, match="^" + field + ":"):
        pc.parse(payload)


def test_pc_parser_refuses_mixed_type_keys_as_malformed(pc):
    with pytest.raises(Malformed):
        pc.parse({1: "x", "a": "y", "g": ["1"]})


@pytest.mark.parametrize("spelling", [["+1"], ["01"], ["1."], ["1.0"], ["2/2"], ["1", "0", "-0", "0/3"]])
def test_pc_equivalent_spellings_give_byte_identical_evidence(pc, spelling):
    ref = pc.check(None, pc.parse({"g": ["1"]}))
    ev = pc.check(None, pc.parse({"g": spelling}))
    assert ev.canonical_bytes() == ref.canonical_bytes()
    assert ev.bounds == {"proportion": F(2, 3)}


# ================================================================ pair-correlation: positivity pairs (in u = x²)

_PAIRS = [
    # (should prove g >= 0, should refute) — each refutation is the smallest change that breaks it
    ([F(1, 4), F(-1)], [F(1, 4), F(-1000000001, 10**9)]),  # 1/4 − x² touches 0 at x = ±1/2
    (_from_roots(F(1), [(F(1, 8), 2)]), [F(1, 64) - F(1, 10**40), F(-1, 4), F(1)]),  # (x² − 1/8)² − 10^-40
    ([F(0), F(1)], [F(0), F(-1)]),  # ±x² (root at the left end u = 0)
    (_from_roots(F(1), [(F(0), 3)]), _from_roots(F(-1), [(F(0), 3)])),  # ±x⁶: odd multiplicity at u = 0
    (_from_roots(F(-1), [(F(1, 4), 3)]), _from_roots(F(1), [(F(1, 4), 3)])),  # ∓(u − 1/4)³: odd root at u = 1/4
    (_from_roots(F(1), [(F(1, 4), 2)]), _from_roots(F(-1), [(F(1, 4), 2)])),  # ±(u − 1/4)²
    (_from_roots(F(-1), [(F(1, 4) + F(1, 10**30), 1)]), _from_roots(F(-1), [(F(1, 4) - F(1, 10**30), 1)])),  # root just outside / inside
    (_from_roots(F(1), [(F(-1, 10**30), 1)]), _from_roots(F(1), [(F(1, 10**30), 1)])),  # root just left of 0 / just right
    (_from_roots(F(1), [(F(0), 1), (F(1, 8), 2)]), _from_roots(F(1), [(F(0), 1), (F(1, 8), 3)])),  # u(u−1/8)² vs u(u−1/8)³
    (_from_roots(F(-1), [(F(0), 1), (F(1, 4), 1)]), _from_roots(F(1), [(F(0), 1), (F(1, 4), 1)])),  # ∓u(u − 1/4): roots at both ends
    (
        [c + (F(1, 10**8) if i == 0 else 0) for i, c in enumerate(_from_roots(F(1), [(F(k, 32), 2) for k in range(1, 5)]))],
        [c - (F(1, 10**30) if i == 0 else 0) for i, c in enumerate(_from_roots(F(1), [(F(k, 32), 2) for k in range(1, 5)]))],
    ),  # four double roots lifted by 10^-8 / lowered by 10^-30
    ([F(1)] + [F(0)] * 14 + [F(1, 10**40)], [F(1)] + [F(0)] * 14 + [F(-1, 10**40)]),  # 1 ± 10^-40 u^15: both >= 0 on [0, 1/4]
]


@pytest.mark.parametrize("good, bad", _PAIRS[:-1])
def test_pc_positivity_proves_the_touching_case_and_refutes_the_perturbed_one(pc, good, bad):
    ev, v = _check(pc, _g(good))
    assert v["g-nonnegative"] is Verdict.PROVED, ev.results
    ev, v = _check(pc, _g(bad))
    assert v["g-nonnegative"] is Verdict.REFUTED
    assert "proportion" not in ev.bounds


def test_pc_tiny_negative_top_coefficient_is_still_nonnegative_on_the_interval(pc):
    good, other = _PAIRS[-1]
    for coeffs in (good, other):  # 1 − 10^-40·u^15 >= 0 on [0, 1/4]: refuting it would be wrong too
        _, v = _check(pc, _g(coeffs))
        assert v["g-nonnegative"] is Verdict.PROVED


def test_pc_unresolvable_root_cluster_is_unknown_and_certifies_nothing(pc):
    # two simple roots 10^-55 apart: g < 0 between them; refuted or UNKNOWN, never PROVED
    coeffs = _from_roots(F(1), [(F(1, 10), 1), (F(1, 10) + F(1, 10**55), 1)])
    ev, v = _check(pc, _g(coeffs))
    assert v["g-nonnegative"] is not Verdict.PROVED
    assert "proportion" not in ev.bounds


def _sturm_truth(coeffs, lo, hi) -> bool:
    """Return whether p >= 0 on [lo, hi], decided by sympy (square-free parts + real root counts)."""
    u = sympy.Symbol("u")
    p = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in reversed(coeffs)], u)
    if p.is_zero:
        return True
    lo_, hi_ = sympy.Rational(lo.numerator, lo.denominator), sympy.Rational(hi.numerator, hi.denominator)
    _, facs = p.sqf_list()
    odd = sympy.Poly(1, u)
    for f, e in facs:
        if e % 2:
            odd *= f
    if odd.degree() > 0:
        inside = odd.count_roots(lo_, hi_) - (odd.eval(lo_) == 0) - (odd.eval(hi_) == 0)
        if inside > 0:
            return False
    for k in range(1, 64):
        v = p.eval(lo_ + (hi_ - lo_) * sympy.Rational(k, 64))
        if v != 0:
            return bool(v > 0)
    raise AssertionError("unreachable")


@pytest.mark.parametrize("lo, hi, seed", [(F(0), F(1, 4), 1), (F(-1), F(1), 2)])
def test_positivity_agrees_with_an_independent_sturm_count_on_adversarial_polynomials(lo, hi, seed):
    rnd = random.Random(seed)

    def root():
        r = rnd.random()
        if r < 0.3:
            return rnd.choice([lo, hi])
        if r < 0.55:
            return rnd.choice([lo, hi]) + F(rnd.choice([-1, 1]), 10 ** rnd.randint(1, 30))
        return lo + (hi - lo) * F(rnd.randint(-100, 1100), 1000)

    checked = 0
    for _ in range(250):
        p = _from_roots(F(rnd.choice([-1, 1]) * rnd.randint(1, 5), rnd.randint(1, 5)), [(root(), rnd.randint(1, 3)) for _ in range(rnd.randint(0, 4))])
        if rnd.random() < 0.3:
            i = rnd.randrange(len(p))
            p[i] += F(rnd.choice([-1, 1]), 10 ** rnd.randint(1, 40))
        rep = certify_nonnegative(p, lo, hi)
        if rep.status == "unknown":
            continue
        checked += 1
        assert (rep.status == "nonnegative") == _sturm_truth(p, lo, hi), [str(c) for c in p]
    assert checked >= 200


# ================================================================ pair-correlation: the functional


def _m_sympy(even_coeffs) -> sympy.Rational:
    """Return M(g) = (∫g² + ∬|x−y|g(x)g(y)) / C² by exact sympy integration (own code path)."""
    x, y = sympy.symbols("x y")
    g = sum(sympy.Rational(c.numerator, c.denominator) * x ** (2 * k) for k, c in enumerate(even_coeffs))
    gy = g.subs(x, y)
    h = sympy.Rational(1, 2)
    C = sympy.integrate(g, (x, -h, h))
    cross = 2 * sympy.integrate(sympy.integrate((x - y) * g * gy, (y, -h, x)), (x, -h, h))
    return (sympy.integrate(g * g, (x, -h, h)) + cross) / C**2


@pytest.mark.parametrize(
    "coeffs, expected",
    [
        (["1"], F(2, 3)),
        (["29", "-28"], F(269, 400)),
        (["3241", "-3240", "528"], F(26282, 39081)),
        (["1/4", "-1"], None),
        (["7", "-3", "-100", "250"], None),
    ],
)
def test_pc_bound_matches_an_independent_double_integral(pc, coeffs, expected):
    ev, v = _check(pc, {"g": coeffs})
    cs = [F(c) for c in coeffs]
    B = 2 - _m_sympy(cs)
    if v["g-nonnegative"] is Verdict.PROVED:
        assert ev.bounds["proportion"] == F(int(B.p), int(B.q))
    else:
        assert "proportion" not in ev.bounds
    if expected is not None:
        assert ev.bounds["proportion"] == expected


@pytest.mark.parametrize("scale", ["1/1000000000000000", "7/3", "1000000000000000000000000000000"])
def test_pc_bound_is_scale_invariant(pc, scale):
    s = F(scale)
    ev, _ = _check(pc, _g([s * 29, s * -28]))
    assert ev.bounds["proportion"] == F(269, 400)


@pytest.mark.parametrize("scale", ["1/100000000000000000000", "1/1000000000000000000000000000000"])
def test_pc_tiny_scale_does_not_crash_the_cross_check(pc, scale):
    s = F(scale)
    ev, _ = _check(pc, _g([s * 29, s * -28]))
    assert ev.bounds["proportion"] == F(269, 400)


def test_pc_sign_changing_g_with_zero_mass_is_refuted_without_a_crash(pc):
    ev, v = _check(pc, {"g": ["1", "-12"]})  # ∫(1 − 12x²) = 0 and g < 0 near ±1/2
    assert v["mass-nonzero"] is Verdict.REFUTED and v["g-nonnegative"] is Verdict.REFUTED
    assert ev.bounds == {}


def test_pc_negative_g_with_a_better_functional_value_certifies_nothing(pc):
    # g = 1 − 5x² is negative near ±1/2 yet has a finite B: the bound must stay out
    ev, v = _check(pc, {"g": ["1", "-5"]})
    assert v["g-nonnegative"] is Verdict.REFUTED
    assert ev.bounds == {}


# ================================================================ pair-correlation-rh

RH_SEED = {"h": "1/5", "A": "2", "nodes": ["10039/10000", "8901/10000", "6374/10000", "3708/10000", "1422/10000", "0", "-312/10000", "-113/10000", "0", "0"]}


def test_rh_reference_value(rh):
    ev, v = _check(rh, RH_SEED)
    assert ev.bounds == {"proportion": F(101248, 149997)}


@pytest.mark.parametrize(
    "payload, field",
    [
        ({**RH_SEED, "h": "1e-1"}, "h"),
        ({**RH_SEED, "h": "١/5"}, "h"),
        ({**RH_SEED, "h": "0"}, "h"),
        ({**RH_SEED, "h": "-1/5"}, "h"),
        ({**RH_SEED, "h": "1/201"}, "h"),
        ({**RH_SEED, "A": "81/10"}, "A"),
        ({**RH_SEED, "A": "21/10"}, "A"),  # A/h not an integer
        ({**RH_SEED, "nodes": RH_SEED["nodes"][:-1]}, "nodes"),
        ({**RH_SEED, "nodes": RH_SEED["nodes"] + ["0"]}, "nodes"),
        ({**RH_SEED, "nodes": ["1" * 41] + RH_SEED["nodes"][1:]}, "nodes[0]"),
        ({**RH_SEED, "h": 0.2}, "h"),
        ({**RH_SEED, "extra": "1"}, "extra"),
        ({"h": "1/200", "A": "4", "nodes": ["1"] * 800}, "nodes"),  # A/h = 800 > max_nodes
    ],
)
def test_rh_parser_refuses_bad_grids_and_numbers(rh, payload, field):
    with pytest.raises(Malformed, match="^" + field.replace("[", r"\[").replace("]", r"\]") + ":"):
        rh.parse(payload)


@pytest.mark.parametrize(
    "good, bad",
    [
        # P(θ) = 1 + cos θ >= 0 touches 0 at θ = π; 1 + (1 + 2·10^-15) cos θ dips below
        ({"h": "1/2", "A": "1", "nodes": ["1", "1/2"]}, {"h": "1/2", "A": "1", "nodes": ["1", "500000000000001/1000000000000000"]}),
        # Fejér kernel N = 3 (double zero at cos θ = −1/2) versus its c₂ raised by 10^-15
        ({"h": "1/3", "A": "1", "nodes": ["1", "2/3", "1/3"]}, {"h": "1/3", "A": "1", "nodes": ["1", "2/3", "333333333333334/1000000000000000"]}),
        # Fejér lifted by 10^-15 (near-double complex roots) stays positive; lowered, it is negative
        ({"h": "1/3", "A": "1", "nodes": ["1000000000000001/1000000000000000", "2/3", "1/3"]}, {"h": "1/3", "A": "1", "nodes": ["999999999999999/1000000000000000", "2/3", "1/3"]}),
    ],
)
def test_rh_cosine_positivity_proves_touching_and_refutes_perturbed(rh, good, bad):
    ev, v = _check(rh, good)
    assert v["r-nonnegative"] is Verdict.PROVED and "proportion" in ev.bounds
    ev, v = _check(rh, bad)
    assert v["r-nonnegative"] is Verdict.REFUTED and ev.bounds == {}


@pytest.mark.parametrize(
    "payload, where",
    [
        ({"h": "2", "A": "2", "nodes": ["1"]}, "alpha = 1"),  # r̂(1) = 1/2 inside one long segment
        ({"h": "3/10", "A": "3/2", "nodes": ["1", "1", "1", "1", "-1"]}, "alpha = 1"),  # nodes .9 → 1, 1.2 → −1: r̂(1) = 1/3
        ({"h": "1/3", "A": "4/3", "nodes": ["1", "1", "1", "1/100"]}, "node j = 3"),  # node exactly at α = 1
    ],
)
def test_rh_tail_positive_anywhere_in_one_to_a_is_refuted(rh, payload, where):
    ev, v = _check(rh, payload)
    assert v["rhat-nonpositive-tail"] is Verdict.REFUTED
    assert where in " ".join(r for res in ev.results for r in res.reasons)
    assert ev.bounds == {}


def test_rh_tail_that_only_touches_zero_is_accepted(rh):
    ev, v = _check(rh, {"h": "1/2", "A": "2", "nodes": ["1", "1/2", "0", "0"]})
    assert v["rhat-nonpositive-tail"] is Verdict.PROVED


def _rh_exact_sympy(h: F, nodes: list[F]) -> sympy.Rational:
    """Return B = 2 − (r̂(0) + ∫_{-1}^{1}|α|r̂)/∫r̂ by sympy Piecewise integration (own code path)."""
    a = sympy.Symbol("a", real=True)
    H = sympy.Rational(h.numerator, h.denominator)
    cs = [sympy.Rational(c.numerator, c.denominator) for c in nodes] + [0]
    pieces = [(cs[j] + (cs[j + 1] - cs[j]) * (a - j * H) / H, a < (j + 1) * H) for j in range(len(nodes))]
    rhat = sympy.Piecewise(*pieces, (0, True))
    mass = 2 * sympy.integrate(rhat, (a, 0, len(nodes) * H))  # r̂ even: ∫_R r̂ = 2∫_0^A r̂
    moment = 2 * sympy.integrate(a * rhat, (a, 0, 1))
    return 2 - (cs[0] + moment) / mass


@pytest.mark.parametrize(
    "payload",
    [
        RH_SEED,
        {"h": "3/10", "A": "3", "nodes": ["1", "4/5", "1/2", "1/5", "-1/10", "-1/10", "-1/20", "0", "0", "0"]},
        {"h": "2", "A": "4", "nodes": ["1", "-1/10"]},
    ],
)
def test_rh_functional_matches_an_independent_piecewise_integral(rh, payload):
    c = rh.parse(payload)
    from mathloop.targets.pair_correlation_rh.functional import rh_functional

    f = rh_functional(c.h, c.A, c.nodes)
    B = _rh_exact_sympy(c.h, list(c.nodes))
    assert f.B == F(int(B.p), int(B.q))


def test_rh_zero_mass_is_refuted_not_a_crash(rh):
    ev, v = _check(rh, {"h": "1/2", "A": "1", "nodes": ["1", "-1/2"]})
    assert v["mass-positive"] is Verdict.REFUTED and ev.bounds == {}


def test_rh_tiny_negative_mass_is_refuted_not_a_crash(rh):
    ev, v = _check(rh, {"h": "1/2", "A": "1", "nodes": ["1", "-500000001/1000000000"]})
    assert v["mass-positive"] is Verdict.REFUTED and ev.bounds == {}


def test_rh_tiny_positive_mass_certifies_without_a_crash(rh):
    ev, v = _check(rh, {"h": "1/2", "A": "1", "nodes": ["1", "-499999999999/1000000000000"]})
    assert v["r-nonnegative"] is Verdict.PROVED and ev.bounds["proportion"] < -10**11
