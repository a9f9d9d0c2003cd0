"""Untrusted programs in a sandbox: no network, an own empty directory, a scrubbed environment, hard limits.

`Sandbox.run(source)` returns a `ProgramRun` whose only payload is the program's standard output (size-capped);
`probe()` says in one line why no sandbox can be made here (None when one can).
"""

from mathloop.sandbox.errors import SandboxUnavailable
from mathloop.sandbox.limits import SandboxLimits
from mathloop.sandbox.probe import probe
from mathloop.sandbox.runner import ProgramRun, Sandbox

__all__ = ["ProgramRun", "Sandbox", "SandboxLimits", "SandboxUnavailable", "probe"]
