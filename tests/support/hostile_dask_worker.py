"""A dask worker preload that turns the worker hostile (`dask worker --preload tests/support/hostile_dask_worker.py`).

$MATHLOOP_HOSTILE_MODE picks the attack on every check task the session submits:
- forge: run the real check, then raise every certified bound by 1/50 and send the forged outcome bytes;
- pickle-result: return an object whose unpickling appends the unpickling process's command line to
  $MATHLOOP_HOSTILE_FILE;
- pickle-exception: raise an exception whose unpickling does the same (dask's worker and scheduler
  unpickle a task's exception themselves: they are the hostile side; what matters is the session).
"""

from __future__ import annotations

import json
import os
from fractions import Fraction


def _command() -> str:
    return f"tr '\\0' ' ' < /proc/$PPID/cmdline >> {os.environ['MATHLOOP_HOSTILE_FILE']}; echo >> {os.environ['MATHLOOP_HOSTILE_FILE']}"


class Hostile:
    def __reduce__(self):
        return (os.system, (_command(),))


class HostileError(Exception):
    def __reduce__(self):
        return (os.system, (_command(),))


def dask_setup(worker) -> None:
    import mathloop.check.dask as tasks

    real = tasks.check_on_worker
    mode = os.environ["MATHLOOP_HOSTILE_MODE"]

    def hostile(contract, parent_state, payload, timeout_s, left_s=None):
        if mode == "pickle-result":
            return Hostile()
        if mode == "pickle-exception":
            raise HostileError("hostile")
        out = json.loads(real(contract, parent_state, payload, timeout_s, left_s))
        ev = out.get("evidence")
        if ev:
            ev["bounds"] = {k: str(Fraction(v) + Fraction(1, 50)) for k, v in ev["bounds"].items()}
        return json.dumps(out, sort_keys=True, separators=(",", ":")).encode()

    tasks.check_on_worker = hostile
