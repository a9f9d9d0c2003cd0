"""Lean `checked` requires the rendered statement's bound to be the commit's certified bound.

A stand-in target returns the real Levinson–Conrey certificate (k0 ≈ 0.3868) with kappa = 408/1000:
its commit is `refuted` and recorded with the reason before any Lean runs; the same evidence with its
own bound goes on to Lean (here: none, so `unavailable`, never refused).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from sqlmodel import create_engine

from mathloop.domain import Evidence
from mathloop.lean import attest
from mathloop.lean.commit import check_and_record, check_commit
from mathloop.lean.render import RenderError, bound_mismatch, render
from mathloop.lean.support_modules import shared_modules
from mathloop.lean.toolchain import Toolchain
from mathloop.targets.levinson_conrey.lean_claims import render_commit
from mathloop.targets.levinson_conrey.target import LevinsonConrey
from tests.support.lean_evidence import lc_evidence

NO_LEAN = Toolchain("unavailable", reason="no Lean in this test")
H = "ab" * 32


class StandIn:
    """A plug-in standing in for levinson-conrey: the real rendering, whatever bound its evidence says."""

    name = "levinson-conrey"

    def __init__(self, contract):
        self.contract = contract

    def lean_render(self, h, ev):
        return render_commit(self.contract, h, ev, Fraction(4, 7))

    lean_support = staticmethod(LevinsonConrey.lean_support)


@pytest.fixture(scope="module")
def real():
    return lc_evidence(["0", "1"], ["1", "-1"], "13/10")


def _with_kappa(ev: Evidence, kappa: Fraction) -> Evidence:
    return replace(ev, bounds={**ev.bounds, "kappa": kappa})


def test_a_bound_other_than_the_certificates_is_refuted_with_the_reason(real, tmp_path):
    contract, ev = real
    forged = _with_kappa(ev, Fraction(408, 1000))
    engine = create_engine(f"sqlite:///{tmp_path / 's.db'}")
    out = check_and_record(engine, contract.sha256, StandIn(contract), H, forged, toolchain=NO_LEAN)
    assert out.status == "refuted" and "kappa" in out.reasons[0] and "51/125" in out.reasons[0]
    att = attest.latest(engine, contract.sha256)[H]
    assert att.status == "refuted" and att.reasons == out.reasons and att.artifact_sha256


def test_the_certificates_own_bound_goes_on_to_lean(real):
    contract, ev = real
    assert check_commit(StandIn(contract), H, ev, toolchain=NO_LEAN).status == "unavailable"


def test_a_missing_or_extra_bound_is_a_mismatch(real):
    contract, ev = real
    r = render_commit(contract, H, ev, Fraction(4, 7))
    assert bound_mismatch(r, {}) == "the Lean statement certifies kappa, a bound the commit does not have"
    assert bound_mismatch(r, {**ev.bounds, "other": Fraction(1)}) == \
        "the Lean statement does not state the commit's bound other"
    assert bound_mismatch(replace(r, bounds={}), ev.bounds) == \
        "the Lean statement does not state the commit's bound kappa"
    assert bound_mismatch(r, ev.bounds) is None


def test_a_support_module_not_shipped_by_the_target_is_refused(real):
    contract, ev = real

    class NoSupport(StandIn):
        lean_support = staticmethod(lambda: {})

    out = check_commit(NoSupport(contract), H, ev, toolchain=NO_LEAN)
    assert out.status == "refuted" and "Mathloop/LevinsonConrey.lean" in out.reasons[0]


def test_render_refuses_a_bound_its_definition_does_not_state():
    with pytest.raises(RenderError, match="bound kappa"):
        render(target="t", contract_name="t", contract_sha="5" * 64, commit_hash=H, proves="", given="",
               not_proved="", defs=[], claims=[], support=shared_modules(), bounds={"kappa": ("k0", Fraction(1, 2))})


def test_render_refuses_a_shared_module_with_another_text():
    with pytest.raises(RenderError, match="Mathloop/Exact.lean"):
        render(target="t", contract_name="t", contract_sha="5" * 64, commit_hash=H, proves="", given="",
               not_proved="", defs=[], claims=[], support={"Mathloop.Exact": "-- forged\n"})
