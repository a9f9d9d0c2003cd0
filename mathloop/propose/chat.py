"""One chat-completion request with explicit retries: the only place that talks HTTP to a model.

The `openai` client's own retries are off (max_retries=0) so that every retry, its backoff and
its reason are visible here and testable. The API key lives only inside the client; every
message that leaves this module is passed through `Redactor` first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import openai

from mathloop.propose.response_format import FormatNegotiation, is_context_overflow, is_format_refusal, response_format

_ERROR_BODY_CHARS = 300
# Status codes worth retrying: rate limits, timeouts and server-side failures.
_RETRY_STATUS = frozenset({408, 409, 425, 429})


class Redactor:
    """Replaces a secret in any text that might be recorded; its repr never shows the secret."""

    def __init__(self, secret: str | None) -> None:
        # Very short strings are placeholders ("x"), not secrets; masking them would mangle text.
        self._secret = secret if secret and len(secret) >= 4 else None

    def __call__(self, text: str) -> str:
        return text.replace(self._secret, "[redacted]") if self._secret else text

    def __repr__(self) -> str:
        return "Redactor(<hidden>)"


class RequestFailed(Exception):
    """No usable reply after the allowed retries; str() is a redacted reason.

    `context_overflow` is set when the server said the prompt does not fit its context window.
    """

    def __init__(self, reason: str, attempts: int, *, context_overflow: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.attempts, self.context_overflow = reason, attempts, context_overflow


@dataclass(frozen=True)
class ChatReply:
    """What one successful request returned, with its cost and how it was obtained."""

    content: str | None
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    tokens_reported: bool
    latency_s: float
    attempts: int
    mode: str


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


def _error_text(err: openai.APIStatusError) -> str:
    try:
        body = err.response.text
    except Exception:  # noqa: BLE001 - a broken body must not hide the status code
        body = ""
    return (body or str(err.message or ""))[:_ERROR_BODY_CHARS]


def _estimate_tokens(messages: Sequence[Mapping[str, str]], content: str | None) -> tuple[int, int]:
    # Servers that report no usage still spend tokens; ~4 characters per token keeps the budget honest.
    prompt = sum(len(m.get("content", "")) for m in messages) // 4 + 1
    return prompt, len(content or "") // 4 + 1


class ChatEndpoint:
    """An OpenAI-compatible chat endpoint with explicit retries and format negotiation."""

    def __init__(self, *, model: str, base_url: str | None, api_key: str, timeout: float, schema: Mapping[str, Any],
                 retry: RetryPolicy, formats: FormatNegotiation, redact: Redactor,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.model, self.base_url, self.schema = model, base_url, dict(schema)
        self.retry, self.formats, self.redact, self._sleep = retry, formats, redact, sleep
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)

    def __repr__(self) -> str:
        return f"ChatEndpoint(model={self.model!r}, mode={self.formats.mode!r})"

    def complete(self, messages: Sequence[Mapping[str, str]], *, temperature: float, max_tokens: int) -> ChatReply:
        """Return the first usable reply.

        Raises:
            RequestFailed: retries exhausted, or a refusal that retrying cannot fix (4xx).
        """
        attempts = retries = 0
        while True:
            mode = self.formats.mode
            fmt = response_format(mode, self.schema)
            attempts += 1
            start = time.monotonic()
            retry_after: float | None = None
            try:
                resp = self._client.chat.completions.create(
                    model=self.model, messages=list(messages), temperature=temperature, max_tokens=max_tokens,
                    **({"response_format": fmt} if fmt is not None else {}),
                )
            except openai.APIStatusError as e:
                status, text = e.status_code, self.redact(_error_text(e))
                if fmt is not None and is_format_refusal(status, text) and self.formats.refuse(mode):
                    continue  # the server refused the structured-output form: try the next one
                if status not in _RETRY_STATUS and status < 500:
                    raise RequestFailed(f"HTTP {status}: {text}", attempts,
                                        context_overflow=is_context_overflow(status, text)) from None
                reason, retry_after = f"HTTP {status}: {text}", _retry_after(e.response.headers)
            except openai.APITimeoutError:
                reason = f"timeout after {time.monotonic() - start:.1f}s"
            except openai.APIConnectionError as e:
                reason = self.redact(f"connection error: {e.__cause__ or e}")[:_ERROR_BODY_CHARS]
            except openai.APIError as e:  # a 200 whose body is not a chat completion
                reason = self.redact(f"invalid response: {e}")[:_ERROR_BODY_CHARS]
            except ValueError as e:  # a 200 whose body is not JSON at all (JSONDecodeError, pydantic)
                reason = self.redact(f"invalid response body: {type(e).__name__}: {e}")[:_ERROR_BODY_CHARS]
            except Exception as e:  # noqa: BLE001 - transport errors openai does not wrap (e.g. InvalidURL)
                # Recorded as a failed attempt with its reason and counted towards StopSession: a
                # broken endpoint may end the session, never crash the loop.
                reason = self.redact(f"transport error: {type(e).__name__}: {e}")[:_ERROR_BODY_CHARS]
            else:
                reply = self._reply(resp, messages, time.monotonic() - start, attempts, mode)
                if reply is not None:
                    self.formats.confirm(mode)
                    return reply
                reason = "response without choices"
            if retries >= self.retry.max_retries:
                raise RequestFailed(f"{reason} (after {attempts} attempts)", attempts) from None
            self._sleep(self.retry.delay(retries, retry_after))
            retries += 1

    def _reply(self, resp: Any, messages: Sequence[Mapping[str, str]], latency: float, attempts: int,
               mode: str) -> ChatReply | None:
        choices = getattr(resp, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            return None
        content = choices[0].message.content
        usage = getattr(resp, "usage", None)
        pt, ct = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
        reported = isinstance(pt, int) and isinstance(ct, int)
        if not reported:
            pt, ct = _estimate_tokens(messages, content)
        return ChatReply(content=content if isinstance(content, str) else None,
                         finish_reason=choices[0].finish_reason, prompt_tokens=int(pt), completion_tokens=int(ct),
                         tokens_reported=reported, latency_s=latency, attempts=attempts, mode=mode)
