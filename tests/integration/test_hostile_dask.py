"""A hostile dask worker on loopback can neither run code in the session nor get a forged result committed.

Real processes: a `dask scheduler` and a `dask worker --preload tests/support/hostile_dask_worker.py`, and
`mathloop run --executor dask://…` as a user runs it, on a SQLite file and on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.integration.cli import ROOT, mathloop
from tests.integration.postgres import private_cluster, unavailable_reason

# a marker, not a module-level importorskip: the default tier deselects this slow module without a skip line
pytestmark = [pytest.mark.slow, pytest.mark.skipif(find_spec("distributed") is None, reason="needs the `dask` extra")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def hostile_cluster(mode: str, marker: Path):
    """Yield the address of a scheduler on loopback whose one worker runs the hostile preload in `mode`."""
    port = _free_port()
    env = {**os.environ, "MATHLOOP_HOSTILE_MODE": mode, "MATHLOOP_HOSTILE_FILE": str(marker),
           "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", f"tcp://127.0.0.1:{port}",
                                       "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--preload",
                                       str(ROOT / "tests/support/hostile_dask_worker.py")], env=env, cwd=ROOT,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        _wait_for_worker(port)
        yield f"dask://127.0.0.1:{port}"
    finally:
        for p in reversed(procs):
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait(10)


def _wait_for_worker(port: int) -> None:
    from distributed import Client

    deadline = time.monotonic() + 60
    with Client(f"tcp://127.0.0.1:{port}", timeout=30, set_as_default=False) as c:
        while not c.scheduler_info().get("workers") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert c.scheduler_info().get("workers"), "the hostile worker never joined"


def _attack(mode: str, db: str, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with hostile_cluster(mode, marker) as address:
        proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "4", "--samples", "2", "--executor", address,
                        "--no-lean", "--no-progress", timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran_in = marker.read_text().splitlines() if marker.exists() else []
    assert not [line for line in ran_in if "mathloop run" in line], f"a worker's pickled reply ran code in the session: {ran_in}"
    audit = mathloop("audit", "levinson-conrey", "--db", db, timeout=600)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    status = json.loads(mathloop("status", "levinson-conrey", "--db", db, "--json").stdout)
    assert status["head"]["seq"] >= 1, "the session made no progress at all: the test would prove nothing"
    # the audit re-checked every commit with the real checker: each certified kappa is the true one


@pytest.mark.parametrize("mode", ["forge", "pickle-result", "pickle-exception"])
def test_a_hostile_dask_worker_runs_no_code_here_and_forges_no_commit(mode, tmp_path):
    _attack(mode, str(tmp_path / "store.db"), tmp_path)


@pytest.mark.postgres_live
@pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")
@pytest.mark.parametrize("mode", ["forge", "pickle-result"])
def test_a_hostile_dask_worker_forges_nothing_into_postgresql(mode, tmp_path):
    with private_cluster() as url:
        _attack(mode, url, tmp_path)


@pytest.mark.parametrize("mode", ["pickle-result", "pickle-exception"])
def test_a_hostile_dask_worker_cannot_make_run_overrun_its_limit_or_print_tracebacks(mode, tmp_path):
    limit, margin = 20, 4.0  # the margin docs/guide.md states for --time-limit
    marker = tmp_path / "pwned"
    with hostile_cluster(mode, marker) as address:
        start = time.monotonic()
        proc = mathloop("run", "sidon-autocorrelation", "--db", str(tmp_path / "s.db"), "--time-limit", str(limit),
                        "--executor", address, "--no-progress", timeout=600)
        wall = time.monotonic() - start
    print(f"{mode}: run --time-limit {limit} on a hostile cluster: {wall:.2f} s wall")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert wall <= limit + margin, f"{mode}: --time-limit {limit} took {wall:.1f} s\n{proc.stderr}"
    lines = proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert lines and all(line.startswith("dask: refused a check's reply (") for line in lines), proc.stderr
    ran_in = marker.read_text().splitlines() if marker.exists() else []
    assert not [line for line in ran_in if "mathloop run" in line], f"a worker's pickled reply ran code in the session: {ran_in}"
