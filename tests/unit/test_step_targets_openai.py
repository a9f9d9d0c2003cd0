"""The model proposer, unchanged, on the step-function targets: schema in the request, the reply parsed
and certified by the target (a fake chat-completions server answers)."""

from __future__ import annotations

import json

import pytest

from mathloop.targets import load_contract
from mathloop.domain import Head
from mathloop.propose.base import Context
from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer
from mathloop.targets import build_target
from tests.support.contracts import shipped
from tests.unit.test_openai_proposer import FakeChatServer, completion


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-step-targets")


@pytest.mark.parametrize("name,payload,bound", [
    ("sidon-autocorrelation", {"heights": ["1", "1/2", "1"]}, "C1a"),
    ("erdos-minimum-overlap", {"heights": ["0", "1/2", "1", "1", "1/2", "0"]}, "C1b"),
])
def test_openai_proposer_offers_the_heights_schema_and_its_reply_is_certified(name, payload, bound):
    contract = load_contract(shipped(name))
    target = build_target(contract)
    with FakeChatServer([completion(json.dumps(payload))]) as server:
        opts = OpenAIOptions(model="stub-model", base_url=server.url, samples=1, concurrency=1, request_timeout=5.0,
                             max_retries=1, backoff_s=0.01, backoff_max_s=0.02, max_consecutive_failures=2)
        prop = build_openai_proposer(contract, target, opts, sleep=lambda s: None)
        seed = target.check(None, target.parse(target.seed_payload()))
        head = Head("c" * 64, 0, dict(seed.state), {r.id: r.rank for r in seed.results}, dict(seed.bounds))
        [p] = prop.propose(Context(contract, head, (f"{bound.lower()}-upper-bound",), (), frozenset(), 0, 1))
        request = json.dumps(server.requests[0]["body"])
    assert p.malformed is None and p.payload == payload
    assert "heights" in request  # the schema (or its description) reached the model
    ev = target.check(None, target.parse(p.payload))
    assert bound in ev.bounds
