"""A dask cluster across network namespaces: scheduler, 2 workers and the session each on their own host.

Four namespaces on a private bridge (tests/integration/netns.py) stand in for four machines: the
scheduler, two workers (`dask worker --no-nanny`, so a killed worker stays dead) and a real
`mathloop run --executor dask://…` session. The first worker to start a check is SIGKILLed while
that check runs (it has just spawned its checker child, which has yet to import and check), so dask
must re-run the lost task on the other worker. The chain must equal an in-process reference run's,
with no error, and `mathloop audit` must pass.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mathloop.targets import load_contract
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target
from tests.integration.netns import leftovers, private_hosts, unavailable_reason
from tests.support.clz import small_contract

ROOT = Path(__file__).resolve().parents[2]
PORT = 8786
BUDGET = 8


def _popen(host, argv: list[str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(host.command(argv), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})


def _wait_for_workers(host, scheduler: str, n: int) -> None:
    probe = (f"from distributed import Client\nc = Client({scheduler!r}, timeout=60)\n"
             f"c.wait_for_workers({n}, timeout=60)\nc.close()")
    r = subprocess.run(host.command([sys.executable, "-c", probe]), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]


def _reference_chain(path: Path) -> list[str]:
    contract = load_contract(path)
    repo = Repository(make_engine(str(path.parent / "ref.db"), create=True))
    prop = build_target(contract).local_proposer(0)
    prop.workers = 1
    # rounds as `run --executor dask://` makes them (4x its 2 workers): a round's chunks start where the proposer
    # predicts, so the chunking, hence the chain, follows the round size
    Session(contract, repo, InProcessRunner()).run(prop, SessionLimits(budget=BUDGET, samples=8))
    return [c.evidence_sha for c in repo.commits(contract.sha256)]


@pytest.mark.slow  # four namespaces, a dask cluster and a session: .ci/run's second tier
@pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")
def test_dask_across_namespaces_survives_a_worker_killed_mid_check_and_the_store_audits(tmp_path):
    pytest.importorskip("distributed")
    path = small_contract(tmp_path, **{"chunk_gram_intervals = 320": "chunk_gram_intervals = 48"})
    reference = _reference_chain(path)
    db = str(tmp_path / "dask.db")
    with private_hosts(["scheduler", "w1", "w2", "session"]) as hosts:
        sched, session = hosts["scheduler"], hosts["session"]
        address = f"tcp://{sched.address}:{PORT}"
        # traffic stays on the bridge: no host has a default route, and the root namespace has no
        # address on the subnet (a connect from root proves nothing here: the sandbox proxies all TCP)
        subnet = sched.address.rsplit(".", 1)[0] + "."
        for h in hosts.values():
            routes = subprocess.run(["ip", "-n", h.netns, "route"], capture_output=True, text=True).stdout
            assert "default" not in routes and subnet in routes, routes
        assert subnet not in subprocess.run(["ip", "-4", "addr"], capture_output=True, text=True).stdout
        _popen(sched, [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", sched.address,
                       "--port", str(PORT), "--no-dashboard"], tmp_path / "scheduler.log")
        workers = {name: _popen(hosts[name], [sys.executable, "-m", "distributed.cli.dask_worker", address,
                                              "--host", hosts[name].address, "--nthreads", "1", "--no-nanny",
                                              "--no-dashboard", "--name", name], tmp_path / f"{name}.log")
                   for name in ("w1", "w2")}
        _wait_for_workers(session, address, 2)
        run = subprocess.Popen(session.command(
            [sys.executable, "-m", "mathloop", "run", str(path), "--db", db, "--executor", f"dask://{sched.address}:{PORT}",
             # the workers sit in namespaces this test made: plain tcp off the session's host, accepted explicitly
             "--insecure-executor", "--budget", str(BUDGET), "--no-lean", "--no-progress"]), cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
        killed = None
        while killed is None and run.poll() is None:
            for name, w in workers.items():  # a worker's first check spawns its checker child: it is mid-check
                if psutil.Process(w.pid).children(recursive=True):
                    os.kill(w.pid, signal.SIGKILL)
                    killed = name
                    break
            time.sleep(0.005)
        out, _ = run.communicate(timeout=600)
        workers[killed].wait(10) if killed else None
        scheduler_log = (tmp_path / "scheduler.log").read_text(errors="replace")
        audit = subprocess.run(session.command([sys.executable, "-m", "mathloop", "audit", str(path), "--db", db]),
                               cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert not any(ns.startswith(sched.netns[:8]) for ns in leftovers()), leftovers()
    assert killed is not None, f"no worker started a check before the session ended:\n{out}"
    assert run.returncode == 0, out
    assert f"executor: dask tcp://{sched.address}:{PORT} (2 workers); 8 proposals per round" in out, out
    lines = scheduler_log.splitlines()
    lost = next(i for i, ln in enumerate(lines) if "Remove worker" in ln and f"name: {killed} " in ln)
    joined = [i for i, ln in enumerate(lines) if "Receive client connection" in ln][-1]  # the session's client
    client = lines[joined].rsplit(" ", 1)[1]
    left = next(i for i, ln in enumerate(lines) if f"Remove client {client}" in ln)
    assert joined < lost < left, scheduler_log[-3000:]  # the worker died while the session was connected
    contract = load_contract(path)
    repo = Repository(make_engine(db, create=False))
    assert repo.label_counts(contract.sha256).get("error", 0) == 0
    assert [c.evidence_sha for c in repo.commits(contract.sha256)] == reference  # the lost check was re-run, once
    assert audit.returncode == 0, audit.stdout + audit.stderr
