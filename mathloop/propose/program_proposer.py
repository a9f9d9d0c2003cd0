"""The evolve loop's proposer (`run --proposer openai --form program`): a chat model writes programs.

Each round: refresh the lineage's program archive, build the bounded prompt (program A and other parents with their
certified values, near misses with the checker's reasons, recent failures), ask the model `samples` times, read each
reply as data (`program_reply`: SEARCH/REPLACE edits of program A, or one whole program), run the program in the
sandbox and propose its output. A reply that gives no program, and a program that prints no candidate, are `malformed`
with the reason; the model's reply, the program text, its shape and parent are kept in the candidate's meta.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from mathloop.propose.base import Context, Proposal, Proposer, StopSession
from mathloop.propose.chat import ChatEndpoint, ChatReply, RequestFailed, RetryPolicy, check_base_url
from mathloop.propose.openai_proposer import NO_KEY, OpenAIOptions, ProposerStats
from mathloop.propose.origin import origin_meta
from mathloop.propose.program_prompt import ProgramPrompt, PromptLimits, build, starter
from mathloop.propose.program_reply import ReplyError, read_reply, same_code
from mathloop.propose.programs import ProgramRunner
from mathloop.propose.redact import Redactor
from mathloop.propose.response_format import FormatNegotiation
from mathloop.propose.transport import DEFAULT_MAX_BODY_BYTES  # noqa: F401 - the endpoint's default body cap

FORM = "program"


class ProgramProposer(Proposer):
    """Asks a chat model for programs and proposes their sandboxed output; see the module docstring."""

    def __init__(self, contract: Any, target: Any, options: OpenAIOptions, endpoint: ChatEndpoint,
                 runner: ProgramRunner, archive: Any, limits: PromptLimits | None = None) -> None:
        self.contract, self.target, self.options, self.endpoint = contract, target, options, endpoint
        self.runner, self.limits = runner, limits or PromptLimits()
        self.archive = archive  # a ProgramArchive of the session's store (open_session sets it once the store is open)
        self.name = f"openai:{options.model}"
        self._requests = self._replies = self._failed = self._prompt_tokens = self._completion_tokens = 0
        self._consecutive_failures = 0
        self._last_failure: str | None = None
        self.shapes: dict[str, int] = {}

    def stats(self) -> ProposerStats:
        """Return the session's request counters (programs run: `runner.runs`)."""
        return ProposerStats(self._requests, self._replies, self._failed, self._prompt_tokens, self._completion_tokens,
                             "none (program form)", self._last_failure)

    def _budget_spent(self) -> bool:
        total = self.options.max_tokens_total
        return total is not None and self._prompt_tokens + self._completion_tokens >= total

    def _sandbox_facts(self) -> dict[str, Any]:
        limits = self.runner.limits
        return {"packages": list(self.runner.sandbox.packages), "seconds": f"{limits.wall_s:g}",
                "memory_mb": limits.memory_mb}

    def prompt(self, ctx: Context) -> ProgramPrompt:
        """Return this round's prompt (the archive refreshed from the store first)."""
        self.archive.refresh()
        head_state = ctx.head.state if ctx.head is not None else self.contract.seed
        off_form = [r.reasons[0] for r in ctx.rejections if r.label == "malformed" and r.reasons
                    and r.reasons[0].startswith(("reply off the program form", "truncated at max_tokens"))]
        return build(self.contract, self.target, ctx.head, self.archive, limits=self.limits,
                     sandbox=self._sandbox_facts(), starter_text=starter(self.contract.name, head_state),
                     off_form=off_form)

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return one proposal per reply of this round; [] when the session's deadline passed first.

        Raises:
            StopSession: token budget spent, or no reply for max_consecutive_failures rounds in a row.
        """
        if self._budget_spent():
            raise StopSession(f"token budget spent: {self._prompt_tokens + self._completion_tokens} of "
                              f"{self.options.max_tokens_total} tokens")
        prompt = self.prompt(ctx)
        n = max(1, min(self.options.samples, ctx.samples or self.options.samples))
        while True:
            if self.options.concurrency > 1 and n > 1:
                with ThreadPoolExecutor(max_workers=min(n, self.options.concurrency)) as pool:
                    replies = list(pool.map(lambda _: self._ask(prompt, ctx), range(n)))
            else:
                replies = [self._ask(prompt, ctx) for _ in range(n)]
            got = [r for r in replies if isinstance(r, ChatReply)]
            if got:
                self._consecutive_failures = 0
                return [self._proposal(r, prompt, ctx) for r in got]  # programs run one at a time, in the sandbox
            if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
                return []
            if self._budget_spent():
                raise StopSession(f"token budget spent: {self._prompt_tokens + self._completion_tokens} of "
                                  f"{self.options.max_tokens_total} tokens")
            self._consecutive_failures += 1
            if self._consecutive_failures >= self.options.max_consecutive_failures:
                raise StopSession(self.endpoint.redact(
                    f"endpoint gave no usable reply in {self._consecutive_failures} consecutive rounds "
                    f"(model {self.options.model}); last error: {self._last_failure or 'no reply'}"))

    def _ask(self, prompt: ProgramPrompt, ctx: Context) -> ChatReply | RequestFailed | None:
        if self._budget_spent():
            return None
        self._requests += 1
        try:
            reply = self.endpoint.complete(prompt.messages, temperature=self.options.temperature,
                                           max_tokens=self.options.max_tokens, session_deadline=ctx.deadline)
        except RequestFailed as e:
            self._failed += 1
            self._last_failure = str(e)
            return e
        self._replies += 1
        self._prompt_tokens += reply.prompt_tokens
        self._completion_tokens += reply.completion_tokens
        return reply

    def _proposal(self, reply: ChatReply, prompt: ProgramPrompt, ctx: Context) -> Proposal:
        """Return the proposal of one reply: the program's output, or `malformed` naming what was wrong."""
        raw = self.endpoint.redact(reply.content or "")  # redacted before anything reads it: the run text is stored
        cap = self.options.raw_response_chars
        meta: dict[str, Any] = {
            "model": self.options.model, "latency_s": round(reply.latency_s, 4), "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens, "tokens_reported": reply.tokens_reported,
            "finish_reason": reply.finish_reason, "served_model": reply.served_model, "raw_response": raw[:cap],
            "raw_response_truncated": len(raw) > cap, "form": FORM, "parent_program": prompt.parent_sha,
            "prompt_chars": sum(len(m["content"]) for m in prompt.messages)}
        if reply.finish_reason == "length":
            return Proposal(raw[:2000], self.name, meta, malformed=(
                f"truncated at max_tokens ({self.options.max_tokens} tokens requested, {reply.completion_tokens} "
                "generated)"))
        try:
            program = read_reply(raw, prompt.parent)
        except ReplyError as e:
            self.shapes["unreadable"] = self.shapes.get("unreadable", 0) + 1
            return Proposal(raw[:2000], self.name, meta, malformed=f"reply off the program form: {e}")
        self.shapes[program.shape] = self.shapes.get(program.shape, 0) + 1
        shown = prompt.parent if prompt.parent is not None else None
        # a copy of program A (up to blanks and comments) is not a new program, whoever typed it
        copied = shown is not None and same_code(program.text, shown)
        meta.update(program_shape=program.shape, program_edits=program.edits, program_copies_parent=copied)
        p = self.runner.proposal(program.text, self.name, meta, ctx.deadline)
        if p.malformed is None:
            p = Proposal(p.payload, p.proposer, {**p.meta, "origin": origin_meta(p.payload, p.payload, None)})
        return p


def build_program_proposer(contract: Any, target: Any, options: OpenAIOptions, runner: ProgramRunner, archive: Any,
                           limits: PromptLimits | None = None) -> ProgramProposer:
    """Return the program-form model proposer (free-text replies; the key from $OPENAI_API_KEY only).

    Raises:
        ValueError: the base URL is not a usable http(s) URL.
    """
    base_url = options.base_url or os.environ.get("OPENAI_BASE_URL") or None
    if base_url is not None:
        check_base_url(base_url)
    env_key = os.environ.get("OPENAI_API_KEY") or None
    endpoint = ChatEndpoint(model=options.model, base_url=base_url, api_key=env_key or NO_KEY,
                            timeout=options.request_timeout, schema={},
                            retry=RetryPolicy(options.max_retries, options.backoff_s, options.backoff_max_s),
                            formats=FormatNegotiation("none"), redact=Redactor(env_key),
                            max_body_bytes=options.max_body_bytes)
    return ProgramProposer(contract, target, options, endpoint, runner, archive, limits)
