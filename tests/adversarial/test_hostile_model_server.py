"""A hostile model server against the model proposer: every bad reply is refused with its reason, in bounded time.

Each case is a should-refuse: either a `malformed` proposal (the reply arrived but is unusable) or a
failed request (no complete, bounded reply: the session goes on and stops after repeated failures),
and the reason is asserted. No case may raise anything but StopSession, or take longer than the
request timeout plus a small margin.
"""

from __future__ import annotations

import json
import time
import zlib

import pytest

from mathloop.propose.base import StopSession
from tests.support.hostile_server import HostileServer, Seen, Wire, completion_body, gzip_bomb, head, reply, send_json
from tests.unit.test_openai_proposer import GOOD, context, proposer

pytestmark = pytest.mark.slow  # many real-deadline HTTP exchanges (~11 s): CI's second tier runs it

TIMEOUT = 0.6
MARGIN = 1.5  # seconds past the request timeout that a case may take (thread and socket scheduling)


def _drip_body(seen: Seen, wire: Wire) -> None:
    data = json.dumps(completion_body(json.dumps(GOOD))).encode()
    if wire.send(head(length=len(data))):
        wire.drip(data, 0.25)


def _drip_status_line(seen: Seen, wire: Wire) -> None:
    wire.drip(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n", 0.25)


def _headers_then_silence(seen: Seen, wire: Wire) -> None:
    wire.send(head(length=500) + b'{"choices": [')
    wire.hold()


def _never_closes(seen: Seen, wire: Wire) -> None:  # no length, no chunking: the body ends at close, which never comes
    wire.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + json.dumps(completion_body("{}")).encode())
    wire.hold()


def _chunked_garbage(seen: Seen, wire: Wire) -> None:
    wire.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n0\r\n\r\n")
    wire.close()


def _short_body(seen: Seen, wire: Wire) -> None:
    wire.send(head(length=10_000) + b'{"choices": []}')
    wire.close()


def _garbage_status_line(seen: Seen, wire: Wire) -> None:
    wire.send(b"hello there, I am not HTTP\r\n\r\n")
    wire.close()


def _huge_header(seen: Seen, wire: Wire) -> None:
    wire.send(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 300_000 + b"\r\n\r\n")


def _raw(body: bytes, status: int = 200, headers: dict[str, str] | None = None):
    return lambda seen, wire: wire.send(head(status, "OK", headers, len(body)) + body)


def _json_text(text: str, status: int = 200):
    return lambda seen, wire: send_json(wire, None, status, raw=text)


def _corrupt_gzip(seen: Seen, wire: Wire) -> None:
    data = b"\x1f\x8b\x08\x00garbage-not-deflate" * 10
    wire.send(head(headers={"Content-Encoding": "gzip"}, length=len(data)) + data)


_DEFLATE_BOMB = zlib.compress(b"{" * 4_000_000, 9)  # made once: compressing inside a reply would race the timeout


def _deflate_bomb(seen: Seen, wire: Wire) -> None:
    wire.send(head(headers={"Content-Encoding": "deflate"}, length=len(_DEFLATE_BOMB)) + _DEFLATE_BOMB)


DEEP = "[" * 30_000 + "]" * 30_000

# (id, behaviour, reason expected in the failure, options)
FAILED = [
    ("drips-one-byte-at-a-time", _drip_body, "timeout after", {}),
    ("drips-the-status-line", _drip_status_line, "timeout after", {}),
    ("headers-then-silence", _headers_then_silence, "timeout after", {}),
    ("never-closes", _never_closes, "timeout after", {}),
    ("gzip-bomb", gzip_bomb(8_000_000), "inflates to more than 1048576 bytes", {"max_body_bytes": 1 << 20}),
    ("deflate-bomb", _deflate_bomb, "inflates to more than 1048576 bytes", {"max_body_bytes": 1 << 20}),
    ("body-over-the-cap", _raw(b" " * (3 << 20)), "larger than 1048576 bytes", {"max_body_bytes": 1 << 20}),
    ("chunked-garbage", _chunked_garbage, "connection error", {}),
    ("body-shorter-than-its-length", _short_body, "connection error", {}),
    ("not-http-at-all", _garbage_status_line, "connection error", {}),
    ("header-over-100kb", _huge_header, "connection error", {}),
    ("unknown-content-encoding", _raw(b"{}", headers={"Content-Encoding": "br"}), "unsupported Content-Encoding", {}),
    ("corrupt-gzip", _corrupt_gzip, "corrupt gzip body", {}),
    ("html-200", _raw(b"<html>oops</html>"), "invalid response", {}),
    ("invalid-utf8-200", _raw(b'{"choices": "\xff\xfe\xfa"}'), "invalid response", {}),
    ("json-array-200", _json_text("[1, 2, 3]"), "response without choices", {}),
    ("choices-is-an-object", _json_text('{"choices": {"0": 1}}'), "response without choices", {}),
    ("choices-is-a-string", _json_text('{"choices": "abc"}'), "response without choices", {}),
    ("message-is-null", _json_text('{"choices": [{"message": null, "finish_reason": "stop"}]}'),
     "response without choices", {}),
    ("token-count-over-the-int-limit", _json_text('{"choices": [], "usage": {"prompt_tokens": ' + "9" * 5000 + "}}"),
     "invalid response", {}),
    ("redirect-elsewhere", lambda s, w: w.send(head(302, "Found", {"Location": "http://10.255.255.1/steal"}, 0)),
     "HTTP 302", {}),
    ("unauthorised", _json_text('{"error": "no"}', 401), "HTTP 401", {}),
]


