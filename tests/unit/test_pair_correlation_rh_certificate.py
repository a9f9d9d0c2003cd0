"""The primal's certificates from the fixed local proposer, each re-checked by two code paths.

Both were committed by one `mathloop run pair-correlation-rh` session (local proposer, 2026-12-02): the LP
(`lp.solve`, margin 1e-9) rounded to multiples of 10^-12 and r-hat(0) lifted until the float minimum of P is
positive (`proposer.lift`). (1/60, 5), 0.679282453300…: LP value 0.6792825218, lift 7.0006e-8; the old
proposer's margin 1e-6 gave 0.679281612840 from the same configuration. (1/80, 5), 0.679294143364… (400 nodes).
Path one is the target's checker (exact Descartes count of P >= 0 in x = cos theta, exact functional).
Path two (tests/support/primal_scan.py) shares no code with it: the conditions and B in Fractions by another
moment rule, and min P enclosed rigorously (Arb branch and bound over cells of [0, pi], Taylor bounds with a
third-derivative remainder), which also localises the minimiser. A third route decides the sign of P by isolating
every complex root of p(x) = P(arccos x) in Arb (`primal_scan.positive_by_roots`); it is what reaches the larger
certificates, where the branch and bound needs too many cells.
"""

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from tests.support.primal_scan import bound, certified_minimum, exact_conditions, parse, positive_by_roots

SUPPORT = Path(__file__).parents[1] / "support"
# file: (B, (h, A, nodes))
CERTIFICATES = {
    "pair_correlation_rh_60_5.json": (F(1222708417367719, 1800000002100000), (F(1, 60), F(5), 300)),
    "pair_correlation_rh_80_5.json": (F(4347482522707683, 6400000007617520), (F(1, 80), F(5), 400)),
    # lineage pair-correlation-rh-wide, `mathloop run pair-correlation-rh-wide` from an empty store (2026-12-06)
    "pair_correlation_rh_100_10.json": (F(20379577107890441, 30000000000874200), (F(1, 100), F(10), 1000)),
}
# the root route's cost grows fast with the degree (299: 6 s, 399: 30 s, 799: 547 s, 999: 1182 s at load ~2):
# past 400 nodes it runs on demand, `pytest -m recheck tests/unit/test_pair_correlation_rh_certificate.py`
ON_DEMAND = {name for name, (_, size) in CERTIFICATES.items() if size[2] > 400}
# file: (min P lies in [lo, hi], the minimiser in [a, b]) as the second path encloses them (rel. width 1e-3)
MINIMA = {
    "pair_correlation_rh_60_5.json": ((F("1.0083e-10"), F("1.0093e-10")), (F("2.083443"), F("2.083448"))),
    "pair_correlation_rh_80_5.json": ((F("1.0006e-10"), F("1.0012e-10")), (F("0.3981797"), F("0.3981802"))),
}
PREVIOUS_BEST = F("0.679281612840")


@pytest.fixture(scope="module", params=sorted(MINIMA))
def certificate(request):
    return json.loads((SUPPORT / request.param).read_text()), *CERTIFICATES[request.param], MINIMA[request.param]


@pytest.fixture(scope="module", params=sorted(CERTIFICATES))
def any_certificate(request):
    return json.loads((SUPPORT / request.param).read_text()), *CERTIFICATES[request.param]


def lowered(payload):
    """Return the payload with r-hat(0) lowered by 10^-7: a larger B, but P dips below 0."""
    return dict(payload, nodes=[str(F(payload["nodes"][0]) - F(1, 10**7)), *payload["nodes"][1:]])


def test_second_path_gives_the_recorded_bound_above_the_previous_best(any_certificate):
    payload, value, size = any_certificate
    h, A, nodes = parse(payload)
    assert (h, A, len(nodes)) == size and exact_conditions(h, nodes) == []
    assert bound(h, nodes) == value > PREVIOUS_BEST


@pytest.mark.slow
def test_second_path_proves_p_positive_and_localises_its_minimum(certificate):
    (lo, hi), (a, b) = certificate[3]
    m = certified_minimum(certificate[0])
    assert 0 < lo <= m.lower <= m.upper <= hi  # P >= 1.0006e-10 > 0 everywhere: nearly touching, as lifted
    assert len(m.where) == 1 and a <= m.where[0][0] <= m.at <= m.where[0][1] <= b


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.recheck if n in ON_DEMAND else pytest.mark.slow)
                                  for n in sorted(CERTIFICATES)])
