"""An authenticated dask cluster end to end: TLS with client certificates, one honest and one hostile worker.

Real processes: `dask scheduler` and two `dask worker`s over tls:// with certificates from a private CA
(tests/support/tls_certs.py), the hostile one started with `--preload tests/support/hostile_dask_worker.py` in
`forge` mode (every certified bound raised by 1/50, evidence otherwise intact, so that only a re-check can tell),
and `mathloop run --executor tls://… --tls-ca/--tls-cert/--tls-key --recheck 1.0` as a user runs it. The forgery
is caught by the session's re-check, the worker quarantined, every earlier answer of it re-checked, nothing forged
is committed or left unflagged, `run` exits 0, `status` shows no failed re-check and `audit` passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.integration.cli import ROOT, mathloop
from tests.integration.postgres import _free_port  # a free loopback port

# a marker, not a module-level importorskip: the default tier deselects this slow module without a skip line
pytestmark = [pytest.mark.slow, pytest.mark.skipif(find_spec("distributed") is None or find_spec("cryptography") is None,
                                                   reason="needs the `dask` extra and cryptography")]


def _tls(certs: dict, who: str) -> list[str]:
    return ["--tls-ca-file", str(certs["ca"]), "--tls-cert", str(certs[f"{who}_cert"]), "--tls-key",
            str(certs[f"{who}_key"])]


@contextmanager
def tls_cluster(certs: dict, tmp: Path):
    """Yield (scheduler address, hostile worker address, honest worker address, unpause file): a TLS scheduler on
    loopback, the forger (the forge preload) and an honest worker kept paused until the unpause file exists."""
    port, bad_port, good_port = _free_port(), _free_port(), _free_port()
    address = f"tls://127.0.0.1:{port}"
    unpause = tmp / "unpause"
    env = {**os.environ, "MATHLOOP_HOSTILE_MODE": "forge", "MATHLOOP_HOSTILE_FILE": str(tmp / "marker"),
           "MATHLOOP_UNPAUSE_FILE": str(unpause), "PYTHONPATH": str(ROOT)}
    common = dict(env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    worker = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1", "--nthreads", "1",
              "--no-dashboard", *_tls(certs, "cluster")]
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls", "--host",
                               "127.0.0.1", "--port", str(port), "--no-dashboard", *_tls(certs, "cluster")], **common)]
    try:
        procs.append(subprocess.Popen([*worker, "--worker-port", str(bad_port), "--preload",
                                       str(ROOT / "tests/support/hostile_dask_worker.py")], **common))
        procs.append(subprocess.Popen([*worker, "--worker-port", str(good_port), "--memory-limit", "0", "--preload",
                                       str(ROOT / "tests/support/paused_dask_worker.py")], **common))
        good = f"tls://127.0.0.1:{good_port}"
        _wait_for_workers(address, certs, lambda ws: len(ws) == 2 and ws.get(good, {}).get("status") == "paused")
        yield address, f"tls://127.0.0.1:{bad_port}", good, unpause
    finally:
        for p in reversed(procs):
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait(10)


def _wait_for_workers(address: str, certs: dict, ready) -> None:
    from distributed import Client
    from distributed.security import Security

    sec = Security(tls_ca_file=str(certs["ca"]), tls_client_cert=str(certs["client_cert"]),
                   tls_client_key=str(certs["client_key"]), require_encryption=True)
    deadline = time.monotonic() + 60
    with Client(address, timeout=30, set_as_default=False, security=sec) as c:
        while not ready(c.scheduler_info().get("workers", {})) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ready(c.scheduler_info().get("workers", {})), "the workers never joined (or the honest one never paused)"


def _rows(db: str) -> list:
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository
    from mathloop.targets import load_contract

    repo = Repository(make_engine(db, create=False))
    try:
        return list(repo.candidates(load_contract("levinson-conrey").sha256))
    finally:
        repo.engine.dispose()


def _caught(db: str, hostile: str) -> bool:
    """Return True once the store records the session's re-check catching `hostile` (read-only, while run writes)."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            metas = [m for (m,) in c.execute("SELECT proposer_meta FROM candidates")]
    except sqlite3.Error:
        return False
    return any(json.loads(m).get("checked_by", "").startswith("session (re-check;") and hostile in m for m in metas)


def test_a_forging_worker_on_a_tls_cluster_is_caught_quarantined_and_nothing_forged_stays(tmp_path):
    """The honest worker is held paused until the catch, so the forger answers the session's first checks."""
    from tests.support.tls_certs import write_certs

    certs = write_certs(tmp_path)
    db = str(tmp_path / "tls.db")
    by = lambda r: str(r.meta.get("checked_by", ""))  # noqa: E731
    tls = ["--tls-ca", str(certs["ca"]), "--tls-cert", str(certs["client_cert"]), "--tls-key", str(certs["client_key"])]
    with tls_cluster(certs, tmp_path) as (address, hostile, honest, unpause):
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "mathloop", "run", "levinson-conrey", "--db", db, "--budget", "16",
                                 "--executor", address, *tls, "--recheck", "1.0", "--no-lean", "--no-progress"],
                                cwd=ROOT, env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            while proc.poll() is None and not _caught(db, hostile) and time.monotonic() - started < 120:
                time.sleep(0.1)
            unpause.touch()  # the honest worker takes the session's next checks
            out, err = proc.communicate(timeout=240)
        finally:
            if proc.poll() is None:
                proc.kill()
        seconds = time.monotonic() - started
    assert proc.returncode == 0, out + err  # nothing forged was committed, so no commit failed its re-check
    assert f"executor: dask {address} (2 workers)" in out
    assert f"worker {hostile} quarantined" in " ".join(out.replace("│", " ").split()), out  # run's summary line
    rows = _rows(db)
    assert not [r for r in rows if r.commit_hash and by(r).startswith(f"dask {address}") and hostile in by(r)], \
        "a hostile worker's answer was committed"
    assert any(by(r).startswith("session (re-check;") and hostile in by(r) for r in rows), "the catch is not recorded"
    assert any(by(r).startswith(f"dask {address}") and by(r).split(" (re-checked)")[0].endswith(honest) for r in rows), \
        "the honest worker answered nothing after the catch"
    superseded = {r.meta.get("recheck_of") for r in rows}
    forged = [r for r in rows if by(r).endswith(f"worker {hostile}")]
    assert all(r.id in superseded or not (r.evidence and r.evidence.bounds) for r in forged), "a forgery stays unflagged"
    assert not (tmp_path / "marker").exists()

    status = json.loads(mathloop("status", "levinson-conrey", "--db", db, "--json").stdout)
    assert status["failed_rechecks"] == [] and status["head"]["seq"] >= 1
    audit = mathloop("audit", "levinson-conrey", "--db", db, timeout=300)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    print(f"tls: session {seconds:.1f} s, {len(rows)} memory rows, {len(forged)} recorded answers of the forger")
