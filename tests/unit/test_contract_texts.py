"""Contract texts say what the mathematics rests on: citations per θ range, preprints, class maxima."""

from __future__ import annotations

import json
from fractions import Fraction as F

from mathloop.targets import load_contract
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target
from mathloop.targets.levinson_conrey.certificate import build_certificate
from mathloop.targets.levinson_conrey.closed_form import closed_form
from tests.integration.cli import invoke

P, Q, R = (F(0), F(1)), (F(1), F(-1)), F(13, 10)


def _certificate(theta: F) -> dict:
    cf = closed_form(P, Q, R, theta)
    cert = build_certificate(P, Q, R, theta, cf.a, cf.b, F(3, 10))
    assert cert is not None
    return cert


def test_a_certificate_with_theta_at_or_above_one_half_is_refused_by_the_levinson_contract():
    levinson, conrey = build_target(load_contract("levinson")), build_target(load_contract("levinson-conrey"))
    for theta in (F(1, 2), F(11, 20)):
        cert = _certificate(theta)
        assert not levinson.verify_certificate(cert)  # Levinson's theorem (and Young's proof): θ < 1/2 only
        assert conrey.verify_certificate(cert)  # Conrey (1989): θ < 4/7
    assert levinson.verify_certificate(_certificate(F(49, 100)))


def test_levinson_conrey_cites_conrey_for_four_sevenths_and_young_for_one_half_only():
    conrey = load_contract("levinson-conrey").obligation("levinson-conrey-inequality").citation
    levinson = load_contract("levinson").obligation("levinson-conrey-inequality").citation
    assert conrey.startswith("For θ < 4/7: J. B. Conrey") and "Bui, J. B. Conrey, M. P. Young" in conrey
    assert "1002.4403, covers θ < 1/2 only" in conrey
    assert levinson.startswith("For θ < 1/2:") and "1002.4403" in levinson


def test_unconditional_pair_correlation_says_it_rests_on_unrefereed_preprints_and_counts_simple_zeros_on_the_line():
    c = load_contract("pair-correlation")
    assert "NOT YET REFEREED" in c.statement and "SIMPLE AND ON THE CRITICAL LINE" in c.statement
    for oid, cited in (("pair-correlation-theorem", "arXiv:2608.13637"), ("simple-zeros-on-the-line", "arXiv:2609.02882")):
        h = c.obligation(oid)
        assert "not yet refereed" in h.title and cited in h.citation and "NOT YET REFEREED" in h.statement
    assert "Acta Arith. 214 (2024), Lemma 5" in c.obligation("simple-zeros-on-the-line").citation
    assert {h.id for h in c.hypotheses_for("proportion-bound")} == {"pair-correlation-theorem", "simple-zeros-on-the-line"}


def test_status_and_graph_say_when_a_class_maximum_is_a_numerical_optimum(tmp_path):
    db = str(tmp_path / "s.db")
    Repository(make_engine(db))
    out = json.loads(invoke("status", "levinson-conrey", "--db", db, "--json").output)
    (cm,) = out["class_maxima"]
    assert cm["theorem"] is False and "a numerical optimum, not a theorem" in cm["text"]
    assert "a numerical optimum, not a theorem" in invoke("graph", "levinson", "--db", db).output.replace("\n", " ")
    rh = json.loads(invoke("status", "pair-correlation-rh", "--db", db, "--json").output)["class_maxima"][0]
    assert rh["theorem"] is True and "a theorem" in rh["text"]
