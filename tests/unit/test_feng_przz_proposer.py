"""The feng-przz local proposer: the seed first, the session deadline honoured, the three-piece optimum found."""

from __future__ import annotations

import time
from fractions import Fraction as F

import pytest

from mathloop.domain import Head
from mathloop.propose.base import Context
from mathloop.targets import build_target, load_contract
from tests.support.contracts import shipped


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract(shipped("feng-przz")))


def ctx(target, head, deadline=None):
    return Context(target.contract, head, (), (), frozenset(), 0, 1, deadline)


def seed_head(target) -> Head:
    return Head("h0" * 32, 0, dict(target.contract.seed), {}, {"kappa": F(20447654453, 50000000000)})


def test_without_a_head_the_proposer_offers_the_contract_seed(target):
    out = target.local_proposer(0).propose(ctx(target, None))
    assert [p.payload for p in out] == [dict(target.contract.seed)]


def test_a_passed_deadline_ends_the_round_empty_and_quickly(target):
    t0 = time.monotonic()
    assert target.local_proposer(0).propose(ctx(target, seed_head(target), deadline=t0 - 1)) == []
    assert time.monotonic() - t0 < 2


@pytest.mark.slow  # one exact quadratic-form build at degrees 5/3/3, deg Q 5: ~15 s
def test_from_the_one_piece_seed_the_first_proposal_is_a_certified_three_piece_bound_above_0_41728(target):
    out = target.local_proposer(0).propose(ctx(target, seed_head(target)))
    assert len(out) == 1 and float(out[0].meta["expected_kappa"]) > 0.41728
    payload = out[0].payload
    assert payload["P2"] != ["0"] and payload["P3"] != ["0"]  # the pieces come from the solve, not a paste
    ev = target.check(None, target.parse(payload))
    assert ev.bounds["kappa"] > F(41728, 100000)


def test_a_candidate_expected_above_the_contracts_cap_is_not_proposed(target, monkeypatch):
    """The search moves R; where the expected kappa passes the class maximum (the hold at PRZZ's record) the
    contract would refuse the candidate, so it is not offered: the next R below the cap is."""
    from mathloop.targets.feng_przz.proposer import LocalProposer

    cap = target.contract.bound_spec("kappa").class_maximum
    seen: list[F] = []

    def fake(self, degs, dQ, R, deadline):  # kappa rises with R: above the cap from R = 1.29 on (the head's 1.2913)
        seen.append(R)
        return (float(cap + F(1, 10**6)) if R >= F(129, 100) else float(cap - F(1, 10**6))), {"R": str(R)}

    monkeypatch.setattr(LocalProposer, "_evaluate", fake)
    [p] = target.local_proposer(0).propose(ctx(target, seed_head(target)))
    assert F(p.payload["R"]) < F(129, 100) and F(p.meta["expected_kappa"]) < cap
    assert seen[0] >= F(129, 100)  # evaluated first, and passed over