@pytest.mark.parametrize("case,behaviour,reason,opts", FAILED, ids=[c[0] for c in FAILED])
def test_a_reply_that_never_completes_or_breaks_http_is_a_failed_request_with_its_reason(case, behaviour, reason, opts):
    with HostileServer([], default=behaviour) as srv:
        prop = proposer(srv, request_timeout=TIMEOUT, max_retries=0, max_consecutive_failures=1, **opts)
        t0 = time.monotonic()
        with pytest.raises(StopSession) as stop:
            prop.propose(context())
        elapsed = time.monotonic() - t0
    assert reason in str(stop.value), str(stop.value)
    assert elapsed < TIMEOUT + MARGIN, f"{case}: {elapsed:.2f}s"
    assert prop.stats().failed_requests == 1


MALFORMED = [
    ("integer-over-4300-digits", '{"P": ["0", "1"], "Q": ["1", "-1"], "R": ' + "7" * 5000 + "}", "4300 digits"),
    ("integer-over-4300-digits-in-free-text", "Here: {\"R\": " + "7" * 4301 + "}", "4300 digits"),
    ("nested-30k-deep", DEEP, "nested too deeply"),
    ("nan", '{"P": ["0", "1"], "Q": ["1", "-1"], "R": NaN}', "non-finite number NaN"),
    ("negative-infinity", '{"R": -Infinity}', "non-finite number -Infinity"),
    ("duplicate-keys", '{"R": "1", "R": "2"}', "duplicate key 'R'"),
    ("reply-over-the-char-cap", '{"R": "' + "1" * 70_000 + '"}', "reply too long"),
    ("a-million-open-braces", "{" * 60_000, "never closed"),
    ("braces-without-json", "{x} " * 5000, "no valid JSON object"),
    ("prose-only", "I refuse to answer in JSON.", "no JSON object in reply"),
    ("empty-content", "", "empty reply"),
    ("whitespace-content", " \n\t ", "empty reply"),
]


