"""The fast Z's new arithmetic: the Arb-proved cosine, the compiled block against numpy, the vectorised ball strings."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, ctx

from mathloop.targets.critical_line_zeros import rs_cos, rs_gram, rs_rigorous, rs_sum, rs_sum_jit
from mathloop.targets.critical_line_zeros.ball_text import float_ball_strings, float_ball_strings_many


@pytest.mark.parametrize("degree", sorted(rs_cos.POLYS))
def test_cosine_polynomial_error_bound_holds_against_arb(degree):
    b = rs_cos.POLYS[degree]
    bound = rs_cos.poly_error(b)
    rng = random.Random(degree)
    xs = [Fraction(rng.randrange(-2**40, 2**40 + 1), 2**41) for _ in range(400)] + [Fraction(1, 2), Fraction(-1, 2), Fraction(0)]
    worst = 0.0
    with ctx.workprec(128):
        for x in xs:
            xa = arb(x.numerator) / x.denominator
            p = sum((arb(c) * (xa * xa) ** j for j, c in enumerate(b)), arb(0))
            gap = float(abs((2 * arb.pi() * xa).cos() - p).upper())
            assert gap <= bound, f"|cos - p| = {gap} > {bound} at x = {x}"
            worst = max(worst, gap)
    assert worst > bound / 10  # the proved bound is not vacuous


def test_cosine_bound_refuses_a_perturbed_polynomial():
    b = list(rs_cos.POLYS[7])
    b[0] += 1e-6  # off by 1e-6 at x = 0: no proof may certify it to 1e-10
    assert rs_cos.poly_error(tuple(b)) >= 1e-6
    assert rs_cos.poly_error(rs_cos.POLYS[7]) < 2e-10


def test_cosine_coefficients_are_the_economised_series():
    for d, b in rs_cos.POLYS.items():
        assert rs_cos._economised(d) == b


def test_polynomial_degree_follows_the_number_of_terms():
    assert len(rs_cos.polynomial_for(30, 0.127 * 31**-1.5)) - 1 == 5
    assert len(rs_cos.polynomial_for(399, 0.127 * 400**-1.5)) - 1 == 6
    assert len(rs_cos.polynomial_for(1262, 0.127 * 1263**-1.5)) - 1 == 7


def _chunk(height: float, n: int, seed: int) -> rs_rigorous.Points:
    rng = random.Random(seed)
    base = int(height)
    pts = [rs_rigorous.Point.of(Fraction(base * 10**6 + rng.randrange(0, 300 * 10**6), 10**6)) for _ in range(n)]
    with ctx.workprec(64):
        m0 = int(arb(height).zeta_nzeros().unique_fmpz())
    return rs_rigorous.Points.concat([rs_gram.gram_arrays(list(range(m0, m0 + n))), rs_rigorous.Points.of(pts)])


@pytest.mark.skipif(not rs_sum_jit.available(), reason="numba not installed (extra fast)")
@pytest.mark.parametrize("height", [2e3, 1e5, 1e6, 8e6])
def test_compiled_block_gives_the_same_bits_as_numpy(height, monkeypatch):
    pts = _chunk(height, 150, int(height))
    monkeypatch.setenv("MATHLOOP_FAST_Z_JIT", "1")
    jit = rs_rigorous.enclose_points(pts)
    assert not rs_sum_jit._BROKEN, rs_sum_jit._BROKEN  # the compiled block ran
    monkeypatch.setenv("MATHLOOP_FAST_Z_JIT", "0")
    ref = rs_rigorous.enclose_points(pts)
    for a, b in zip(jit, ref):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("height", [5e3, 1e6])
def test_a_points_enclosure_does_not_depend_on_the_chunk_or_how_workers_split_it(height):
    pts = _chunk(height, 120, 3)
    whole = rs_rigorous.enclose_points(pts)
    perm = np.random.default_rng(1).permutation(len(pts))
    def take(idx):
        return rs_rigorous.Points(*(getattr(pts, f)[idx] for f in ("base", "off", "e_off", "r_t", "theta_turn", "e_theta")))
    halves = [rs_rigorous.enclose_points(take(perm[:77])), rs_rigorous.enclose_points(take(perm[77:]))]
    for k in range(3):
        split = np.empty_like(whole[k])
        split[perm[:77]], split[perm[77:]] = halves[0][k], halves[1][k]
        assert split.tobytes() == whole[k].tobytes()


def test_vectorised_ball_strings_equal_the_scalar_ones():
    rng = np.random.default_rng(5)
    near = 10 ** rng.uniform(-8, -3, 3000)  # |value| right at the printed radius: the band the scalar rule decides
    values = np.concatenate([rng.normal(0, 2, 3000), rng.normal(0, 1e-5, 1000), near * rng.uniform(0.99, 1.03, 3000) * 1.006,
                             [1e-5, -1e-5, 0.123456789]])
    bounds = np.concatenate([10 ** rng.uniform(-9, -4, 4000), near, [1e-5, 9.9e-6, 1e-5]])
    mids, rads, shown = float_ball_strings_many(values, bounds)
    assert 100 < int(shown[4000:7000].sum()) < 2900  # both outcomes occur in the band
    for v, b, m, r, s in zip(values.tolist(), bounds.tolist(), mids, rads, shown.tolist()):
        one = float_ball_strings(v, b)
        assert (one is not None) == s
        if one:
            assert one == (m, r)


def test_non_finite_values_or_bounds_are_never_shown_in_either_form():
    nan, inf = float("nan"), float("inf")
    cases = [(nan, 1e-5), (inf, 1e-5), (-inf, 1e-5), (1.0, nan), (1.0, inf), (inf, inf)]
    _, _, shown = float_ball_strings_many(np.array([v for v, _ in cases]), np.array([b for _, b in cases]))
    assert not shown.any()
    assert all(float_ball_strings(v, b) is None for v, b in cases)


def test_base_phases_match_arb():
    t0 = 9_876_543
    a = rs_sum.base_phases(t0, 300)
    with ctx.workprec(256):
        for n in (1, 2, 17, 299, 300):
            x = arb(t0) * arb(n).log() / (2 * arb.pi())
            frac = x - x.floor()
            assert abs(float(frac.mid()) - a[n - 1]) <= 2 * 2.0**-53
    assert a.min() >= 0 and a.max() <= 1


def test_gram_arrays_equal_gram_points():
    ms = [1500, 150_000, 3_000_000]
    arr = rs_gram.gram_arrays(ms)
    for q, p in enumerate(rs_gram.gram_points(ms)):
        assert Fraction(p.num, p.den) == Fraction(int(arr.base[q])) + Fraction(float(arr.off[q]))
        assert p.r_t == arr.r_t[q] and arr.theta_turn[q] == 0.5 * (p.gram % 2)


def test_ieee_log_seed_is_accurate():
    x = np.concatenate([10 ** np.random.default_rng(2).uniform(-3, 9, 5000), [0.5, 1.0, 2.0, 0.7071067811865476]])
    assert np.max(np.abs(rs_gram.log_ieee(x) - np.log(x)) / np.maximum(1, np.abs(np.log(x)))) < 4e-16


def test_a_failing_compiled_block_falls_back_to_numpy_with_the_same_bits(monkeypatch):
    pts = _chunk(1e5, 60, 9)
    monkeypatch.setenv("MATHLOOP_FAST_Z_JIT", "0")
    ref = rs_rigorous.enclose_points(pts)
    monkeypatch.setenv("MATHLOOP_FAST_Z_JIT", "1")

    def broken(*_args):
        raise RuntimeError("cannot cache function: no locator available")

    monkeypatch.setattr(rs_sum_jit, "_INSTALLED", True)
    monkeypatch.setattr(rs_sum_jit, "_COMPILED", {f"{rs_sum_jit._block.__module__}._block": broken})
    monkeypatch.setattr(rs_sum_jit, "_BROKEN", [])
    got = rs_rigorous.enclose_points(pts)
    assert rs_sum_jit._BROKEN and not rs_sum_jit.available()
    for a, b in zip(got, ref):
        assert a.tobytes() == b.tobytes()


def test_gram_points_do_not_depend_on_which_others_are_computed_with_them():
    ms = list(range(2_000_000, 2_000_300))
    whole = rs_gram.gram_arrays(ms)
    parts = [rs_gram.gram_arrays(ms[:113]), rs_gram.gram_arrays(ms[113:])]
    for f in ("base", "off", "r_t", "theta_turn"):
        assert np.concatenate([getattr(p, f) for p in parts]).tobytes() == getattr(whole, f).tobytes()


@pytest.mark.skipif(not rs_sum_jit.available(), reason="numba not installed (extra fast)")
@pytest.mark.parametrize("height", [1.5e3, 2e4, 1e6, 3e7, 1e9])
def test_compiled_gram_newton_gives_the_same_gram_points_as_numpy(height, monkeypatch):
    with ctx.workprec(64):
        m0 = int(arb(height).zeta_nzeros().unique_fmpz())
    ms = list(range(m0, m0 + 700)) + [m0 + 10**5 + 7 * k for k in range(50)]
    monkeypatch.setenv("MATHLOOP_FAST_Z_JIT", "1")
    jit = rs_gram._newton(ms)
    assert not rs_sum_jit._BROKEN, rs_sum_jit._BROKEN  # the compiled kernels ran
    monkeypatch.setenv("MATHLOOP_FAST_Z_JIT", "0")
    ref = rs_gram._newton(ms)
    assert ref[3].any()  # the float route applies: the comparison is not vacuous
    for a, b in zip(jit, ref):
        assert a.tobytes() == b.tobytes()


def test_fast_specs_in_any_order_give_the_balls_of_one_kind_per_call():
    from mathloop.targets.critical_line_zeros.hardy_z import definite, evaluate_specs_fast

    with ctx.workprec(64):
        m0 = int(arb(2e5).zeta_nzeros().unique_fmpz())
    gram = [("g", str(m)) for m in range(m0, m0 + 40)]
    rng = random.Random(5)
    points = [("q", f"{200000 + rng.randrange(0, 10**6) / 10**4:.4f}") for _ in range(40)]
    by_kind = evaluate_specs_fast(gram, (64, 128))[0] + evaluate_specs_fast(points, (64, 128))[0]
    specs = gram + points
    perm = list(range(len(specs)))
    rng.shuffle(perm)
    mixed, (decided, _) = evaluate_specs_fast([specs[i] for i in perm], (64, 128))
    assert decided == len(specs)  # every sign decided by the fast path at this height
    assert [mixed[perm.index(i)] for i in range(len(specs))] == by_kind
    for (kind, text), ball in list(zip(specs, by_kind))[::8]:
        ref = definite(kind, int(text) if kind == "g" else Fraction(text), (64, 128))
        assert ball.sign == ref.sign != 0
    assert evaluate_specs_fast([], (64, 128)) == ([], (0, 0))


def _hard_values(rng) -> np.ndarray:
    """Values at every scale, both signs, ties and near-ties of 3 and 6 digits, powers of ten and specials."""
    values = [rng.normal(0, 1, 5000) * 10.0 ** rng.integers(-30, 30, 5000),
              np.array([0.0, -0.0, 1.0, -1.0, 1e5, 999999.5, 9.999995, 99999.95, 0.00099999995, 1.234565, 2.5e-5, 999.5,
                        123456.5, 1e-300, 1e300, 5e-324, np.nextafter(1.0, 2), np.nextafter(1e-4, 0), 1e-4, 1e22, 1e23,
                        9.995e-5, 0.0001, 99.95, 1e-5, 123.45e-7, np.inf, -np.inf, np.nan, 1.7976931348623157e308])]
    for digits in (3, 6):
        base = rng.integers(10 ** (digits - 1), 10**digits, 600) + 0.5
        for e in range(-12, 9):
            t = base * 10.0 ** (e - digits + 1)
            values += [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf), -t, np.rint(t) * 10.0 ** (e - digits + 1)]
    values.append(np.array([10.0 ** e * (1 + s * 2**-52) for e in range(-20, 20) for s in (-2, -1, 0, 1, 2)]))
    return np.concatenate(values)


@pytest.mark.parametrize("jit", ["0", "1"])
def test_ball_texts_and_their_numbers_equal_pythons_formatting_and_parsing(jit, monkeypatch):
    from mathloop.targets.critical_line_zeros import ball_text

    monkeypatch.setenv("MATHLOOP_FAST_Z_JIT", jit)
    v = _hard_values(np.random.default_rng(11))
    for p in (3, 6):
        d, x, ok = ball_text.digits(v, p)
        plain = (np.abs(v[:5000]) > 1e-12) & (np.abs(v[:5000]) < 1e12)  # random values of a Z or a bound's size
        assert ok[:5000][plain].mean() > 0.99  # nearly all take the exact route: the comparison is not vacuous
        want = [f"%.{p}g" % float(a) for a in v]
        assert ball_text._texts(v, d, x, ok, p) == want
        got = ball_text.decimal_floats(v, d, x, p)[ok]
        assert got.tobytes() == np.array([float(w) for w, o in zip(want, ok) if o]).tobytes()
    assert not rs_sum_jit._BROKEN, rs_sum_jit._BROKEN



def test_theta_groups_of_sorted_points_equal_the_general_grouping():
    rng = np.random.default_rng(3)
    for t in (np.sort(rng.uniform(1000, 1e7, 2000)), np.sort(rng.uniform(1000, 40000, 500)), np.array([5000.0]),
              np.sort(np.concatenate([np.full(7, 16384.0), rng.uniform(16000, 17000, 300)]))):
        fast = rs_rigorous.theta_groups(t)
        general = rs_rigorous.theta_groups(t[::-1])  # unsorted: np.unique's path
        rev = len(t) - 1
        assert list(fast) == list(general)
        for key in fast:
            assert fast[key].tolist() == sorted(rev - general[key])


def test_gram_indices_parse_exactly_as_int_does():
    from mathloop.targets.critical_line_zeros.hardy_z import _gram_indices

    assert list(_gram_indices(tuple(map(str, range(10**6, 10**6 + 600))))) == list(range(10**6, 10**6 + 600))
    for texts in (("1", "0003", "22"), ("\u0663", "4"), ("1", " 2"), ("+1", "2"), ("9" * 19, "1"), ("12", "3_4")):
        assert list(_gram_indices(texts)) == [int(t) for t in texts]
    for bad in (("1", ""), ("1", "2.5"), ("1e3",), ("0x1f",), ("1 2", ""), ("", "1 2"), ("0 0", "", "1"), ("1  2", " ")):
        with pytest.raises(ValueError):
            _gram_indices(bad)
