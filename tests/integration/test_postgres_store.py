"""The same store guarantees on a real PostgreSQL server: chain, unique parent, racing writers, audit."""

import multiprocessing as mp

import pytest

from mathloop.domain import Label
from mathloop.audit.report import audit
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import HeadMoved, Repository
from tests.integration.postgres import private_cluster, unavailable_reason
from tests.unit.test_loop import Scripted

pytestmark = [pytest.mark.postgres_live, pytest.mark.skipif(unavailable_reason() is not None,
                                                            reason=unavailable_reason() or "")]


@pytest.fixture(scope="module")
def pg_url():
    with private_cluster() as url:
        yield url


def _racer(url, contract, parent_hash, x, q):
    from mathloop.targets import registry

    registry.registered()
    registry.REGISTRY["toy"] = registry.Registered("toy", "tests.support.toy_target:ToyTarget", "tests")
    repo = Repository(make_engine(url))
    parent = repo.get_commit(parent_hash)
    ev = InProcessRunner().check(contract, None, {"x": x}).evidence
    try:
        repo.commit(contract_sha=contract.sha256, session_id=None, parent=parent, payload={"x": x}, proposer="race",
                    meta={}, label=Label.PROGRESS, evidence=ev)
        q.put("won")
    except HeadMoved:
        q.put("moved")


def test_session_commits_and_audits_on_postgres(pg_url, toy_contract):
    repo = Repository(make_engine(pg_url))
    summary = Session(toy_contract, repo, InProcessRunner()).run(Scripted([{"x": "1/2"}, {"x": "1/4"}, {"x": "3/4"}]),
                                                                 SessionLimits(10))
    assert summary.labels == {"correct": 2, "regression": 1}
    findings, n = audit(toy_contract, repo, InProcessRunner())
    assert findings == [] and n == 3


def test_racing_processes_on_postgres_cannot_fork_the_chain(pg_url, toy_contract):
    repo = Repository(make_engine(pg_url))
    head = repo.head(toy_contract.sha256) or Session(toy_contract, repo, InProcessRunner()).ensure_root()
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_racer, args=(pg_url, toy_contract, head.hash, f"{80 + i}/100", q)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    results = sorted(q.get(timeout=5) for _ in procs)
    assert results == ["moved", "moved", "moved", "won"]
    assert repo.head(toy_contract.sha256).parent == head.hash
