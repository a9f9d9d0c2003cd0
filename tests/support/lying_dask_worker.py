"""A dask worker preload whose answers lie in ways the wire parser and the gate do not expect (review19).

`dask worker --preload tests/support/lying_dask_worker.py`, with $MATHLOOP_LIE picking the lie on every check task:
- zero-denominator: the real check's outcome with every certified bound replaced by "1/0";
- malformed: `{"malformed": ...}` for every candidate but the contract's seed (the check is never run).
"""

from __future__ import annotations

import json
import os


def dask_setup(worker) -> None:
    import mathloop.check.dask as tasks

    real = tasks.check_on_worker
    lie = os.environ["MATHLOOP_LIE"]

    def lying(contract, parent_state, payload, timeout_s, left_s=None):
        if lie == "malformed" and payload != dict(contract.seed):
            return b'{"malformed":"payload: not a candidate (a lie)"}'
        out = json.loads(real(contract, parent_state, payload, timeout_s, left_s))
        if lie == "zero-denominator" and out.get("evidence"):
            out["evidence"]["bounds"] = {k: "1/0" for k in out["evidence"]["bounds"]}
        return json.dumps(out, sort_keys=True, separators=(",", ":")).encode()

    tasks.check_on_worker = lying