@pytest.mark.parametrize("case,content,reason", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_an_unusable_reply_is_malformed_with_its_reason(case, content, reason):
    with HostileServer([reply(content)]) as srv:
        t0 = time.monotonic()
        [p] = proposer(srv, request_timeout=TIMEOUT + 2).propose(context())
        elapsed = time.monotonic() - t0
    assert p.malformed is not None and reason in p.malformed, p.malformed
    assert elapsed < 3.0, f"{case}: {elapsed:.2f}s"
    json.dumps([p.payload, dict(p.meta)], default=str).encode("utf-8")  # storable as it is


@pytest.mark.parametrize("content,reason", [
    (None, "empty reply (finish_reason stop)"),
    ([{"type": "text", "text": json.dumps(GOOD)}], "empty reply"),
    (12345, "empty reply"),
], ids=["null", "content-parts-list", "number"])
def test_content_that_is_not_a_string_is_an_empty_reply(content, reason):
    with HostileServer([reply(content)]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is not None and p.malformed.startswith(reason)


def test_a_finish_reason_of_length_is_truncation_whatever_the_content():
    with HostileServer([reply(json.dumps(GOOD), finish_reason="length")]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is not None and p.malformed.startswith("truncated at max_tokens")


@pytest.mark.parametrize("finish_reason,usage", [
    ({"nested": ["x"] * 100}, {"prompt_tokens": -5, "completion_tokens": 3}),
    (7, {"prompt_tokens": "100", "completion_tokens": 1.5}),
    ("stop" * 1000, {"prompt_tokens": True, "completion_tokens": False}),
    ("stop", {"prompt_tokens": 10**12, "completion_tokens": 1}),
], ids=["dict-reason-negative-tokens", "number-reason-string-tokens", "long-reason-bool-tokens", "absurd-tokens"])
def test_odd_field_types_are_normalised_and_implausible_token_counts_estimated(finish_reason, usage):
    with HostileServer([reply(json.dumps(GOOD), finish_reason=finish_reason, usage=usage)]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is None and p.payload == GOOD
    assert isinstance(p.meta["finish_reason"], str) and len(p.meta["finish_reason"]) <= 64
    assert p.meta["tokens_reported"] is False and 0 < p.meta["prompt_tokens"] < 10**6


@pytest.mark.parametrize("text,stored", [('"\\ud800"', "\ufffd"), ('"a\\u0000b"', "a\ufffdb")],
                         ids=["lone-surrogate", "nul-character"])
def test_strings_the_store_cannot_hold_are_replaced_not_fatal(text, stored):
    content = '{"P": ["0", "1"], "Q": ["1", "-1"], "R": ' + text + "}"
    with HostileServer([reply(content)]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.payload["R"] == stored
    json.dumps(p.payload, ensure_ascii=False).encode("utf-8")
    assert "\x00" not in json.dumps(dict(p.meta), ensure_ascii=False)


def test_a_redirect_is_not_followed_so_the_key_goes_nowhere_else():
    with HostileServer([], default=_json_text("{}")) as elsewhere:
        target = elsewhere.url + "/chat/completions"
        redirect = lambda s, w: w.send(head(307, "Temporary Redirect", {"Location": target}, 0))  # noqa: E731
        with HostileServer([], default=redirect) as srv:
            with pytest.raises(StopSession, match="HTTP 307"):
                proposer(srv, max_retries=0, max_consecutive_failures=1).propose(context())
        assert elsewhere.seen == []


def test_retries_never_run_past_the_sessions_deadline():
    with HostileServer([], default=_drip_body) as srv:
        prop = proposer(srv, request_timeout=30.0, max_retries=10, samples=2, concurrency=2, backoff_s=0.0)
        t0 = time.monotonic()
        ctx = context(samples=2)
        out = prop.propose(type(ctx)(**{**ctx.__dict__, "deadline": t0 + 1.5}))
        elapsed = time.monotonic() - t0
    assert out == [] and elapsed < 1.5 + MARGIN, elapsed  # nothing usable by the deadline: the loop stops


def test_a_slow_but_honest_reply_within_the_deadline_is_accepted():
    def slow(seen: Seen, wire: Wire) -> None:
        data = json.dumps(completion_body(json.dumps(GOOD))).encode()
        wire.send(head(length=len(data)))
        for i in range(0, len(data), max(1, len(data) // 4)):
            wire.send(data[i:i + max(1, len(data) // 4)])
            wire.stop.wait(0.1)

    with HostileServer([slow]) as srv:
        [p] = proposer(srv, request_timeout=3.0).propose(context())
    assert p.malformed is None and p.payload == GOOD


def test_a_gzip_reply_within_the_cap_is_inflated_and_used():
    import gzip

    def gz(seen: Seen, wire: Wire) -> None:
        data = gzip.compress(json.dumps(completion_body(json.dumps(GOOD))).encode())
        wire.send(head(headers={"Content-Encoding": "gzip"}, length=len(data)) + data)

    with HostileServer([gz]) as srv:
        [p] = proposer(srv).propose(context())
    assert p.malformed is None and p.payload == GOOD




@pytest.mark.parametrize("retry_after", ["inf", "nan", "-5", "1e309", "99999999999", "Wed, 21 Oct 2099 07:28:00 GMT",
                                         "\u0661"], ids=["inf", "nan", "negative", "overflow", "huge", "http-date",
                                                         "arabic-digit"])
def test_a_hostile_retry_after_never_delays_past_the_backoff_cap(retry_after):
    sleeps: list[float] = []
    busy = lambda s, w: send_json(w, {"error": "busy"}, 429, "Too Many", {"Retry-After": retry_after})  # noqa: E731
    with HostileServer([busy, reply(json.dumps(GOOD))]) as srv:
        [p] = proposer(srv, sleeps=sleeps, backoff_s=0.01, backoff_max_s=0.05).propose(context())
    assert p.payload == GOOD and len(sleeps) == 1 and 0 <= sleeps[0] <= 0.05, sleeps


def test_a_hanging_name_lookup_ends_at_the_request_deadline(monkeypatch):
    import threading

    from mathloop.propose import transport

    release = threading.Event()

    def hang(*args, **kwargs):
        release.wait(30)
        raise OSError("released")

    monkeypatch.setattr(transport.socket, "getaddrinfo", hang)
    client = transport.bounded_client(timeout=30.0)
    t0 = time.monotonic()
    try:
        with pytest.raises(transport.httpx.ConnectTimeout, match="name resolution of 'model.invalid'"):
            with transport.deadline(t0 + 1.0):
                client.get("http://model.invalid:9/v1/models")
        assert time.monotonic() - t0 < 1.0 + MARGIN
    finally:
        release.set()
        client.close()


def test_a_named_host_is_resolved_and_answered_through_the_bounded_lookup():
    with HostileServer([], default=reply(json.dumps(GOOD))) as srv:
        srv.url = srv.url.replace("127.0.0.1", "localhost")
        [p] = proposer(srv, request_timeout=5.0).propose(context())
    assert p.malformed is None and p.payload == GOOD
