"""Four `mathloop run` processes on one store: no fork, the head only moves forward, losers re-gate, nothing lost."""

import pytest
from sqlalchemy import text

from mathloop.targets import load_contract
from mathloop.audit.report import audit_store
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.postgres import private_cluster, unavailable_reason
from tests.integration.writers import race

WRITERS, N = 4, 40


def check_race(tmp_path, db, toy_registered):
    r = race(tmp_path, db, WRITERS, N)
    assert r.codes == [0] * WRITERS, r.outputs
    assert r.left == [], f"processes left: {r.left}"
    contract = load_contract(tmp_path / "toy.toml")
    repo = Repository(make_engine(db, create=False))
    report = audit_store(contract, repo, InProcessRunner())
    assert report.findings == [], report.findings
    commits = repo.commits(contract.sha256)
    chain = {c.hash: c.seq for c in commits}
    # no fork: one commit per seq, each on the previous one (audit re-verified the links)
    assert [c.seq for c in commits] == list(range(len(commits)))
    # the head only moved forward: every head a reader saw is in the final chain, in increasing seq
    seen = [seq for seq, h in r.heads]
    assert all(h in chain and chain[h] == seq for seq, h in r.heads) and seen == sorted(seen)
    # no candidate lost: every proposal of every writer is in the memory (plus the one root)
    with repo.engine.begin() as conn:
        n_rows = conn.execute(text("SELECT count(*) FROM candidates WHERE contract_sha = :c"),
                              {"c": contract.sha256}).scalar()
        rows = conn.execute(text("SELECT payload_sha, head_commit FROM candidates WHERE contract_sha = :c"),
                            {"c": contract.sha256}).all()
    assert n_rows == WRITERS * N + 1
    # losers re-gate: a proposal that lost a race on a parent was checked again against a later head
    for sha, parent in r.lost:
        if parent == "-":  # the seed's root commit: the losers simply adopt the winner's root
            continue
        later = [h for s, h in rows if s == sha]
        assert later and all(h != parent and chain.get(h, -1) > chain.get(parent, -1) for h in later), (sha, parent)
    return r, len(commits)


@pytest.mark.slow  # heavy: runs in .ci/run's second tier; the default tier stays < 3 min
def test_four_writers_on_sqlite(tmp_path, toy_registered):
    r, commits = check_race(tmp_path, str(tmp_path / "race.db"), toy_registered)
    assert commits > 1
    print(f"sqlite: {WRITERS} writers, {commits} commits, {len(r.lost)} lost races re-gated")


@pytest.mark.slow  # heavy: runs in .ci/run's second tier; the default tier stays < 3 min
@pytest.mark.postgres_live
@pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")
def test_four_writers_on_postgresql(tmp_path, toy_registered):
    with private_cluster() as url:
        r, commits = check_race(tmp_path, url, toy_registered)
    assert commits > 1
    print(f"postgresql: {WRITERS} writers, {commits} commits, {len(r.lost)} lost races re-gated")
