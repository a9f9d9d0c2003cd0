"""One-coordinate moves (levinson-conrey, the default form): every move of the schema, from every head of the form,
maps exactly to an admissible candidate (should-prove); off-form replies are malformed naming the field
(should-refuse); the history a model sees is its own moves with their outcomes."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mathloop.domain import Head, Label, Rejection, payload_sha
from mathloop.propose.attempts import AttemptLog
from mathloop.propose.base import Context
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.levinson_conrey import admissibility
from mathloop.targets.levinson_conrey.form import expand
from mathloop.targets.levinson_conrey.move_form import EDGE, R_HIGH, R_LOW, SIZES

CONTRACT = load_contract("levinson-conrey")
LC = build_target(CONTRACT)
FORM = LC.proposal_form()
MOVES = LC.proposal_forms()["moves"]
SEED = dict(CONTRACT.seed)
FULL = FORM.schema["properties"]


def moves(schema=FORM.schema):
    """Return a hypothesis strategy of replies drawn from a move schema's own enums."""
    return st.fixed_dictionaries({k: st.sampled_from(v["enum"]) for k, v in schema["properties"].items()})


def instances(schema):
    """Return every reply of a move schema (finite: products of enums, over its anyOf branches)."""
    out = []
    for b in schema.get("anyOf", [schema]):
        p = b["properties"]
        out += [{"coordinate": c, "direction": d, "size": z} for c in p["coordinate"]["enum"]
                for d in p["direction"]["enum"] for z in p["size"]["enum"]]
    return out


def _coordinate():
    return st.integers(-999999, 999999).map(lambda n: Fraction(n, 10**6))


@st.composite
def heads(draw, max_p=11, max_q=5):
    """Return a head of the form: p0..p10, q, q1..q5 in [−0.999999, 0.999999] (6 places), R in [0.001, 1.999]."""
    p = draw(st.lists(_coordinate(), min_size=1, max_size=max_p))
    qs = draw(st.lists(_coordinate(), max_size=max_q))
    q, R = draw(_coordinate()), Fraction(draw(st.integers(1000, 1999000)), 10**6)
    while qs and qs[-1] == 0:
        qs.pop()
    return MOVES.to_payload.__self__.payload_of(p, q, qs, R)


def _admissible(payload):
    c = LC.parse(payload)  # within the contract's limits
    fails = admissibility.failures(c, Fraction(4, 7) - Fraction(1, 100), Fraction(4, 7))
    assert not fails, fails  # P(0) = 0, P(1) = 1, Q(0) = 1, Q symmetric, R > 0
    return c


def test_the_move_form_is_the_default_and_the_earlier_forms_stay_offered():
    assert FORM.name == "levinson-conrey moves" and FORM.edits
    assert set(LC.proposal_forms()) == {"moves", "edits", "absolute"}
    assert FORM.from_payload(SEED) == {"R": "1.3", "p0": "0", "q": "0.5"}


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(heads(), moves())
def test_every_move_of_every_head_maps_exactly_to_an_admissible_candidate(head, move):
    form = MOVES.to_payload.__self__
    p, q, qs, R = form.coords(head)
    c = _admissible(FORM.map(move, head))
    step = (1 if move["direction"] == "+" else -1) * SIZES[move["size"]]
    name = move["coordinate"]
    if name == "R":
        R = min(max(R + step, R_LOW), R_HIGH)
    elif name == "q":
        q = min(max(q + step, -EDGE), EDGE)
    else:
        v, k = (p, int(name[1:])) if name[0] == "p" else (qs, int(name[1:]) - 1)
        v += [Fraction(0)] * (k + 1 - len(v))
        v[k] = min(max(v[k] + step, -EDGE), EDGE)
    P, Q = expand(tuple(p), (q - sum(qs, Fraction(0)), *qs))  # the mapping, written out once more
    assert (c.P, c.Q, c.R) == (P, Q, R)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(heads(), st.data())
def test_a_head_offers_its_own_coordinates_and_every_offered_move_reads_back_as_that_move(head, data):
    offered = FORM.schema_at(head)
    assert set(offered["properties"]["coordinate"]["enum"]) <= set(FULL["coordinate"]["enum"])
    move = data.draw(moves(offered))
    moved = FORM.map(move, head)
    back = FORM.as_edit(moved, head)
    if moved == head:  # at an edge the move changes nothing: no move gives it
        assert back is None
    else:
        assert back is not None and FORM.map(back, head) == moved


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(heads(max_p=3, max_q=2), st.data())
def test_a_head_offers_exactly_the_moves_whose_candidate_is_not_stored_yet(head, data):
    offered = instances(FORM.schema_at(head))
    tried = data.draw(st.lists(st.sampled_from(offered), max_size=len(offered) - 1, unique_by=str))
    seen = frozenset({payload_sha(head)} | {payload_sha(FORM.map(m, head)) for m in tried})
    left = instances(FORM.schema_at(head, seen))
    assert all(m in offered for m in left)  # every reply of the narrowed schema is one of the head's schema
    assert {str(m) for m in left} == {str(m) for m in offered if payload_sha(FORM.map(m, head)) not in seen}


