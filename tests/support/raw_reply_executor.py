"""An executor whose worker replies are raw bytes read by the real `DaskCheck.result` (review19's attacks).

What crosses from a dask worker to the session is bytes; `check.dask.DaskCheck.result` reads them with the one strict
parser. This stand-in replaces only the cluster: each task's result is the bytes `reply(contract, state, payload)`
gives, and the scheduler's `who_has` names one fixed worker, so the session's own code path (DaskCheck.result ->
outcome_from_bytes -> Checker.take -> the gate -> the loop) runs unchanged, without a cluster.

    RawReplyExecutor(lambda c, s, p: b'{"malformed":"no"}', authenticated=True)
"""

from __future__ import annotations

from typing import Any, Callable

from mathloop.check.dask import DaskCheck
from mathloop.check.outcome import outcome_to_bytes
from mathloop.check.runner import check_payload

WORKER = "tcp://10.9.9.9:4242"

Reply = Callable[[Any, Any, Any], bytes]


def honest(contract, parent_state, payload) -> bytes:
    """Return the bytes an honest worker sends: the real check's canonical JSON outcome."""
    return outcome_to_bytes(check_payload(contract, parent_state, payload))


class _Task:
    def __init__(self, blob: bytes) -> None:
        self.blob = blob

    def result(self, timeout: float | None = None) -> bytes:
        return self.blob


class _Client:
    def who_has(self, task) -> dict:
        return {"key": (WORKER,)}


class RawReplyExecutor:
    """Checks answered by `reply` as raw bytes, read through the real DaskCheck (see the module docstring)."""

    workers = 1
    in_flight = 1

    def __init__(self, reply: Reply, authenticated: bool = False) -> None:
        self.reply = reply
        self.authenticated = authenticated
        self.name = f"dask {'tls' if authenticated else 'tcp'}://stand-in (1 worker)"
        self.client = _Client()
        self.timeout_s = 20.0
        self.quarantined: list[str] = []
        self.submitted = 0

    def submit(self, contract, parent_state, payload) -> DaskCheck:
        self.submitted += 1
        return DaskCheck(self, _Task(self.reply(contract, parent_state, payload)))

    def warm(self, contract) -> int:
        return 1

    def set_deadline(self, at) -> None:
        pass

    def set_timeout(self, seconds: float) -> None:
        self.timeout_s = seconds

    def quarantine(self, worker: str) -> None:
        self.quarantined.append(worker)

    def close(self) -> None:
        pass
