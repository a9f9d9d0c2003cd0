"""furstenberg-sarkozy: the published residue sets certified, should-prove / should-refuse pairs, Lean, the proposer."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest

from mathloop.domain import Label, Verdict
from mathloop.lean.render import RenderError, without_imports
from mathloop.lean.support_modules import library_modules, shared_modules
from mathloop.check.gate import decide
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.furstenberg_sarkozy import residues
from mathloop.targets.furstenberg_sarkozy.lean_claims import lean_parts
from mathloop.targets.furstenberg_sarkozy.proposer import conflict_graph, independent_set

BG = {"modulus": 205, "residues": [0, 2, 8, 14, 77, 79, 85, 96, 103, 109, 111, 181]}
RUZSA = {"modulus": 65, "residues": [0, 2, 5, 22, 24, 43, 46]}


@pytest.fixture(scope="module")
def fs():
    return build_target(load_contract("furstenberg-sarkozy"))


def check(target, payload):
    return target.check(None, target.parse(payload))


@pytest.mark.parametrize("payload, printed", [(BG, "0.733412"), (RUZSA, "0.733077")])
def test_published_sets_reproduce_their_printed_exponents(fs, payload, printed):
    r = check(fs, payload).bounds["C4b"]
    exact = 0.5 * (1 + math.log(len(payload["residues"])) / math.log(payload["modulus"]))
    assert round(float(r), 6) == float(printed) and 0 <= exact - float(r) < 1e-9


def test_the_beigel_gasarch_set_reaches_the_goal(fs):
    assert decide(fs.contract, None, check(fs, BG)).label is Label.CORRECT


def test_one_residue_moved_onto_a_square_difference_is_refused(fs):
    bad = {"modulus": 205, "residues": [0, 1, 8, 14, 77, 79, 85, 96, 103, 109, 111, 181]}  # 1 − 0 = 1 = 1²
    ev = check(fs, bad)
    res = {r.id: r for r in ev.results}
    assert res["no-square-difference"].verdict is Verdict.REFUTED and res["no-square-difference"].rank >= 2
    assert "1 − 0 ≡ a square mod 205" in res["no-square-difference"].reasons
    assert "C4b" not in ev.bounds


def test_a_modulus_with_a_square_factor_is_refused_and_a_squarefree_one_is_not(fs):
    assert check(fs, {"modulus": 77, "residues": [0, 3]}).ranks["squarefree"] == 0
    ev = check(fs, {"modulus": 75, "residues": [0, 2]})
    assert ev.ranks["squarefree"] == 1 and "5² divides the modulus 75" in ev.reasons()[0] and "C4b" not in ev.bounds


@pytest.mark.parametrize("payload, why", [
    ({"modulus": 1, "residues": [0]}, r"^modulus: 1 is not in 2\.\.10000000"),
    ({"modulus": 65.0, "residues": [0]}, r"^modulus: must be an integer"),
    ({"modulus": 65, "residues": [0, 65]}, r"^residues\[1\]: 65 is not in 0\.\.64"),
    ({"modulus": 65, "residues": [0, 2, 0]}, r"^residues\[2\]: 0 is listed twice \(also residues\[0\]\)"),
    ({"modulus": 65, "residues": [0, True]}, r"^residues\[1\]: must be an integer"),
    ({"modulus": 65, "residues": []}, r"^residues: must be a non-empty list"),
    ({"modulus": 65, "residues": [0], "extra": 1}, r"^extra: unknown key"),
])
def test_malformed_candidates_are_refused_naming_the_field(fs, payload, why):
    assert fs.parse(RUZSA).modulus == 65
    with pytest.raises(Malformed, match=why):
        fs.parse(payload)


def test_the_exponent_certificate_is_an_integer_inequality_just_below_the_exponent():
    r = residues.certified_exponent(205, 12, 200_000)
    cert = residues.exponent_certificate(205, 12, r)
    p, q = int(cert["p"]), int(cert["q"])
    assert 205**p <= 12**q and r == (1 + F(p, q)) / 2
    with pytest.raises(ValueError, match="not below"):
        residues.exponent_certificate(205, 12, (1 + F(p + 1, q)) / 2)
    with pytest.raises(ValueError, match="exceeds"):
        residues.exponent_certificate(205, 12, r + F(1, 10**8))


def test_local_search_finds_ruzsas_seven_residues_mod_65():
    import time

    found = independent_set(conflict_graph(65), np.random.default_rng(0), time.monotonic() + 20, enough=7)
    assert len(found) == 7 and residues.square_differences(65, found)[0] == 0


def _source(ev):
    defs, claims, _ = lean_parts(ev)
    body = [d.text() for d in defs] + [c.statement_text() for c in claims] + [c.proof_text() for c in claims]
    src = "\n".join(["set_option maxRecDepth 100000", without_imports(shared_modules()["Mathloop.Exact"]),
                     without_imports(library_modules()["Mathloop.SquareDifference"]),
                     "namespace T\nopen Mathloop\nnoncomputable section", *body, "end\nend T\n"])
    return src, [f"T.{c.name}" for c in claims]


def test_a_certificate_whose_exponent_does_not_match_does_not_render(fs):
    ev = check(fs, RUZSA)
    bad = replace(ev, artifacts={"certificate": {**ev.artifacts["certificate"], "q": "7"}})
    with pytest.raises(RenderError, match="does not match"):
        lean_parts(bad)


@pytest.mark.lean
def test_kernel_proves_the_beigel_gasarch_set_and_refuses_a_square_difference(fs):
    from mathloop.lean.check import check_source

    good = check_source(*_source(check(fs, BG)))
    if good.verdict is Verdict.UNKNOWN:
        pytest.skip(good.reason)
    assert good.verdict is Verdict.PROVED, good.reason
    ev = check(fs, BG)
    forged = replace(ev, state={"modulus": 205, "residues": [0, 1, *BG["residues"][2:]]})  # 1 − 0 is a square
    bad = check_source(*_source(forged))
    assert bad.verdict is Verdict.REFUTED and "no_square_difference" in " ".join(bad.messages)
