"""The model proposer: any OpenAI-compatible endpoint proposes; its output is only data.

One round = `samples` chat requests (at most `concurrency` in flight). Each reply becomes one
Proposal: parsed strictly, or marked malformed with the reason. `openai+local` passes each
parsed payload through the target's local polisher and records both (`meta.origin`). Replies are read in the
target's proposal form (`schemas.ReplyReader`) and mapped exactly to the full candidate; a reply repeating a
stored candidate is asked again within the round (`repeat_retries`). The session ends with
StopSession when the token budget is spent or the endpoint gave nothing usable for
`max_consecutive_failures` rounds in a row; nothing else escapes from a dead endpoint.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Mapping

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from mathloop.contract.fields import first_error, refuse

from mathloop.propose.attempts import AttemptLog
from mathloop.propose.base import Context, Proposal, Proposer, StopSession, payload_sha
from mathloop.propose.chat import ChatEndpoint, ChatReply, RequestFailed, RetryPolicy, check_base_url
from mathloop.propose.extract import MAX_REPLY_CHARS, NotJSON, extract_json
from mathloop.propose.origin import origin_meta
from mathloop.propose.prompt import _json_text, build_messages, template
from mathloop.propose.redact import Redactor
from mathloop.propose.response_format import MODES, FormatNegotiation
from mathloop.propose.schemas import ReplyReader, schema_keys
from mathloop.propose.transport import DEFAULT_MAX_BODY_BYTES

def _model_name(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise refuse("must be a non-empty name")
    return value


def _known_mode(value: Any) -> Any:
    if value not in MODES:
        raise refuse(f"unknown mode {value!r} (known: {', '.join(MODES)})")
    return value


# Placeholder key for local servers that ignore authentication (llama.cpp, vLLM without --api-key).
NO_KEY = "not-needed"
_PAYLOAD_EXCERPT_CHARS = 2000


class OpenAIOptions(BaseModel):
    """Settings of a model proposer session.

    Attributes:
        model: model name sent to the endpoint (vLLM's --served-model-name).
        base_url: endpoint, e.g. http://127.0.0.1:8001/v1; None = $OPENAI_BASE_URL, else OpenAI's.
        samples: requests per round.
        temperature / max_tokens: sampling settings per request.
        concurrency: requests in flight at once.
        request_timeout: wall-clock seconds per HTTP request (connect, send and the whole reply), never
            past the session's deadline.
        max_tokens_total: token budget (prompt + completion, as reported) for the session.
        max_retries: retries per request after 429/5xx/timeouts/connection errors.
        max_consecutive_failures: rounds in a row without any reply before the session stops.
        rejections_in_prompt: how many recent refused candidates the prompt shows.
        backoff_s / backoff_max_s: retry delay base * 2**k, capped.
        first_format: the response_format mode tried first (see response_format.MODES).
        raw_response_chars: cap on the raw reply kept in Proposal.meta.
        max_reply_chars: replies longer than this are malformed without parsing.
        max_body_bytes: cap on each HTTP reply body, raw and inflated (a larger one is a failed attempt).
        repeat_retries: extra requests per round when replies repeat a stored candidate (the model is asked
            again, told which candidate it repeated; the repeats themselves are returned and recorded, not checked).
        form: the target's proposal form by name (`run --form`); None: the target's default.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    model: Annotated[str, BeforeValidator(_model_name)]
    base_url: str | None = None
    samples: Annotated[int, Field(ge=1)] = 4
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.7
    max_tokens: Annotated[int, Field(ge=1)] = 512
    concurrency: Annotated[int, Field(ge=1)] = 2
    request_timeout: Annotated[float, Field(gt=0)] = 60.0
    max_tokens_total: Annotated[int, Field(ge=1)] | None = None
    max_retries: Annotated[int, Field(ge=0)] = 4
    max_consecutive_failures: Annotated[int, Field(ge=1)] = 5
    rejections_in_prompt: Annotated[int, Field(ge=0)] = 8
    backoff_s: Annotated[float, Field(ge=0)] = 1.0
    backoff_max_s: Annotated[float, Field(ge=0)] = 30.0
    first_format: Annotated[str, BeforeValidator(_known_mode)] = MODES[0]
    raw_response_chars: Annotated[int, Field(ge=0)] = 16_384
    max_reply_chars: Annotated[int, Field(ge=1)] = MAX_REPLY_CHARS
    max_body_bytes: Annotated[int, Field(ge=1)] = DEFAULT_MAX_BODY_BYTES
    repeat_retries: Annotated[int, Field(ge=0)] = 2
    form: str | None = None

    def __init__(self, **fields: Any) -> None:
        """Raises ValueError "<field>: <reason>" (one line) for a refused option."""
        try:
            super().__init__(**fields)
        except ValidationError as e:
            key, reason = first_error(e, fields, root="options")
            raise ValueError(f"{key}: {reason}") from None


@dataclass(frozen=True)
class ProposerStats:
    """Counters of one session (for summaries and benchmarks)."""

    requests: int
    replies: int
    failed_requests: int
    prompt_tokens: int
    completion_tokens: int
    response_format_mode: str
    last_failure: str | None = None  # the reason of the last request without a usable reply (redacted)


class OpenAIProposer(Proposer):
    """Proposes candidates by asking a chat model; see the module docstring."""

    def __init__(self, contract: Any, target: Any, options: OpenAIOptions, endpoint: ChatEndpoint, *,
                 schema: Mapping[str, Any], polish_seed: int | None = None) -> None:
        self.contract, self.target, self.options, self.endpoint = contract, target, options, endpoint
        self.schema, self.polish_seed = dict(schema), polish_seed
        self.name = f"{'openai+local' if polish_seed is not None else 'openai'}:{options.model}"
        self._allowed_keys = schema_keys(self.schema)
        self.reader = ReplyReader(contract, target, options.form)  # replies mapped, prompt shown in the form
        self.form = self.reader.form
        self.attempts = AttemptLog() if self.form is not None and self.form.edits else None  # moves and outcomes
        if self.reader.form is not None and self._allowed_keys is not None and self.reader.full_keys is not None:
            self._allowed_keys = self._allowed_keys | self.reader.full_keys  # a full payload is a reply as before
        self._lock = threading.Lock()
        self._prompt_tokens = self._completion_tokens = 0
        self._requests = self._replies = self._failed = 0
        self._issued = 0
        self._last_failure: str | None = None
        self._consecutive_failures = 0
        self._rejections_shown = options.rejections_in_prompt  # halved when the prompt overflows the context

    def __repr__(self) -> str:
        return f"OpenAIProposer(name={self.name!r})"

    @property
    def tokens_used(self) -> int:
        with self._lock:
            return self._prompt_tokens + self._completion_tokens

    def stats(self) -> ProposerStats:
        """Return the session's counters so far."""
        with self._lock:
            return ProposerStats(self._requests, self._replies, self._failed, self._prompt_tokens,
                                 self._completion_tokens, self.endpoint.formats.mode, self._last_failure)

    def _budget_spent(self) -> bool:
        total = self.options.max_tokens_total
        return total is not None and self.tokens_used >= total

    def _budget_stop(self) -> StopSession:
        return StopSession(f"token budget spent: {self.tokens_used} of {self.options.max_tokens_total} tokens "
                           f"(prompt + completion as reported by {self.options.model})")

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one proposal per reply of this round (at least one).

        Returns an empty list when the session's deadline (ctx.deadline) passed before any reply.

        Raises:
            StopSession: token budget spent, or no reply for max_consecutive_failures rounds.
        """
        if self._budget_spent():
            raise self._budget_stop()
        with self._lock:
            history = self.attempts.text(ctx) if self.attempts is not None else None
        messages = build_messages(ctx, self.schema, rejections=self._rejections_shown, form=self.form,
                                  history=history or None)
        n = max(1, min(self.options.samples, ctx.samples)) if ctx.samples else self.options.samples
        while True:
            with self._lock:
                first, self._issued = self._issued, self._issued + n
            outcomes = self._round(messages, n, first, ctx)
            proposals = [o for o in outcomes if isinstance(o, Proposal)]
            if proposals:
                self._consecutive_failures = 0
                return self._ask_again_on_repeats(proposals, messages, ctx)
            if self._budget_spent():
                raise self._budget_stop()
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []  # the session's time is up: the loop stops with "time limit"
            if self._rejections_shown > 0 and any(getattr(o, "context_overflow", False) for o in outcomes):
                # The negative examples made the prompt too long for this model: show fewer, same round.
                self._rejections_shown //= 2
                messages = build_messages(ctx, self.schema, rejections=self._rejections_shown, form=self.form,
                                          history=history or None)
                continue
            self._consecutive_failures += 1
            if self._consecutive_failures >= self.options.max_consecutive_failures:
                last = next((str(o) for o in reversed(outcomes) if isinstance(o, RequestFailed)), "no reply")
                raise StopSession(self.endpoint.redact(
                    f"endpoint gave no usable reply in {self._consecutive_failures} consecutive rounds "
                    f"(model {self.options.model}); last error: {last}"))

    def _ask_again_on_repeats(self, proposals: list[Proposal], messages: list[dict[str, str]],
                               ctx: Context) -> list[Proposal]:
        """Return the round's proposals plus, for each exact repeat of a stored candidate (or of one earlier in the
        round), one more reply asked with a note naming what was repeated; at most `repeat_retries` extra requests."""
        seen, out, extra = set(ctx.seen), list(proposals), 0
        pending = [p for p in proposals if p.malformed is None and not _fresh(p, seen)]
        while pending and extra < self.options.repeat_retries and not self._budget_spent():
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                break
            repeated = pending.pop(0)
            shown = repeated.meta.get("model_reply", repeated.payload)  # what the model wrote (a move, an edit)
            note = template("repeat.md").substitute(payload=_json_text(shown, 400))
            with self._lock:
                seq, self._issued = self._issued, self._issued + 1
            again = self._one([*messages, {"role": "user", "content": note.strip()}], seq, ctx, frozenset(seen))
            extra += 1
            if isinstance(again, Proposal):
                again = Proposal(again.payload, again.proposer, {**again.meta, "asked_again_after_repeat": True},
                                 again.malformed, again.expects_state)
                out.append(again)
                if again.malformed is None and not _fresh(again, seen):
                    pending.append(again)
        return out

    def _round(self, messages: list[dict[str, str]], n: int, first: int, ctx: Context) -> list[Any]:
        """Return, per request of a round, a Proposal, a RequestFailed, or None (skipped: budget)."""
        if n == 1 or self.options.concurrency == 1:
            # one after another: a request's schema may leave out what this round already proposed (a move form)
            out: list[Any] = []
            for i in range(n):
                done = frozenset(payload_sha(o.payload) for o in out if isinstance(o, Proposal) and o.malformed is None)
                out.append(self._one(messages, first + i, ctx, ctx.seen | done))
            return out
        with ThreadPoolExecutor(max_workers=min(n, self.options.concurrency)) as pool:
            return list(pool.map(lambda i: self._one(messages, first + i, ctx), range(n)))

    def _one(self, messages: list[dict[str, str]], seq: int, ctx: Context,
             seen: frozenset[str] | None = None) -> Proposal | RequestFailed | None:
        """Return one request's proposal; `seen` (default ctx.seen): stored payloads the form's schema may leave out."""
        if self._budget_spent():
            return None
        with self._lock:
            self._requests += 1
        try:
            reply = self.endpoint.complete(messages, temperature=self.options.temperature,
                                           max_tokens=self.options.max_tokens, session_deadline=ctx.deadline,
                                           schema=self.reader.schema_at(ctx.head.state if ctx.head else None,
                                                                        ctx.seen if seen is None else seen))
        except RequestFailed as e:
            with self._lock:
                self._failed += 1
                self._last_failure = str(e)
            return e
        with self._lock:
            self._replies += 1
            self._prompt_tokens += reply.prompt_tokens
            self._completion_tokens += reply.completion_tokens
        return self._proposal(reply, seq, ctx)

    def _meta(self, reply: ChatReply) -> dict[str, Any]:
        raw = reply.content or ""
        cap = self.options.raw_response_chars
        return {
            "model": self.options.model,
            "latency_s": round(reply.latency_s, 4),
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "tokens_reported": reply.tokens_reported,
            "finish_reason": reply.finish_reason,
            "served_model": reply.served_model,
            "raw_response": raw[:cap],
            "raw_response_truncated": len(raw) > cap,
            "response_format_mode": reply.mode,
            "attempts": reply.attempts,
            "rejections_in_prompt": self._rejections_shown,
        }

    def _proposal(self, reply: ChatReply, seq: int, ctx: Context) -> Proposal:
        """Return the reply as a proposal; every string in it passes the redactor (the boundary to the store)."""
        p = self._unredacted_proposal(reply, seq, ctx)
        redact = self.endpoint.redact
        return Proposal(redact.value(p.payload), p.proposer, redact.value(dict(p.meta)),
                        malformed=None if p.malformed is None else redact(p.malformed))

    def _unredacted_proposal(self, reply: ChatReply, seq: int, ctx: Context) -> Proposal:
        meta = self._meta(reply)
        excerpt = (reply.content or "")[:_PAYLOAD_EXCERPT_CHARS]
        if reply.finish_reason == "length":
            why = (f"truncated at max_tokens ({self.options.max_tokens} tokens requested, "
                   f"{reply.completion_tokens} generated)")
            return Proposal(excerpt, self.name, meta, malformed=why)
        if not reply.content or not reply.content.strip():
            return Proposal(excerpt, self.name, meta, malformed=f"empty reply (finish_reason {reply.finish_reason})")
        try:
            found = extract_json(reply.content, max_chars=self.options.max_reply_chars)
        except NotJSON as e:
            return Proposal(excerpt, self.name, meta, malformed=f"no usable JSON: {e}")
        payload = found.value
        claims: dict[str, Any] = {}
        if found.outside_text:
            claims["text"] = found.outside_text[:_PAYLOAD_EXCERPT_CHARS]
        if isinstance(payload, dict) and self._allowed_keys is not None:
            # Kept in the payload too: the target's strict parser refuses unknown keys itself.
            extra = {k: v for k, v in payload.items() if k not in self._allowed_keys}
            if extra:
                claims["extra_keys"] = extra
        if claims:
            meta["claims"] = claims
        try:
            mapped, by_form = self.reader.payload(payload, ctx.head.state if ctx.head else None)
        except ValueError as e:
            meta["form"], meta["model_reply"] = self.reader.form.name, payload
            return Proposal(payload, self.name, meta, malformed=str(e))
        if by_form:
            meta["form"], meta["model_reply"] = self.reader.form.name, payload  # the stored payload: the full candidate
            # the root is stored in the contract's spelling of the seed: a copy of it is then the repeat it is
            seed = getattr(ctx.contract, "seed", None)
            if isinstance(seed, Mapping):
                mapped = self.reader.spelled_as_stored(mapped, dict(seed))
        payload = mapped
        model_payload = payload
        if self.polish_seed is not None and ctx.deadline is not None and time.monotonic() >= ctx.deadline:
            meta["polish"] = "skipped: session time limit reached"
        elif self.polish_seed is not None:
            payload = self._polish(payload, seq, meta)
        meta["origin"] = origin_meta(model_payload, payload, "local" if meta.get("polish") == "polished" else None)
        if by_form and self.attempts is not None:
            with self._lock:
                self.attempts.record(meta["model_reply"], payload, ctx)
        meta["seen_before"] = payload_sha(payload) in ctx.seen
        return Proposal(payload, self.name, meta)

    def _polish(self, payload: Any, seq: int, meta: dict[str, Any]) -> Any:
        """Return the polished payload (or the model's own when polishing refuses); record both."""
        seed = self.polish_seed + seq  # a different but reproducible seed per proposal
        meta["model_payload"] = payload
        meta["polish_seed"] = seed
        start = time.monotonic()
        try:
            polished = self.target.polish(payload, seed)
        except (ValueError, ArithmeticError) as e:  # Malformed is a ValueError: the model's structure is unusable
            meta["polish"] = f"refused: {e}"[:_PAYLOAD_EXCERPT_CHARS]
            return payload
        finally:
            meta["polish_s"] = round(time.monotonic() - start, 4)
        if polished is None:
            meta["polish"] = "unsupported by target"
            return payload
        meta["polish"] = "polished"
        meta["polished_payload"] = polished
        return polished


def _fresh(p: Proposal, seen: set[str]) -> bool:
    """Return whether a proposal's payload is new to `seen` (and add it)."""
    sha = payload_sha(p.payload)
    if sha in seen:
        return False
    seen.add(sha)
    return True


def build_openai_proposer(contract: Any, target: Any, options: OpenAIOptions, *, polish_seed: int | None = None,
                          sleep: Callable[[float], None] = time.sleep) -> OpenAIProposer:
    """Return the model proposer (`openai:MODEL`, or `openai+local:MODEL` when polish_seed is set).

    The base URL defaults to $OPENAI_BASE_URL; the key is read from $OPENAI_API_KEY only (a
    placeholder when unset, for local servers) and never leaves the HTTP client.

    Raises:
        ValueError: the base URL is not a usable http(s) URL.
    """
    base_url = options.base_url or os.environ.get("OPENAI_BASE_URL") or None
    if base_url is not None:
        check_base_url(base_url)
    env_key = os.environ.get("OPENAI_API_KEY") or None
    schema = ReplyReader(contract, target, options.form).schema  # the proposal form's schema (the payload's for the identity)
    endpoint = ChatEndpoint(
        model=options.model, base_url=base_url, api_key=env_key or NO_KEY, timeout=options.request_timeout,
        schema=schema, retry=RetryPolicy(options.max_retries, options.backoff_s, options.backoff_max_s),
        formats=FormatNegotiation(options.first_format), redact=Redactor(env_key), sleep=sleep,
        max_body_bytes=options.max_body_bytes,
    )
    return OpenAIProposer(contract, target, options, endpoint, schema=schema, polish_seed=polish_seed)
