"""Model plus optimiser, credited honestly: meta.origin on every model candidate, counted apart in dataset and bench."""

from dataclasses import dataclass

from mathloop.bench.metrics import _by_origin
from mathloop.domain import payload_sha
from mathloop.propose.origin import LOCAL, MODEL, MODEL_POLISHED, credit, origin_meta
from tests.unit.test_openai_proposer import GOOD, FakeChatServer, StubTarget, _env, context, good, proposer  # noqa: F401


def test_openai_plus_local_records_the_model_payload_sha_and_the_polisher():
    target = StubTarget(lambda p, s: dict(p, R="6/5"))
    with FakeChatServer([], default=good()) as srv:
        (p,) = proposer(srv, polish_seed=3, target=target).propose(context())
    assert p.meta["origin"] == {"model": payload_sha(GOOD), "polished_by": "local", "stored": payload_sha(p.payload)}
    assert credit(p.meta) == MODEL_POLISHED


def test_a_polish_that_changes_nothing_or_refuses_credits_the_model_alone():
    with FakeChatServer([], default=good()) as srv:
        (same,) = proposer(srv, polish_seed=3, target=StubTarget(lambda p, s: dict(p))).propose(context())
        (plain,) = proposer(srv).propose(context())
    assert same.meta["origin"]["polished_by"] is None and credit(same.meta) == MODEL
    assert plain.meta["origin"] == {"model": payload_sha(GOOD), "polished_by": None, "stored": payload_sha(GOOD)}


def test_candidates_without_a_model_are_local_and_old_model_rows_are_the_models():
    assert credit({}) == LOCAL and credit({"source": "seed.toml"}) == LOCAL
    assert credit({"model": "qwen"}) == MODEL
    assert origin_meta({"x": "1"}, {"x": "2"}, "local")["polished_by"] == "local"


@dataclass
class Rec:
    meta: dict
    commit_hash: str | None
    proposer: str = "openai:m"


def test_bench_counts_candidates_and_commits_per_origin():
    recs = [Rec({"model": "m", "origin": {"polished_by": "local"}}, "c1"), Rec({"model": "m", "origin": {}}, None),
            Rec({}, "c2", "local:0"), Rec({"model": "m", "origin": {"polished_by": None}}, "c3"),
            Rec({"model": "m", "origin": {"polished_by": None}}, "c4", "replay:claims.jsonl")]
    assert _by_origin(recs) == {"local": {"candidates": 1, "commits": 1}, "model": {"candidates": 2, "commits": 1},
                                "model+local": {"candidates": 1, "commits": 1},
                                "replay": {"candidates": 1, "commits": 1}}
