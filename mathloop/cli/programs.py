"""The program sandbox for `run` and `check`: built once, or exit 2 with one line naming what is missing."""

from __future__ import annotations

import math

from mathloop.cli.common import fail


def program_runner(target, what: str, seconds: float):
    """Return a ProgramRunner for `target` whose programs run `seconds` each, or exit 2 when no sandbox can be made.

    There is no unsandboxed fallback: a program is hostile code and runs in a sandbox or not at all.
    """
    from mathloop.propose.programs import ProgramRunner
    from mathloop.sandbox import Sandbox, SandboxLimits, probe

    why = probe()
    if why is not None:
        fail(f"{what}: programs run only in a sandbox, and none can be made here: {why}", 2)
    return ProgramRunner(target, Sandbox(), SandboxLimits(wall_s=seconds, cpu_s=max(1, math.ceil(seconds))))