def test_when_every_move_was_tried_the_head_schema_is_offered_again():
    seen = frozenset(payload_sha(FORM.map(m, SEED)) for m in instances(FORM.schema_at(SEED)))
    assert FORM.schema_at(SEED, seen) == FORM.schema_at(SEED)


def test_one_move_from_the_seed_raises_the_degree_of_q_and_keeps_q1_fixed():
    out = FORM.map({"coordinate": "q1", "direction": "-", "size": "large"}, SEED)
    assert out == {"P": ["0", "1"], "Q": ["1", "-3/5", "-6/5", "4/5"], "R": "13/10"}
    assert FORM.from_payload(out) == {"R": "1.3", "p0": "0", "q": "0.5", "q1": "-0.1"}
    assert "q2 (new: raises the degree)" in FORM.head_note(out)


def test_a_move_past_the_edge_stops_there():
    top = FORM.map({"coordinate": "R", "direction": "+", "size": "large"},
                   {"P": ["0", "1"], "Q": ["1", "-1"], "R": "1999/1000"})
    assert top["R"] == "1999/1000"


@pytest.mark.parametrize("reply, field", [
    ({"coordinate": "p11", "direction": "+", "size": "tiny"}, "coordinate"),
    ({"coordinate": "S0", "direction": "+", "size": "tiny"}, "coordinate"),
    ({"coordinate": "p0", "direction": "up", "size": "tiny"}, "direction"),
    ({"coordinate": "p0", "direction": "+", "size": "0.1"}, "size"),
    ({"coordinate": "p0", "direction": "+", "size": 1}, "size"),
    ({"coordinate": "p0", "direction": "+"}, "size"),
    ({"coordinate": "p0", "direction": "+", "size": "tiny", "why": "x"}, "why"),
])
def test_moves_off_the_form_are_malformed_naming_the_field(reply, field):
    with pytest.raises(Malformed, match=field):
        FORM.map(reply, SEED)


def test_a_move_of_a_head_without_the_form_is_malformed():
    far = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "5"}  # R outside the form's range
    with pytest.raises(Malformed, match="coordinate: the head has no form"):
        FORM.map({"coordinate": "R", "direction": "-", "size": "tiny"}, far)


def test_s_t_r_and_edit_replies_are_still_read():
    assert FORM.map({"dS": ["-0.2"], "dT": [], "dR": "0"}, SEED) == FORM.map({"S": ["-0.2"], "T": ["0.5"], "R": "1.3"})


def _head(state, kappa, commit):
    return Head(commit * 64, 0, state, {}, {"kappa": Fraction(kappa)})


def test_the_history_names_moves_that_raised_kappa_and_those_tried_from_the_head_best_first():
    log, seed_head = AttemptLog(), _head(SEED, "0.386839", "a")
    up = {"coordinate": "q1", "direction": "-", "size": "large"}
    down = {"coordinate": "p0", "direction": "+", "size": "large"}
    raised = FORM.map(up, SEED)
    ctx = Context(CONTRACT, seed_head, (), (), frozenset(), 0, 2)
    log.record(up, raised, ctx)
    log.record(down, FORM.map(down, SEED), ctx)
    new_head = _head(raised, "0.399918", "b")
    refused = Rejection(FORM.map(down, SEED), Label.REGRESSION, ("kappa: certified κ >= 0.371000 is below the goal",))
    ctx2 = Context(CONTRACT, new_head, (), (refused,), frozenset(), 1, 2)
    worse, better = ({"coordinate": c, "direction": "+", "size": "tiny"} for c in ("R", "p0"))
    for move, value in ((worse, "0.301"), (better, "0.399"), ):
        log.record(move, FORM.map(move, raised), ctx2)
    text = log.text(ctx2)
    assert '- {"coordinate": "q1", "direction": "-", "size": "large"}: 0.386839 -> 0.399918' in text
    assert '- from 0.386839: {"coordinate": "p0", "direction": "+", "size": "large"}: 0.371000 (regression)' in text
    rejections = tuple(Rejection(FORM.map(m, raised), Label.REGRESSION, (f"kappa: certified {v} is worse",))
                       for m, v in ((worse, "0.301"), (better, "0.399")))
    text = log.text(Context(CONTRACT, new_head, (), rejections, frozenset(), 2, 2))
    here = text.split("Tried from the current head")[1].splitlines()[1:3]
    assert here[0].startswith('- {"coordinate": "p0"') and here[0].endswith("0.399 (regression)")  # best first
    assert here[1].startswith('- {"coordinate": "R"') and here[1].endswith("0.301 (regression)")


