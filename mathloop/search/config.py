"""What a search session is asked to do: one validated, frozen value, from the command line or from Python."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mathloop.check.checker import DEFAULT_RECHECK
from mathloop.contract.fields import first_error
from mathloop.contract.model import Contract

STARTS = ("head", "published")


class ConfigError(ValueError):
    """A session option is refused: `reason`, and the SessionConfig `field` it is about (None: the reason names it).

    `plain`: the reason is a whole sentence on its own (the command line prints it as its error line, not as a
    usage error of one option).
    """

    def __init__(self, reason: str, field: str | None = None, *, plain: bool = False) -> None:
        super().__init__(reason if field is None or plain else f"{field}: {reason}")
        self.reason, self.field, self.plain = reason, field, plain

    @classmethod
    def of(cls, e: ValidationError, fields: dict[str, Any]) -> "ConfigError":
        """Return the refusal of the first field `e` refused (`budget: must be >= 1, got 0`)."""
        key, reason = first_error(e, fields, root="")
        return cls(reason, key or None, plain=not key)


class SessionConfig(BaseModel):
    """Everything `open_session` needs to assemble a session; `mathloop run`'s options, one field each.

    Attributes:
        target: a shipped target's name (or a contract path ending in .toml); contract_file: a user contract.
        db: the store, a SQLite path or a SQLAlchemy URL (None: $MATHLOOP_DB or ./mathloop.db).
        proposer: local | openai | openai+local | replay:FILE | program:PATH; seed: the local proposer's seed.
        start: head (propose from the head) | published (the target's published construction first).
        budget: candidates to process (None: the contract's); time_limit: wall-clock seconds of the whole run,
            Lean included, counted from `open_session`'s `since`; samples: proposals per round.
        model .. form, prompt_chars: the model proposer's options (None: its defaults).
        program_time: wall-clock and CPU seconds of each program run in the sandbox.
        lean: Lean-check each commit beside the session (and resume the lineage's pending commits).
        workers, executor, tls_*, insecure_executor, recheck: where checks run and how far remote answers are trusted.
        options: what the session row records as its options (None: the options that decide the run).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    target: str | None = None
    contract_file: Path | None = None
    db: str | None = None
    proposer: str = "local"
    seed: int = 0
    start: str = "head"
    budget: int | None = Field(None, ge=1)
    time_limit: float | None = Field(None, ge=0.1)
    samples: int = Field(4, ge=1)
    model: str | None = None
    base_url: str | None = None
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=16)
    concurrency: int | None = Field(None, ge=1)
    request_timeout: float | None = Field(None, ge=0.1)
    max_tokens_total: int | None = Field(None, ge=1)
    repeat_retries: int | None = Field(None, ge=0)
    form: str | None = None
    prompt_chars: int | None = Field(None, ge=2000)
    program_time: float = Field(30.0, ge=0.5)
    lean: bool = True
    workers: int = Field(1, ge=1)
    executor: str = "local"
    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    insecure_executor: bool = False
    recheck: float = Field(DEFAULT_RECHECK, ge=0.0, le=1.0)
    options: dict[str, Any] | None = None

    def __init__(self, **fields: Any) -> None:
        try:
            super().__init__(**fields)
        except ValidationError as e:  # one exception for every refused option, naming it
            raise ConfigError.of(e, fields) from None

    @field_validator("start")
    @classmethod
    def _known_start(cls, start: str) -> str:
        if start not in STARTS:
            raise ValueError(f"unknown start {start!r} ({', '.join(STARTS)})")
        return start

    @model_validator(mode="after")
    def _names_a_contract(self) -> "SessionConfig":
        if self.target is None and self.contract_file is None:
            raise ValueError("give a TARGET name or --contract FILE")
        return self

    def model_options(self) -> dict[str, Any]:
        """Return the model proposer's options that were given (None left out), as OpenAIOptions takes them."""
        given = dict(model=self.model, base_url=self.base_url, samples=self.samples, temperature=self.temperature,
                     max_tokens=self.max_tokens, concurrency=self.concurrency, request_timeout=self.request_timeout,
                     max_tokens_total=self.max_tokens_total, repeat_retries=self.repeat_retries, form=self.form)
        return {k: v for k, v in given.items() if v is not None}

    def recorded(self, budget: int) -> dict[str, Any]:
        """Return the options stored with the session (`status` shows them): those that decide what it does."""
        if self.options is not None:
            return dict(self.options)
        out: dict[str, Any] = {"budget": budget, "time_limit": self.time_limit, "samples": self.samples,
                               "proposer": self.proposer, "start": self.start, **self.model_options()}
        if self.proposer.startswith("program:") or self.form == "program":
            out["program_time"] = self.program_time
        if self.form == "program" and self.prompt_chars is not None:
            out["prompt_chars"] = self.prompt_chars  # the limits every program ran under
        if self.insecure_executor:
            out["insecure_executor"] = True
        return out


def named_contract(target: str | None, contract_file: Path | None = None) -> Contract:
    """Return the shipped contract named `target`, or the user contract `contract_file`.

    A TARGET that is a path (ends in .toml) is read as a user contract too. With both, TARGET must name the user
    contract's implementation or its file stem.

    Raises:
        ContractError: the contract is invalid. ConfigError: neither is given, or TARGET does not match the file.
    """
    from mathloop.targets import load_contract, load_file

    if target is None and contract_file is None:
        raise ConfigError("give a TARGET name or --contract FILE", plain=True)
    if contract_file is None:
        return load_contract(str(target))
    contract = load_file(contract_file)
    if target is not None and target not in (contract.name, contract.target):
        raise ConfigError(f"TARGET {target!r} does not match --contract {contract_file} "
                          f"(implementation {contract.target!r})", "target", plain=True)
    return contract
