"""Start and stop a private PostgreSQL 15 cluster for tests (initdb runs as user postgres)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

PG_BIN = Path(os.environ.get("MATHLOOP_PG_BIN", "/usr/lib/postgresql/15/bin"))


def unavailable_reason() -> str | None:
    """Return why no private cluster can be started here, or None."""
    if not (PG_BIN / "initdb").exists():
        return f"PostgreSQL binaries not found in {PG_BIN} (apt-get install postgresql)"
    if os.geteuid() == 0 and shutil.which("su") is None:
        return "running as root without `su` to become user postgres"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(subprocess.list2cmdline([c]) for c in cmd)]


@contextmanager
def private_cluster():
    """Yield a SQLAlchemy URL of a fresh database on a private cluster; stop and remove it afterwards."""
    base = Path(tempfile.mkdtemp(prefix="mathloop-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        shutil.chown(sock, "postgres")
    port = _free_port()
    run = lambda cmd: subprocess.run(_as_postgres(cmd), check=True, capture_output=True, timeout=120)  # noqa: E731
    try:
        run([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"])
        run([str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", f"-p {port} -k {sock} -c listen_addresses=127.0.0.1",
             "-l", str(base / "log"), "-w", "start"])
        run([str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "mathloop"])
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/mathloop"
    finally:
        subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                       capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