def test_the_root_route_proves_p_positive(name):
    payload, (_, size) = json.loads((SUPPORT / name).read_text()), CERTIFICATES[name]
    v = positive_by_roots(payload)
    assert v.status == "positive" and v.degree == size[2] - 1 and 0 < v.nearest < 1e-5, v


@pytest.mark.slow
def test_the_root_route_finds_the_narrow_negative_dip():
    """The (1/80, 5) certificate with r-hat(0) lowered by 1.5e-10: the dip at theta = 0.398180 is cos theta = 0.92177."""
    payload = json.loads((SUPPORT / "pair_correlation_rh_80_5.json").read_text())
    dipped = dict(payload, nodes=[str(F(payload["nodes"][0]) - F(15, 10**11)), *payload["nodes"][1:]])
    v = positive_by_roots(dipped)
    assert v.status == "negative" and "0.92176" in v.reason, v


@pytest.mark.slow
def test_second_path_finds_p_negative_with_r_hat_0_lowered(certificate):
    payload = lowered(certificate[0])
    h, _, nodes = parse(payload)
    assert bound(h, nodes) > certificate[1] and certified_minimum(payload).upper < 0


@pytest.mark.slow
def test_second_path_finds_a_negative_dip_narrower_than_any_float_sample():
    """r-hat(0) lowered by 1.5e-10 at (1/80, 5): P < 0 only within ~2e-6 of theta = 0.398180, where samples
    1.2e-4 apart read 4.5e-8; a float sample with its lowest sampled minima refined reported 1.27e-8 > 0 here."""
    payload = json.loads((SUPPORT / "pair_correlation_rh_80_5.json").read_text())
    dipped = dict(payload, nodes=[str(F(payload["nodes"][0]) - F(15, 10**11)), *payload["nodes"][1:]])
    m = certified_minimum(dipped)
    assert m.upper < 0 and F("0.3981797") <= m.at <= F("0.3981802")


@pytest.mark.slow
def test_the_checker_certifies_it(any_certificate):
    from mathloop.targets import build_target, load_contract

    payload, value, size = any_certificate
    target = build_target(load_contract("pair-correlation-rh" if size[2] <= 600 else "pair-correlation-rh-wide"))
    ev = target.check(None, target.parse(payload))
    assert all(r.rank == 0 for r in ev.results) and ev.bounds["proportion"] == value


@pytest.mark.slow
def test_the_checker_refutes_the_larger_claim_with_r_hat_0_lowered(certificate):
    from mathloop.domain import Verdict
    from mathloop.targets import build_target, load_contract

    target = build_target(load_contract("pair-correlation-rh"))
    ev = target.check(None, target.parse(lowered(certificate[0])))
    assert {r.id: r.verdict for r in ev.results}["r-nonnegative"] is Verdict.REFUTED and not ev.bounds


@pytest.mark.slow
def test_the_checker_refutes_the_narrow_negative_dip_too():
    from mathloop.domain import Verdict
    from mathloop.targets import build_target, load_contract

    payload = json.loads((SUPPORT / "pair_correlation_rh_80_5.json").read_text())
    dipped = dict(payload, nodes=[str(F(payload["nodes"][0]) - F(15, 10**11)), *payload["nodes"][1:]])
    target = build_target(load_contract("pair-correlation-rh"))
    ev = target.check(None, target.parse(dipped))
    assert {r.id: r.verdict for r in ev.results}["r-nonnegative"] is Verdict.REFUTED and not ev.bounds


def test_lift_raises_only_r_hat_zero_until_p_certifies():
    from mathloop.targets.pair_correlation_rh.cosine_positivity import certify_cosine_nonnegative
    from mathloop.targets.pair_correlation_rh.proposer import float_minimum, lift

    nodes = [F(1, 2), F(1, 2), F(1, 4)]  # P = cos(theta) (1 + cos(theta)), min -1/4 at cos(theta) = -1/2
    assert certify_cosine_nonnegative(nodes).status == "negative"
    lifted = lift(nodes, 1e-10)
    assert lifted[1:] == nodes[1:] and lifted[0] > nodes[0]
    assert float_minimum(lifted) >= 1e-10 and certify_cosine_nonnegative(lifted).status == "nonnegative"
    assert lift(lifted, 1e-10) == lifted  # already positive: unchanged
