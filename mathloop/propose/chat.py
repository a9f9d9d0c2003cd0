"""One chat-completion request with explicit retries (tenacity): the only place that talks HTTP to a model.

The `openai` client's own retries are off (max_retries=0) so that every retry, its backoff and
its reason are visible here and testable. The API key lives only inside the client; every
string that leaves this module (reply fields, error reasons) is passed through `Redactor` first.
Each attempt ends by its wall-clock deadline (`--request-timeout`, and never past the session's
own deadline) and each reply body is capped in size (see `transport`).
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception_type

from mathloop.propose.redact import Redactor
from mathloop.propose.response_format import FormatNegotiation, is_context_overflow, is_format_refusal, response_format
from mathloop.propose.transport import DEFAULT_MAX_BODY_BYTES, ReplyTooLarge, UndecodableReply, bounded_client, deadline

_ERROR_BODY_CHARS = 300
# Status codes worth retrying: rate limits, timeouts and server-side failures.
_RETRY_STATUS = frozenset({408, 409, 425, 429})
# Token counts outside this range are not counts (a hostile server could also send 10**5000,
# which json.dumps refuses to write): they are estimated instead.
_MAX_TOKENS_REPORTED = 10**9
_FINISH_REASON_CHARS = 64


class RequestFailed(Exception):
    """No usable reply after the allowed retries; str() is a redacted reason.

    `context_overflow` is set when the server said the prompt does not fit its context window.
    """

    def __init__(self, reason: str, attempts: int, *, context_overflow: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.attempts, self.context_overflow = reason, attempts, context_overflow


class _Transient(Exception):
    """A failed request worth retrying: its redacted reason and the server's Retry-After (seconds), if any."""

    def __init__(self, reason: str, retry_after: float | None) -> None:
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


def _transient(state: RetryCallState) -> _Transient:
    """Return the _Transient that ended the try `state` describes."""
    err = state.outcome.exception() if state.outcome is not None else None
    if not isinstance(err, _Transient):
        raise TypeError(f"only transient failures are retried, not {err!r}")
    return err


@dataclass(frozen=True)
class ChatReply:
    """What one successful request returned (every string already redacted), its cost and how it was obtained."""

    content: str | None
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    tokens_reported: bool
    latency_s: float
    attempts: int
    mode: str
    served_model: str | None = None


@dataclass(frozen=True)
class RetryPolicy:
    """Retries after transient failures: delay = min(cap, base * 2**k), at least Retry-After (capped)."""

    max_retries: int = 4
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Return the seconds to wait before retry number `retry` (0-based).

        >>> RetryPolicy(backoff_s=0.5, backoff_max_s=3).delay(0), RetryPolicy(backoff_s=0.5, backoff_max_s=3).delay(5)
        (0.5, 3)
        """
        d = min(self.backoff_max_s, self.backoff_s * 2**retry)
        if retry_after is not None:
            d = max(d, min(retry_after, self.backoff_max_s))
        return d


def _retry_after(headers: Any) -> float | None:
    try:
        v = headers.get("retry-after") if headers is not None else None
        return max(0.0, float(v)) if v is not None else None
    except (TypeError, ValueError):
        return None  # an HTTP-date or garbage: fall back to our own backoff


def _error_text(err: openai.APIStatusError, redact: Redactor) -> str:
    """Return the error body (or message), redacted before it is cut (a cut must not leave part of the key)."""
    try:
        body = err.response.text
    except Exception:  # noqa: BLE001 - a broken body must not hide the status code
        body = ""
    return redact(body or str(err.message or ""))[:_ERROR_BODY_CHARS]


def _estimate_tokens(messages: Sequence[Mapping[str, str]], content: str | None) -> tuple[int, int]:
    # Servers that report no usage still spend tokens; ~4 characters per token keeps the budget honest.
    prompt = sum(len(m.get("content", "")) for m in messages) // 4 + 1
    return prompt, len(content or "") // 4 + 1


def _count(value: Any) -> int | None:
    """Return a reported token count if it is a plausible one (an int, not a bool, in range)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_TOKENS_REPORTED:
        return value
    return None


