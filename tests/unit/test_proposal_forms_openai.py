"""The model proposer speaks the target's proposal form: schema sent, reply mapped, head and history shown in it."""

import json

from mathloop.domain import Head, Label, Rejection
from mathloop.propose.base import Context
from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer
from mathloop.targets import build_target, load_contract
from tests.unit.test_openai_proposer import FakeChatServer, _env, completion, good  # noqa: F401

CONTRACT = load_contract("levinson-conrey")
TARGET = build_target(CONTRACT)


def _ctx(rejections=()):
    head = Head("c" * 64, 0, dict(CONTRACT.seed), {}, {})
    return Context(CONTRACT, head, ("kappa-bound",), tuple(rejections), frozenset(), 0, 1)


def _proposer(srv, **kw):
    kw.setdefault("form", "edits")  # the S/T/R edit form by name (the default form is the move form)
    opts = OpenAIOptions(model="m", base_url=srv.url, samples=1, concurrency=1, max_retries=0, request_timeout=5.0,
                         repeat_retries=0, **kw)
    return build_openai_proposer(CONTRACT, TARGET, opts)


def test_an_edit_reply_is_applied_to_the_head_and_stored_as_the_full_exact_candidate():
    reply = {"dS": ["-0.2"], "dT": ["0.1", "-0.1"], "dR": "-0.1"}  # S = [-0.2], T = [0.6, -0.1], R = 1.2
    with FakeChatServer([good(reply)]) as srv:
        (p,) = _proposer(srv).propose(_ctx())
    assert p.malformed is None
    assert p.payload == {"P": ["0", "4/5", "1/5"], "Q": ["1", "-3/5", "-6/5", "4/5"], "R": "6/5"}
    assert p.meta["model_reply"] == reply and p.meta["form"] == "levinson-conrey S/T/R edits"
    schema = srv.requests[0]["body"]["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) == {"dS", "dT", "dR"} and schema["properties"]["dT"]["maxItems"] == 6
    assert "CHANGES to the head" in srv.user_prompt(0)


def test_an_absolute_s_t_r_reply_is_still_stored_as_the_full_exact_candidate_with_the_reply_in_meta():
    reply = {"S": ["0.2", "-0.5"], "T": ["0.4", "0.05"], "R": "1.3"}
    with FakeChatServer([good(reply)]) as srv:
        (p,) = _proposer(srv).propose(_ctx())
    assert p.malformed is None
    assert p.payload == {"P": ["0", "6/5", "-7/10", "1/2"], "Q": ["1", "-11/10", "3/5", "-2/5"], "R": "13/10"}
    assert p.meta["model_reply"] == reply and p.meta["form"] == "levinson-conrey S/T/R edits"


def test_a_reply_off_the_form_is_malformed_with_the_field_and_reason():
    with FakeChatServer([good({"S": ["1/3"], "T": ["0.5"], "R": "1.3"})]) as srv:
        (p,) = _proposer(srv).propose(_ctx())
    assert p.malformed.startswith("reply off the form (levinson-conrey S/T/R edits): S[0]: must be a decimal")


def test_a_step_over_the_bound_is_malformed_with_the_field_and_reason():
    with FakeChatServer([good({"dS": ["0.5"], "dT": [], "dR": "0"})]) as srv:
        (p,) = _proposer(srv).propose(_ctx())
    assert p.malformed.startswith("reply off the form (levinson-conrey S/T/R edits): dS[0]: must be a decimal step")


def test_a_full_payload_reply_is_still_accepted_and_left_to_the_targets_parser():
    full = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}
    with FakeChatServer([good(full)]) as srv:
        (p,) = _proposer(srv).propose(_ctx())
    assert p.malformed is None and p.payload == full and "model_reply" not in p.meta


def test_the_prompt_shows_the_head_and_a_history_table_in_the_form_most_informative_first():
    rejections = (Rejection({"P": ["0", "1"]}, Label.MALFORMED, ("Q: missing",)),
                  Rejection({"P": ["0", "1"], "Q": ["1", "-1"], "R": "15/8"}, Label.REGRESSION,
                            ("kappa 0.2011 is below the head's 0.3868",)))
    with FakeChatServer([good({"S": ["0"], "T": ["0.5"], "R": "1.25"})]) as srv:
        _proposer(srv).propose(_ctx(rejections))
    user = srv.user_prompt(0)
    assert json.dumps({"R": "1.3", "S": ["0"], "T": ["0.5"]}, sort_keys=True) in user
    assert "P(x) = x + x(1-x)*S(x)" in user and "Edit the head above" in user
    lines = [line for line in user.splitlines() if line.startswith("- regression:") or line.startswith("- malformed:")]
    assert lines[0].startswith('- regression: {"dR": "0.575", "dS": [], "dT": []} -> kappa 0.2011')  # as an edit
    assert lines[1].startswith("- malformed:")


def test_a_form_with_the_payloads_own_keys_judges_every_reply():
    contract = load_contract("sidon-autocorrelation")
    opts = OpenAIOptions(model="m", base_url="http://127.0.0.1:9/v1", samples=1, repeat_retries=0)
    prop = build_openai_proposer(contract, build_target(contract), opts)
    assert prop.reader.payload({"heights": ["1", "1/2"]}) == ({"heights": ["1", "1/2"]}, True)
    for bad in (["0", "1"], ["-1"], ["2/0"]):
        try:
            prop.reader.payload({"heights": bad})
        except ValueError as e:
            assert str(e).startswith("reply off the form (sidon positive heights): heights[0]:")
        else:
            raise AssertionError(f"{bad} accepted")


def test_with_a_form_the_prompt_summarises_obligations_and_limits_and_asks_for_decimals():
    with FakeChatServer([good({"S": ["0"], "T": ["0.5"], "R": "1.25"})]) as srv:
        _proposer(srv).propose(_ctx())
    system, user = srv.requests[0]["body"]["messages"][0]["content"], srv.user_prompt(0)
    assert "exactly as the schema allows" in system and '"13/10"' not in system  # S/T/R take decimals only
    assert "holds by construction in the form above" in user
    assert "max_numerator" not in user and "q-symmetric" not in user  # the contract's limits and side conditions
    assert len(user) < 2500


def test_without_a_form_the_prompt_lists_obligations_and_limits():
    from mathloop.propose.prompt import build_messages

    contract = load_contract("pair-correlation")  # the identity form
    head = Head("c" * 64, 0, dict(contract.seed), {}, {})
    ctx = Context(contract, head, tuple(o.id for o in contract.obligations), (), frozenset(), 0, 1)
    system, user = (m["content"] for m in build_messages(ctx, {"type": "object"}, rejections=0, form=None))
    assert '"13/10"' in system and "holds by construction" not in user
    assert all(f"- {o.id}:" in user for o in contract.obligations)
