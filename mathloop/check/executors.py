"""Where checks run in parallel: the one local pool of checker children, or a dask.distributed cluster.

    executor_for("local", workers=2, timeout_s=600)                  # N checker children (default)
    executor_for("dask://127.0.0.1:8786", 0, 600)                    # a scheduler on loopback (extra `dask`)
    executor_for("tls://host:8786", 0, 600, tls=TLS(ca, cert, key))  # an authenticated cluster
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Protocol

from mathloop.check.outcome import CheckOutcome
from mathloop.check.pool import LocalPool
from mathloop.contract.model import Contract


class Pending(Protocol):
    """A check in flight; `result()` waits for its CheckOutcome."""

    def result(self, timeout: float | None = None) -> CheckOutcome: ...


class Executor(Protocol):
    """Runs checks concurrently; `submit` returns a future of the CheckOutcome.

    `in_flight`: the proposals per round the session keeps submitted so that no worker waits.
    `authenticated`: whether its answers may commit without a re-check in the session.
    """

    name: str
    workers: int
    in_flight: int
    authenticated: bool

    def submit(self, contract: Contract, parent_state: Mapping[str, Any] | None, payload: Any) -> Pending: ...

    def warm(self, contract: Contract) -> int: ...

    def set_deadline(self, at: float | None) -> None:
        """Cut every check still running at `time.monotonic()` value `at` (the session's --time-limit)."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class TLS:
    """Certificate files for `--executor tls://…`: the cluster's CA and this client's certificate and key."""

    ca: Path
    cert: Path
    key: Path

    def security(self) -> Any:
        """Return the distributed.security.Security that requires TLS with this client certificate."""
        from distributed.security import Security

        for what, path in (("--tls-ca", self.ca), ("--tls-cert", self.cert), ("--tls-key", self.key)):
            if not Path(path).is_file():
                raise ValueError(f"{what}: {path}: no such file")
        return Security(tls_ca_file=str(self.ca), tls_client_cert=str(self.cert), tls_client_key=str(self.key),
                        require_encryption=True)


def _hostport(spec: str, scheme: str) -> tuple[str, str]:
    hostport = spec.removeprefix(scheme)
    if ":" not in hostport or not hostport.rsplit(":", 1)[1].isdigit():
        raise ValueError(f"--executor: expected {scheme}HOST:PORT, got {spec!r}")
    return hostport.rsplit(":", 1)[0].strip("[]"), hostport


def executor_for(spec: str, workers: int, timeout_s: float, *, tls: TLS | None = None,
                 insecure: bool = False) -> Executor:
    """Return the executor named by --executor ("local", "dask://HOST:PORT", "tcp://HOST:PORT" or "tls://HOST:PORT").

    Plain tcp is allowed only to a loopback address, or with `insecure` (--insecure-executor). Raises
    ValueError on a bad spec, missing certificates or a plain-tcp address off this host.
    """
    if spec == "local":
        return LocalPool(workers, timeout_s)
    from mathloop.check.dask import DaskExecutor, is_loopback

    if spec.startswith("tls://"):
        _hostport(spec, "tls://")
        if tls is None:
            raise ValueError("--executor tls://: needs --tls-ca, --tls-cert and --tls-key")
        return DaskExecutor(spec, timeout_s, security=tls.security())
    for scheme in ("dask://", "tcp://"):
        if spec.startswith(scheme):
            host, hostport = _hostport(spec, scheme)
            if not insecure and not is_loopback(host):
                raise ValueError(f"--executor: {spec} is plain tcp off this host: use tls:// with certificates, or "
                                 "--insecure-executor to accept unauthenticated workers (their answers are re-checked "
                                 "here before they commit)")
            return DaskExecutor(f"tcp://{hostport}", timeout_s)
    raise ValueError(f"--executor: unknown executor {spec!r} (local, dask://HOST:PORT or tls://HOST:PORT)")