def _transport_reason(e: openai.APIConnectionError) -> str:
    cause = e.__cause__
    if isinstance(cause, (ReplyTooLarge, UndecodableReply)):
        return f"reply refused: {cause}"
    return f"connection error: {cause or e}"


def check_base_url(url: str) -> str:
    """Return the endpoint URL unchanged if it is a usable http(s) URL.

    >>> check_base_url("http://127.0.0.1:8001/v1")
    'http://127.0.0.1:8001/v1'

    Raises:
        ValueError: "base_url: <reason>" (the CLI shows it as a bad parameter).
    """
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a malformed port
    except ValueError as e:
        raise ValueError(f"base_url: {e}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url: expected http(s)://HOST[:PORT]/PATH, got {url!r}")
    # The URL is stored with the session and shown in its options: a credential in it would leak there.
    if parts.username is not None or parts.password is not None:
        raise ValueError("base_url: credentials in the URL are refused (they would be stored with the session); "
                         "put the key in $OPENAI_API_KEY")
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise ValueError("base_url: a query string or fragment is refused (the client appends the API path, and a "
                         "key in it would be stored with the session); put the key in $OPENAI_API_KEY")
    if all(c.isdigit() or c == "." for c in parts.hostname):
        try:
            ipaddress.ip_address(parts.hostname)
        except ValueError:
            raise ValueError(f"base_url: invalid IPv4 address {parts.hostname!r}") from None
    del port
    return url


