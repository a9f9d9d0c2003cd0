"""Adversarial tests of the Levinson–Conrey checkers: parser, admissibility, certificate, cross-check.

Every certified κ is compared with an independent mpmath evaluation of the double integral (no
shared code with closed_form), and every should-reject input is paired with a should-prove one.
The defects found in review (duplicate keys, lone surrogates, c <= 0 and non-admissible inputs
in the certificate helpers) are fixed; their tests pin the fixes.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from math import comb

import mpmath
import pytest

from mathloop.targets import load_contract
from mathloop.domain import Verdict
from mathloop.targets import build_target
from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey.certificate import GRID, build_certificate, verify_certificate
from mathloop.targets.levinson_conrey.closed_form import closed_form
from mathloop.targets.levinson_conrey.taylor import exp_lower, exp_upper, order_for, taylor_remainder

CONREY_RANGE = F(4, 7)  # theta_sup of the levinson-conrey contract (Conrey 1989)

SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}


@pytest.fixture(scope="module")
def lc():
    return build_target(load_contract("levinson-conrey"))


@pytest.fixture(scope="module")
def lev():
    return build_target(load_contract("levinson"))


def _payload(P, Q, R) -> dict:
    return {"P": [str(x) for x in P], "Q": [str(x) for x in Q], "R": str(R)}


def _sym_q(cs: dict[int, F]) -> list[F]:
    """Return Q = 1 − Σc_k + Σ_{k odd} c_k (1 − 2x)^k: Q(0) = 1 and Q(x) + Q(1 − x) constant."""
    deg = max(cs)
    Q = [F(0)] * (deg + 1)
    Q[0] += 1 - sum(cs.values())
    for k, c in cs.items():
        for j in range(k + 1):
            Q[j] += c * comb(k, j) * (-2) ** j
    return Q


def _kappa_independent(P, Q, R: F, theta: F, dps: int = 40) -> mpmath.mpf:
    """Return 1 − log(c)/R with c from the double integral by mpmath quadrature (own code path)."""
    with mpmath.workdps(dps):
        mp = lambda q: mpmath.mpf(q.numerator) / q.denominator  # noqa: E731
        Pm, Qm, Rm, th = [mp(x) for x in P], [mp(x) for x in Q], mp(R), mp(theta)

        def ev(c, x):
            return mpmath.fsum(ci * x**i for i, ci in enumerate(c))

        def dv(c, x):
            return mpmath.fsum(i * ci * x ** (i - 1) for i, ci in enumerate(c) if i)

        # ∫₀¹ (P'(u)A + θP(u)B)² du = A²∫P'² + 2θAB∫P'P + θ²B²∫P², the u-moments by quadrature
        i_pp = mpmath.quad(lambda u: dv(Pm, u) ** 2, [0, 1])
        i_pq = mpmath.quad(lambda u: dv(Pm, u) * ev(Pm, u), [0, 1])
        i_qq = mpmath.quad(lambda u: ev(Pm, u) ** 2, [0, 1])

        def inner(v):
            A, B = ev(Qm, v), dv(Qm, v) + Rm * ev(Qm, v)
            return mpmath.exp(2 * Rm * v) * (A * A * i_pp + 2 * th * A * B * i_pq + th * th * B * B * i_qq)

        c = 1 + mpmath.quad(inner, [0, mpmath.mpf(1) / 2, 1]) / th
        return 1 - mpmath.log(c) / Rm


def _kappa(t, payload) -> F | None:
    return t.check(None, t.parse(payload)).bounds.get("kappa")


def _verdicts(t, payload) -> dict[str, Verdict]:
    return {r.id: r.verdict for r in t.check(None, t.parse(payload)).results}


# ---------------------------------------------------------------- contract loading


@pytest.mark.parametrize("name", ["levinson-conrey", "levinson"])
def test_shipped_levinson_contracts_load(name):
    # regression: at 2e0b084 config.settings() required the optional limit default_budget
    assert load_contract(name).sha256


# ---------------------------------------------------------------- parser


@pytest.mark.parametrize(
    "bad",
    [
        "1_0", "١", "١٢", "１", "𝟏", " 1", "1 ", "1\n", "\t1", "0x1", "0b1", "1j", "nan", "NaN", "inf", "-inf",
        "Infinity", "", ".", "+", "-", "+-1", "--1", "1/-2", "-1/-2", "1//2", "1.5/2", "1/2.5", "1/0", "0/0",
        "1e00000", "1e31", "1e-31", "1e999999", "1 / 2", "½", "1,5", "1e", "e1", "1.2.3",
        "1" * 65, "0." + "0" * 62 + "1",
    ],
)
def test_parser_refuses_every_non_canonical_number_spelling(lc, bad):
    with pytest.raises(Malformed, match=r"^P\[1\]:"):
        lc.parse({"P": ["0", bad], "Q": ["1", "-1"], "R": "13/10"})


@pytest.mark.parametrize("bad", [True, False, None, 1, 1.0, ["1"], {"1": "1"}, b"1"])
def test_parser_refuses_non_string_numbers(lc, bad):
    with pytest.raises(Malformed, match=r"^P\[1\]:"):
        lc.parse({"P": ["0", bad], "Q": ["1", "-1"], "R": "13/10"})


@pytest.mark.parametrize(
    "payload, field",
    [
        ([SEED], "payload"),
        ("[]", "payload"),
        ('"P"', "payload"),
        ("null", "payload"),
        ('{"P": ["0", 1], "Q": ["1", "-1"], "R": "13/10"}', "payload"),  # JSON number in text
        ('{"P": ["0", "1"], "Q": ["1", "-1"], "R": NaN}', "payload"),
        ('{"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"', "payload"),  # truncated
        (b"\xff\xfe", "payload"),
        ({"P": ["0", "1"], "Q": ["1", "-1"]}, "R"),
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10", "theta": "0.9"}, "theta"),
        ({"P": [], "Q": ["1", "-1"], "R": "13/10"}, "P"),
        ({"P": "0,1", "Q": ["1", "-1"], "R": "13/10"}, "P"),
        ({"P": [["0", "1"]], "Q": ["1", "-1"], "R": "13/10"}, "P[0]"),
        ({"P": ["0", "1"] + ["0"] * 12, "Q": ["1", "-1"], "R": "13/10"}, "P"),  # 14 entries, even if trailing zeros
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": ["13/10"]}, "R"),
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": "100000000000000001/10000000000000000"}, "R"),  # > 10
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": "1000000000000001/100000000000000"}, "R"),  # numerator > 10^15
    ],
)
def test_parser_refuses_malformed_payload_shapes(lc, payload, field):
    with pytest.raises(Malformed) as e:
        lc.parse(payload)
    assert str(e.value).startswith(field + ":") or str(e.value).startswith(field + "["), str(e.value)


def test_parser_accepts_r_exactly_at_the_limit_and_refuses_just_above(lc):
    assert lc.parse({**SEED, "R": "10"}).R == 10
    assert lc.parse({**SEED, "R": "1e1"}).R == 10
    with pytest.raises(Malformed, match="^R:"):
        lc.parse({**SEED, "R": "10.000000000000001"})


@pytest.mark.parametrize(
    "P, Q, R",
    [
        (["0", "+1"], ["1", "-1"], "13/10"),
        (["-0", "001"], ["+1", "-1.0"], "1.3"),
        (["0/5", "10/10"], ["1.", "-1e0"], "13e-1"),
        (["0", "1", "0", "0"], ["1", "-1", "0"], "+130/100"),  # trailing zeros normalised away
        (["0.0", "1.000"], ["1E0", "-.1e1"], "0013/10"),
    ],
)
def test_equivalent_spellings_give_byte_identical_evidence(lc, P, Q, R):
    ref = lc.check(None, lc.parse(SEED))
    ev = lc.check(None, lc.parse({"P": P, "Q": Q, "R": R}))
    assert ev.state == ref.state == {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}
    assert ev.canonical_bytes() == ref.canonical_bytes()


def test_json_text_and_dict_payloads_agree(lc):
    assert lc.parse(json.dumps(SEED)) == lc.parse(SEED) == lc.parse(json.dumps(SEED).encode())


def test_duplicate_json_keys_are_refused(lc):
    with pytest.raises(Malformed):
        lc.parse('{"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10", "R": "1"}')


def test_lone_surrogate_text_payload_is_malformed_not_a_crash(lc):
    with pytest.raises(Malformed):
        lc.parse('{"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}\ud800')


# ---------------------------------------------------------------- admissibility pairs

EPS = F(1, 10**15)


@pytest.mark.parametrize(
    "bad, good, obligation",
    [
        # P(0) = ε ≠ 0 / P(0) = 0
        ((["1/1000000000000000", "999999999999999/1000000000000000"], ["1", "-1"]), (["0", "1"], ["1", "-1"]), "p-at-zero"),
        # P(1) = 1 + ε / P(1) = 1 (the cancelling higher coefficients make P(1) exactly 1)
        ((["0", "1", "1/1000000000000000"], ["1", "-1"]), (["0", "1", "1/1000000000000000", "-1/1000000000000000"], ["1", "-1"]), "p-at-one"),
        # Q(0) = 1 − ε
        ((["0", "1"], ["999999999999999/1000000000000000", "-999999999999999/1000000000000000"]), (["0", "1"], ["1", "-1"]), "q-at-zero"),
        # Q = 1 − x + ε(x² − x): Q(x)+Q(1−x) = 1 + 2ε(x² − x), not constant; versus the symmetric cubic 1 − 3x² + 2x³
        ((["0", "1"], ["1", "-100000000000001/100000000000000", "1/100000000000000"]), (["0", "1"], ["1", "0", "-3", "2"]), "q-symmetric"),
        # Q = 1 − 2x + ε x³ breaks symmetry only in the top coefficient
        ((["0", "1"], ["1", "-2", "0", "1/1000000000000000"]), (["0", "1"], ["1", "-2"]), "q-symmetric"),
        # Q even about 1/2 (Q = 1 − 4x + 4x²: Q(x) = Q(1−x)) is NOT admissible: Q(x)+Q(1−x) = 2Q(x)
        ((["0", "1"], ["1", "-4", "4"]), (["0", "1"], ["1", "-4", "6", "-4"]), "q-symmetric"),
    ],
)
def test_admissibility_refuses_epsilon_violations_and_proves_the_exact_case(lc, bad, good, obligation):
    vb = _verdicts(lc, {"P": bad[0], "Q": bad[1], "R": "13/10"})
    assert vb[obligation] is Verdict.REFUTED
    ev_bad = lc.check(None, lc.parse({"P": bad[0], "Q": bad[1], "R": "13/10"}))
    assert "kappa" not in ev_bad.bounds
    ev_good = lc.check(None, lc.parse({"P": good[0], "Q": good[1], "R": "13/10"}))
    assert all(r.verdict is Verdict.PROVED for r in ev_good.results if r.id != "kappa-bound")
    assert "kappa" in ev_good.bounds


@pytest.mark.parametrize("R", ["0", "-0", "-1/1000000000000000", "-10", "0.0", "0/7"])
def test_nonpositive_r_is_refuted_and_certifies_nothing(lc, R):
    ev = lc.check(None, lc.parse({**SEED, "R": R}))
    assert {r.id: r.verdict for r in ev.results}["r-positive"] is Verdict.REFUTED
    assert ev.bounds == {}


def test_smallest_positive_r_is_admissible(lc):
    ev = lc.check(None, lc.parse({**SEED, "R": "1/1000000000000000"}))
    assert {r.id: r.verdict for r in ev.results}["r-positive"] is Verdict.PROVED
    assert ev.bounds["kappa"] < -10**14  # κ ≈ −2.42·10^14: a true (useless) bound


# ---------------------------------------------------------------- certified κ vs an independent evaluation

_CANDIDATES = [
    (["0", "1"], ["1", "-1"], "13/10"),
    (["0", "1"], ["1", "-1"], "1/1000000000000000"),
    (["0", "1"], ["1", "-1"], "10"),
    (["0", "1"], ["1", "-1"], "1/3"),
    (["0", "1"], [str(x) for x in _sym_q({1: F(516, 1000), 3: F(-8, 1000)})], "1246/1000"),
    (["0", "1", "-1/3", "1/3"], ["1", "0", "-3", "2"], "7/3"),
    (["0", "999999999999999/1000000000000000", "1/1000000000000000"], [str(x) for x in _sym_q({1: F(1, 2), 11: F(1, 999999999989)})], "999999999999999/100000000000000"),
    (["0", "5", "-20", "25", "-9"], [str(x) for x in _sym_q({1: F(3, 5), 3: F(-1, 7), 5: F(1, 11)})], "1/10"),
    (["0", "1", "-1000000000000000", "1000000000000000"], ["1", "-1"], "13/10"),  # huge cancelling P
]


@pytest.mark.parametrize("P, Q, R", _CANDIDATES)
def test_certified_kappa_is_below_and_within_one_grid_step_of_an_independent_quadrature(lc, P, Q, R):
    k0 = _kappa(lc, {"P": P, "Q": Q, "R": R})
    assert k0 is not None and (k0 / GRID).denominator == 1, "k0 must lie on the 10^-12 grid"
    theta = lc.settings.theta
    kq = _kappa_independent([F(x) for x in P], [F(x) for x in Q], F(R), theta)
    with mpmath.workdps(40):
        k0m = mpmath.mpf(k0.numerator) / k0.denominator
        assert k0m <= kq, f"UNSOUND: certified {k0} > independent κ {kq}"
        # largest grid point: the next one up is above κ (allow 10^-20 relative slack for the quadrature)
        assert kq - k0m < mpmath.mpf(GRID.numerator) / GRID.denominator * (1 + abs(kq) * mpmath.mpf(10) ** -8)


def test_levinson_contract_reference_value(lev):
    k0 = _kappa(lev, SEED)
    assert k0 == F(342735254170, 10**12)  # issue 2: 0.3427352541702084852… floored to the grid


def test_theta_comes_from_the_contract_not_the_payload(lc):
    with pytest.raises(Malformed):
        lc.parse({**SEED, "theta": "999/1000"})


# ---------------------------------------------------------------- the certificate on synthetic (a, b), both signs of b

_SYNTH = [
    (F(10), F(-1), F(1)),  # b < 0: c = 10 − e² ≈ 2.61, the lower Taylor bound of e^{2R} must be used
    (F(3), F(-1, 10**9), F(10)),  # b < 0 at R = 10: c = 3 − e^{20}/10^9 ≈ 2.515
    (F(-302021, 263640), F(6845, 26364), F(13, 10)),  # issue 2 reference (a < 0, b > 0)
    (F(1), F(1, 10**20), F(10)),  # c just above 1: κ ≈ 1 − tiny
    (F(1), F(0), F(1, 10**15)),  # c = 1 exactly: κ = 1
]


@pytest.mark.parametrize("a, b, R", _SYNTH)
def test_certificate_proves_the_grid_floor_and_refuses_the_next_grid_point(a, b, R):
    theta = F(1, 2)
    with mpmath.workdps(80):
        c = mpmath.mpf(a.numerator) / a.denominator + mpmath.mpf(b.numerator) / b.denominator * mpmath.exp(2 * mpmath.mpf(R.numerator) / R.denominator)
        kappa = 1 - mpmath.log(c) / (mpmath.mpf(R.numerator) / R.denominator)
        floor = int(mpmath.floor(kappa * 10**12))
    k_lo, k_hi = F(floor, 10**12), F(floor + 1, 10**12)
    cert = build_certificate((F(0), F(1)), (F(1), F(-1)), R, theta, a, b, k_lo)
    if k_hi <= 1:
        assert build_certificate((F(0), F(1)), (F(1), F(-1)), R, theta, a, b, k_hi) is None, "UNSOUND: proved κ >= k above κ"
    if kappa == 1:  # c = 1: only k0 = 1 itself, which the certificate proves with equality of sides
        return
    assert cert is not None
    assert cert["exp_2R"]["side"] == ("upper" if b >= 0 else "lower")
    assert int(cert["N1"]) <= int(cert["N2"])


def test_certificate_refuses_k0_above_one():
    with pytest.raises(ValueError):
        build_certificate((F(0), F(1)), (F(1), F(-1)), F(1), F(1, 2), F(1), F(0), F(1) + GRID)


def test_certificate_refuses_nonpositive_c():
    assert build_certificate((F(0), F(1)), (F(1), F(-1)), F(1), F(1, 2), F(-1), F(0), F(1)) is None


def test_verify_certificate_refuses_non_admissible_inputs():
    P, Q, R, theta = (F(1), F(0)), (F(1), F(-1)), F(13, 10), F(9, 10)  # P(0) = 1 and θ = 9/10 >= 4/7
    cf = closed_form(P, Q, R, theta)
    cert = build_certificate(P, Q, R, theta, cf.a, cf.b, F(-10))
    assert cert is not None
    assert verify_certificate(cert, CONREY_RANGE) is False


def test_verify_certificate_refuses_a_tampered_taylor_order(lc):
    ev = lc.check(None, lc.parse(SEED))
    cert = json.loads(json.dumps(ev.artifacts["certificate"], default=str))
    assert verify_certificate(cert, CONREY_RANGE)
    bad = json.loads(json.dumps(cert))
    bad["exp_2R"]["n"] = 0  # x = 13/5 >= n + 2: the remainder bound does not apply
    assert verify_certificate(bad, CONREY_RANGE) is False
    bad = json.loads(json.dumps(cert))
    bad["k0"] = "342735254171/1000000000000"
    assert verify_certificate(bad, CONREY_RANGE) is False


# ---------------------------------------------------------------- Taylor enclosures


@pytest.mark.parametrize("x", [F(0), F(1, 10**15), F(1, 3), F(2), F(13, 5), F(19), F(20), F(199999999999999, 10**13), F(40)])
def test_taylor_order_keeps_the_remainder_in_its_validity_range_and_brackets_exp(x):
    n = order_for(x, F(1), 30)
    assert x < n + 2
    lo, hi = exp_lower(x, n), exp_upper(x, n)
    with mpmath.workdps(60):
        e = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= e <= mpmath.mpf(hi.numerator) / hi.denominator
        assert (hi - lo) <= F(1, 10**30) * max(1, hi)


@pytest.mark.parametrize("x, n", [(F(2), 0), (F(5), 3), (F(7, 2), 1), (F(-1, 10), 5)])
def test_taylor_remainder_refuses_arguments_outside_its_range(x, n):
    with pytest.raises(ValueError):
        taylor_remainder(x, n)


def test_exp_lower_refuses_negative_arguments():
    with pytest.raises(ValueError):
        exp_lower(F(-1, 10**15), 3)


# ---------------------------------------------------------------- limits: worst cases stay fast and deterministic


def _worst_case_payloads():
    """Return degree-12 P and degree-11 Q with 15-digit prime-ish denominators, at extreme R."""
    dens = [999999999999989, 999999999999947, 999999999999883, 999999999999877, 999999999999857]
    P = [F(0), F(1)] + [F(0)] * 11
    for i, k in enumerate(range(2, 12, 2)):  # pairs c(x^k − x^{k+1}) keep P(0) = 0, P(1) = 1
        c = F(dens[(i + 1) % 5] - 2, dens[i])
        P[k] += c
        P[k + 1] -= c
    P[12] = F(1, 999999999999999)
    P[1] -= P[12]
    Q = _sym_q({1: F(1, 2), 11: F(1, 999999999999973)})
    return [_payload(P, Q, R) for R in ("1/1000000000000000", "10", "999999999999999/100000000000000")]


@pytest.mark.parametrize("payload", _worst_case_payloads())
def test_worst_case_candidates_check_quickly_and_deterministically(lc, payload):
    import time

    t0 = time.perf_counter()
    ev1 = lc.check(None, lc.parse(payload))
    elapsed = time.perf_counter() - t0
    ev2 = lc.check(None, lc.parse(json.dumps(payload)))
    assert ev1.canonical_bytes() == ev2.canonical_bytes()
    assert "kappa" in ev1.bounds
    assert elapsed < 5, f"{elapsed:.1f}s is close to check_timeout_s = 10"