def test_a_move_neither_refused_nor_the_head_is_never_shown_as_raising_kappa():
    """An `error` (never among the context's refusals) looks like a move that was committed and then passed:
    the table cannot tell them apart, so it claims neither."""
    log, seed_head = AttemptLog(), _head(SEED, "0.386839", "a")
    up, errored = ({"coordinate": c, "direction": "-", "size": "large"} for c in ("q1", "p0"))
    ctx = Context(CONTRACT, seed_head, (), (), frozenset(), 0, 2)
    log.record(up, FORM.map(up, SEED), ctx)
    log.record(errored, FORM.map(errored, SEED), ctx)
    text = log.text(Context(CONTRACT, _head(FORM.map(up, SEED), "0.399918", "b"), (), (), frozenset(), 1, 2))
    raised = text.split("Tried from earlier heads")[0]
    assert '"q1"' in raised and '"p0"' not in raised
    assert '- from 0.386839: {"coordinate": "p0", "direction": "-", "size": "large"}: checked; not the head now' in text


@pytest.mark.slow  # a real session: three levinson-conrey checks, ~3 s
def test_a_session_shows_the_model_its_moves_and_offers_the_new_heads_coordinates(repo):
    from mathloop.check.checker import Checker
    from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer
    from mathloop.search.loop import Session, SessionLimits
    from tests.unit.test_openai_proposer import FakeChatServer, good

    up = {"coordinate": "q1", "direction": "-", "size": "large"}  # κ 0.3868 -> 0.3999 (a commit)
    down = {"coordinate": "p0", "direction": "+", "size": "large"}  # lowers κ
    with FakeChatServer([good(up), good(down)], default=good(down)) as srv:
        opts = OpenAIOptions(model="fake", base_url=srv.url, samples=1, concurrency=1, max_retries=0,
                             request_timeout=5.0, max_consecutive_failures=1, repeat_retries=0)
        prop = build_openai_proposer(CONTRACT, LC, opts)
        summary = Session(CONTRACT, repo, Checker(CONTRACT, target=LC)).run(prop, SessionLimits(budget=3, samples=1))
    assert summary.commits == 1
    last = srv.user_prompt(2)
    assert '{"R": "1.3", "p0": "0", "q": "0.5", "q1": "-0.1"}' in last  # the head by coordinate name
    assert "Moves that raised kappa" in last and '- {"coordinate": "q1", "direction": "-", "size": "large"}: 0.386839 -> 0.39' in last
    assert '- {"coordinate": "p0", "direction": "+", "size": "large"}: 0.3' in last.split("Tried from the current head")[1]
    sent = [r["body"]["response_format"] for r in srv.requests]
    moves_of = lambda f: instances(f.get("json_schema", {}).get("schema") or f["schema"])  # noqa: E731
    assert {m["coordinate"] for m in moves_of(sent[0])} == {"R", "p0", "p1", "q", "q1"}
    assert {m["coordinate"] for m in moves_of(sent[2])} == {"R", "p0", "p1", "q", "q1", "q2"}
    assert down in moves_of(sent[1]) and down not in moves_of(sent[2])  # tried from this head: not offered again


def test_the_second_request_of_a_round_is_not_offered_the_move_of_the_first():
    from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer
    from tests.unit.test_openai_proposer import FakeChatServer, good

    first = {"coordinate": "q1", "direction": "-", "size": "large"}
    with FakeChatServer([good(first), good({"coordinate": "R", "direction": "-", "size": "large"})]) as srv:
        opts = OpenAIOptions(model="m", base_url=srv.url, samples=2, concurrency=1, max_retries=0,
                             request_timeout=5.0, repeat_retries=0)
        out = build_openai_proposer(CONTRACT, LC, opts).propose(
            Context(CONTRACT, _head(SEED, "0.386839", "a"), (), (), frozenset({payload_sha(SEED)}), 0, 2))
    assert len(out) == 2
    sent = [r["body"]["response_format"] for r in srv.requests]
    moves_of = lambda f: instances(f.get("json_schema", {}).get("schema") or f["schema"])  # noqa: E731
    assert first in moves_of(sent[0]) and first not in moves_of(sent[1])
