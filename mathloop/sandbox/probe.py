"""Whether a program sandbox can be made here, tried once per process: one line naming what is missing, or None."""

from __future__ import annotations

from mathloop.sandbox.errors import SandboxUnavailable
from mathloop.sandbox.limits import SandboxLimits
from mathloop.sandbox.view import DEFAULT_PACKAGES

_TRIAL = "import sys\nsys.stdout.write('sandbox-ok')\n"
_answers: dict[tuple[tuple[str, ...], str | None], str | None] = {}


def probe(packages: tuple[str, ...] = DEFAULT_PACKAGES, bwrap: str | None = None) -> str | None:
    """Return why no sandbox can be made (one line), or None after a trial program ran in one and printed its word.

    The answer is kept for the process (a machine does not gain or lose namespaces while a session runs).
    """
    import shutil

    key = (tuple(packages), bwrap or shutil.which("bwrap"))  # PATH may change between calls (tests, embedders)
    if key not in _answers:
        _answers[key] = _try(packages, bwrap)
    return _answers[key]


def _try(packages: tuple[str, ...], bwrap: str | None) -> str | None:
    from mathloop.sandbox.runner import Sandbox

    try:
        box = Sandbox(packages, bwrap)
    except SandboxUnavailable as e:
        return str(e)
    except OSError as e:
        return f"the sandbox could not be prepared: {e}"
    try:
        run = box.run(_TRIAL, SandboxLimits(wall_s=30.0, cpu_s=10))
    except OSError as e:
        return f"bubblewrap ({box.bwrap}) could not be started: {e}"
    if run.stdout != b"sandbox-ok":
        last = next((ln.strip() for ln in reversed(run.stderr_tail.splitlines()) if ln.strip()), "no message")
        return f"bubblewrap ({box.bwrap}) cannot make a sandbox here: {last[:200]}"
    return None
