"""No repeats: the model is asked again within the round, and no exact repeat ever reaches a checker."""

import json

from sqlmodel import Session as DBSession, select

from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer
from mathloop.search.loop import Session, SessionLimits
from mathloop.store.models import CandidateRow
from mathloop.targets.registry import build_target
from tests.unit.test_loop import CountingRunner
from tests.unit.test_openai_proposer import FakeChatServer, _env, context, good, proposer  # noqa: F401

GOOD = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}


def test_a_reply_repeating_a_stored_candidate_is_asked_again_with_a_note_naming_it():
    other = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "7/5"}
    with FakeChatServer([good(GOOD), good(other)]) as srv:
        ctx = context()
        ctx = type(ctx)(ctx.contract, ctx.head, ctx.open_obligations, ctx.rejections,
                        frozenset({__import__("mathloop.domain", fromlist=["payload_sha"]).payload_sha(GOOD)}),
                        ctx.round, 1)
        out = proposer(srv, repeat_retries=2).propose(ctx)
    assert [p.payload for p in out] == [GOOD, other]
    assert out[1].meta["asked_again_after_repeat"] is True
    assert "repeated a candidate that is already in the memory" in srv.requests[1]["body"]["messages"][-1]["content"]
    assert len(srv.requests) == 2


def test_asking_again_stops_at_the_repeat_budget():
    with FakeChatServer([], default=good(GOOD)) as srv:
        ctx = context()
        from mathloop.domain import payload_sha
        ctx = type(ctx)(ctx.contract, ctx.head, ctx.open_obligations, ctx.rejections, frozenset({payload_sha(GOOD)}),
                        ctx.round, 1)
        out = proposer(srv, repeat_retries=2).propose(ctx)
    assert len(out) == 3 and len(srv.requests) == 3  # one request of the round, two asked again, then it stops


def test_a_session_against_a_fake_endpoint_sends_no_repeat_to_a_checker(toy_contract, repo):
    script = [good({"x": "1/10"}), good({"x": "1/2"}), good({"x": "1/2"}), good({"x": "1/2"}), good({"x": "7/10"})]
    runner = CountingRunner()
    with FakeChatServer(script) as srv:
        target = build_target(toy_contract)
        opts = OpenAIOptions(model="fake", base_url=srv.url, samples=1, concurrency=1, max_retries=0,
                             request_timeout=5.0, max_consecutive_failures=1)
        prop = build_openai_proposer(toy_contract, target, opts)
        summary = Session(toy_contract, repo, runner).run(prop, SessionLimits(budget=5, samples=1))
    checked = [json.dumps(p, sort_keys=True) for p in runner.checked]
    assert len(checked) == len(set(checked)) == 3  # the seed, 1/2 and 7/10: each exactly once
    assert summary.repeats == 3 and summary.labels["correct"] == 2
    with DBSession(repo.engine) as s:
        rows = list(s.exec(select(CandidateRow).order_by(CandidateRow.id)))
    assert sum("repeat_of" in json.loads(r.proposer_meta) for r in rows) == 3


def test_a_form_copy_of_a_seed_spelled_differently_in_the_contract_is_a_repeat_never_checked(repo):
    from mathloop.check.checker import Checker
    from mathloop.targets import load_contract

    contract = load_contract("pair-correlation-rh")  # its seed spells 3187/5000 as "6374/10000"
    target = build_target(contract)
    copy = target.proposal_form().from_payload(dict(contract.seed))  # what a model sees and copies
    assert target.proposal_form().to_payload(copy) != dict(contract.seed)  # the form's canonical spelling differs
    with FakeChatServer([], default=good(copy)) as srv:
        opts = OpenAIOptions(model="fake", base_url=srv.url, samples=1, concurrency=1, max_retries=0,
                             request_timeout=5.0, max_consecutive_failures=1, repeat_retries=0)
        prop = build_openai_proposer(contract, target, opts)
        summary = Session(contract, repo, Checker(contract, target=target)).run(prop, SessionLimits(budget=1, samples=1))
    assert summary.repeats == 1
    with DBSession(repo.engine) as s:
        rows = list(s.exec(select(CandidateRow).order_by(CandidateRow.id)))
    assert len(rows) == 2 and rows[1].evidence is None and "repeat_of" in json.loads(rows[1].proposer_meta)
    assert json.loads(rows[1].payload) == json.loads(rows[0].payload)  # stored in the head's own spelling