class ChatEndpoint:
    """An OpenAI-compatible chat endpoint with explicit retries, format negotiation and bounded replies."""

    def __init__(self, *, model: str, base_url: str | None, api_key: str, timeout: float, schema: Mapping[str, Any],
                 retry: RetryPolicy, formats: FormatNegotiation, redact: Redactor,
                 sleep: Callable[[float], None] = time.sleep, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.model, self.base_url, self.schema, self.timeout = model, base_url, dict(schema), timeout
        self.retry, self.formats, self.redact, self._sleep = retry, formats, redact, sleep
        redact.guard_logs()
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout,
                                     http_client=bounded_client(timeout, max_body_bytes))

    def __repr__(self) -> str:
        return f"ChatEndpoint(model={self.model!r}, mode={self.formats.mode!r})"

    def _failed(self, reason: str, attempts: int, *, context_overflow: bool = False) -> RequestFailed:
        return RequestFailed(self.redact(reason)[:_ERROR_BODY_CHARS + 80], attempts, context_overflow=context_overflow)

    def complete(self, messages: Sequence[Mapping[str, str]], *, temperature: float, max_tokens: int,
                 session_deadline: float | None = None, schema: Mapping[str, Any] | None = None) -> ChatReply:
        """Return the first usable reply; each attempt ends by its own deadline and by `session_deadline`.

        `schema` replaces the session's schema for this request (a form's schema for the current head).

        Raises:
            RequestFailed: retries exhausted, the session's deadline reached, or a refusal that
                retrying cannot fix (4xx).
        """
        attempts = 0  # requests sent, format refusals included

        def one_try() -> ChatReply:
            nonlocal attempts
            while True:  # a refused structured-output form is followed at once by the next form: no retry spent
                mode = self.formats.mode
                fmt = response_format(mode, self.schema if schema is None else schema)
                start = time.monotonic()
                if session_deadline is not None and start >= session_deadline:
                    raise self._failed(f"session time limit reached (after {attempts} attempts)", attempts)
                attempts += 1
                at = start + self.timeout if session_deadline is None else min(start + self.timeout, session_deadline)
                retry_after: float | None = None
                try:
                    with deadline(at):
                        resp = self._client.chat.completions.create(
                            model=self.model, messages=list(messages), temperature=temperature, max_tokens=max_tokens,
                            **({"response_format": fmt} if fmt is not None else {}),
                        )
                        reply = self._reply(resp, messages, time.monotonic() - start, attempts, mode)
                except openai.APIStatusError as e:
                    status, text = e.status_code, _error_text(e, self.redact)
                    if fmt is not None and is_format_refusal(status, text) and self.formats.refuse(mode):
                        continue  # the server refused the structured-output form: try the next one
                    if status not in _RETRY_STATUS and status < 500:
                        raise self._failed(f"HTTP {status}: {text}", attempts,
                                           context_overflow=is_context_overflow(status, text)) from None
                    reason, retry_after = f"HTTP {status}: {text}", _retry_after(e.response.headers)
                except openai.APITimeoutError:
                    reason = f"timeout after {time.monotonic() - start:.1f}s (request limit {self.timeout:g}s)"
                except openai.APIConnectionError as e:
                    reason = _transport_reason(e)
                except openai.APIError as e:  # a 200 whose body is not a chat completion
                    reason = f"invalid response: {e}"
                except ValueError as e:  # a 200 whose body is not JSON at all (JSONDecodeError, pydantic)
                    reason = f"invalid response body: {type(e).__name__}: {e}"
                except Exception as e:  # noqa: BLE001 - transport errors openai does not wrap (e.g. InvalidURL)
                    # Recorded as a failed attempt with its reason and counted towards StopSession: a
                    # broken endpoint may end the session, never crash the loop.
                    reason = f"transport error: {type(e).__name__}: {e}"
                else:
                    if reply is not None:
                        self.formats.confirm(mode)
                        return reply
                    reason = "response without choices"
                raise _Transient(self.redact(reason)[:_ERROR_BODY_CHARS], retry_after)

        def pause(state: RetryCallState) -> float:
            return self.retry.delay(state.attempt_number - 1, _transient(state).retry_after)

        def stop(state: RetryCallState) -> bool:
            return state.attempt_number > self.retry.max_retries or (
                session_deadline is not None and time.monotonic() + pause(state) >= session_deadline)

        def give_up(state: RetryCallState) -> ChatReply:
            why = "" if state.attempt_number > self.retry.max_retries else "; session time limit"
            raise self._failed(f"{_transient(state).reason} (after {attempts} attempts{why})", attempts) from None

        return Retrying(retry=retry_if_exception_type(_Transient), stop=stop, wait=pause, sleep=self._sleep,
                        retry_error_callback=give_up)(one_try)

    def _reply(self, resp: Any, messages: Sequence[Mapping[str, str]], latency: float, attempts: int,
               mode: str) -> ChatReply | None:
        """Return the reply's usable fields, redacted and type-checked (a hostile server sends any shape), or None."""
        try:
            choice = resp.choices[0]
            message = choice.message
        except (AttributeError, IndexError, KeyError, TypeError):
            return None
        if message is None:
            return None
        content = getattr(message, "content", None)
        content = self.redact(content) if isinstance(content, str) else None
        finish = getattr(choice, "finish_reason", None)
        finish = None if finish is None else self.redact(str(finish))[:_FINISH_REASON_CHARS]
        served = getattr(resp, "model", None)
        served = self.redact(str(served))[:_FINISH_REASON_CHARS] if served is not None else None
        usage = getattr(resp, "usage", None)
        pt, ct = _count(getattr(usage, "prompt_tokens", None)), _count(getattr(usage, "completion_tokens", None))
        reported = pt is not None and ct is not None
        if not reported:
            pt, ct = _estimate_tokens(messages, content)
        return ChatReply(content=content, finish_reason=finish, prompt_tokens=int(pt), completion_tokens=int(ct),
                         tokens_reported=reported, latency_s=latency, attempts=attempts, mode=mode,
                         served_model=served)
