"""The program sandbox for `check`: built once, or exit 2 with one line naming what is missing."""

from __future__ import annotations

from mathloop.cli.common import fail


def program_runner(target, what: str, seconds: float):
    """Return a ProgramRunner for `target` whose programs run `seconds` each, or exit 2 when no sandbox can be made."""
    from mathloop.propose.programs import sandboxed_runner
    from mathloop.sandbox import SandboxUnavailable

    try:
        return sandboxed_runner(target, what, seconds)
    except SandboxUnavailable as e:
        fail(str(e), 2)
