"""The ceiling's proposer keeps `--time-limit`: a search that cannot finish returns nothing at the deadline."""

from __future__ import annotations

import time

import pytest

from mathloop.targets import load_contract
from mathloop.domain import Head
from mathloop.propose.base import Context
from mathloop.targets import build_target
from mathloop.targets.pair_correlation_rh_ceiling.proposer import CeilingProposer, within


def test_within_returns_at_the_deadline_when_the_work_does_not():
    t0 = time.monotonic()
    done, value = within(t0 + 0.2, time.sleep, 5)
    assert (done, value) == (False, None) and time.monotonic() - t0 < 1.0


def test_within_returns_the_value_and_reraises_errors():
    assert within(time.monotonic() + 5, sum, [1, 2]) == (True, 3)
    assert within(None, sum, [1, 2]) == (True, 3)
    with pytest.raises(ZeroDivisionError):
        within(time.monotonic() + 5, divmod, 1, 0)


@pytest.mark.slow
def test_a_long_lp_configuration_ends_at_the_session_deadline():
    contract = load_contract("pair-correlation-rh-ceiling")
    target = build_target(contract)
    ev = target.check(None, target.parse(dict(contract.seed)))
    head = Head("c0", 0, ev.state, {r.id: r.rank for r in ev.results}, ev.bounds)
    proposer = CeilingProposer(target, 0, configs=((20, 40, 40, (5, 5)),))  # ~75 s of LP rounds alone
    t0 = time.monotonic()
    ctx = Context(contract, head, (), (), frozenset(), 0, deadline=t0 + 1.0)
    assert proposer.propose(ctx) == []
    assert time.monotonic() - t0 < 1.0 + 5.0  # the promise: within 5 s of the limit (HiGHS stops ~1-2 s late)
    assert not proposer._cache  # not cached: a later session with more time retries it
