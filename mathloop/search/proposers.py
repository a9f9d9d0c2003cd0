"""The proposer a SessionConfig names: local, openai, openai+local, replay:FILE or program:PATH, and its start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mathloop.contract.model import Contract
from mathloop.propose.base import Proposer
from mathloop.search.config import ConfigError, SessionConfig

SPECS = "local, openai, openai+local, replay:FILE, program:PATH"


def build_proposer(config: SessionConfig, contract: Contract, target: Any) -> Proposer:
    """Return the proposer `config` names (`with_start` puts the published construction first).

    Raises:
        ConfigError: an unknown or unusable proposer or model option, named by its field.
        SandboxUnavailable: program proposals asked for where no sandbox can be made.
    """
    spec, seed = config.proposer, config.seed
    if spec.startswith("program:"):
        from mathloop.propose.program_files import ProgramFileError, ProgramFileProposer
        from mathloop.propose.programs import sandboxed_runner

        path = Path(spec.removeprefix("program:"))
        if not path.exists():
            raise ConfigError(f"program {path}: no such file or directory", "proposer")
        try:
            return ProgramFileProposer(path, sandboxed_runner(target, f"--proposer {spec}", config.program_time))
        except ProgramFileError as e:
            raise ConfigError(str(e), "proposer") from None
    if spec == "local":
        from mathloop.targets.errors import MissingExtra

        try:
            return target.local_proposer(seed)  # type: ignore[no-any-return]
        except MissingExtra as e:  # an optional solver the local proposer needs: named with its extra
            raise ConfigError(str(e), "proposer") from None
    if spec.startswith("replay:"):
        from mathloop.propose.replay import ReplayFileError, ReplayProposer
        from mathloop.targets.spelling import canonical_payload

        path = Path(spec.removeprefix("replay:"))
        if not path.is_file():
            raise ConfigError(f"replay file {path} does not exist", "proposer")
        try:
            return ReplayProposer(path, lambda payload: canonical_payload(target, payload, contract.seed))
        except ReplayFileError as e:  # unreadable as a whole: the user's error (bad lines are `malformed`)
            raise ConfigError(str(e), "proposer") from None
    if spec in ("openai", "openai+local"):
        if not config.model:
            raise ConfigError("--model is required with --proposer openai", "model")
        if config.form == "program":
            return _program_proposer(config, contract, target)
        from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer

        try:
            opts = OpenAIOptions(**config.model_options())
            return build_openai_proposer(contract, target, opts, polish_seed=seed if spec == "openai+local" else None)
        except ValueError as e:  # a bad option or base URL: the message starts with the field name
            raise ConfigError(str(e)) from None
    raise ConfigError(f"unknown proposer {spec!r} ({SPECS})", "proposer")


def _program_proposer(config: SessionConfig, contract: Contract, target: Any) -> Proposer:
    """Return the evolve loop's proposer (the model writes programs; each runs in the sandbox)."""
    from mathloop.propose.openai_proposer import OpenAIOptions
    from mathloop.propose.program_prompt import PromptLimits
    from mathloop.propose.program_proposer import build_program_proposer
    from mathloop.propose.programs import sandboxed_runner

    if config.proposer != "openai":
        raise ConfigError("--form program: only with --proposer openai (a program is its own optimiser)", "form")
    prompt_chars = config.prompt_chars or PromptLimits().max_chars
    runner = sandboxed_runner(target, "--form program", config.program_time)
    try:
        opts = OpenAIOptions(**config.model_options())
        return build_program_proposer(contract, target, opts, runner, None, PromptLimits(max_chars=prompt_chars))
    except ValueError as e:  # a bad option or base URL: the message starts with the field name
        raise ConfigError(str(e)) from None


def with_start(start: str, target: Any, prop: Proposer) -> Proposer:
    """Return the proposer for `start`: itself (head), or the published construction first (published).

    Raises:
        ConfigError: the target ships no published construction, or an unreadable one (field `start`).
    """
    if start == "head":
        return prop
    from mathloop.targets.base import Malformed
    from mathloop.targets.published_start import PublishedFirst

    try:
        published = target.published_start()
    except Malformed as e:
        raise ConfigError(str(e), "start") from None
    if published is None:
        raise ConfigError(f"target {target.name} ships no published construction to start from", "start")
    return PublishedFirst(published, prop)
