"""The proof store: hash chain, atomic commits on a unique parent, and two racing writers."""

import threading

import pytest

from mathloop.domain import Label
from mathloop.check.runner import InProcessRunner
from mathloop.store.chain import CHAIN_FORMAT, commit_body, commit_hash
from mathloop.store.raw import candidate_row
from mathloop.store.engine import StoreError, database_url, make_engine
from mathloop.store.repository import HeadMoved, Repository


def evidence_for(contract, x):
    out = InProcessRunner().check(contract, None, {"x": x})
    return out.evidence


def commit(repo, contract, parent, x):
    return repo.commit(contract_sha=contract.sha256, session_id=None, parent=parent, payload={"x": x}, proposer="t",
                       meta={}, label=Label.PROGRESS, evidence=evidence_for(contract, x))


def test_commits_are_hash_chained(toy_contract, repo):
    repo.ensure_contract(toy_contract)
    a = commit(repo, toy_contract, None, "1/10")
    b = commit(repo, toy_contract, a, "1/2")
    assert b.parent == a.hash and b.seq == 1
    cand = candidate_row(repo.engine, b.candidate_id)
    body = commit_body(contract_sha=b.contract_sha, seq=b.seq, payload_sha=b.payload_sha, state=b.state, ranks=b.ranks,
                       bounds={"value": "1/2"}, evidence_sha=b.evidence_sha, label=b.label, created_at=b.created_at,
                       format=CHAIN_FORMAT, candidate_id=b.candidate_id, candidate_hash=cand.row_hash,
                       lineage=repo.anchor(b.contract_sha))
    assert commit_hash(a.hash, body) == b.hash


def test_second_commit_on_the_same_parent_is_refused_and_writes_nothing(toy_contract, repo):
    repo.ensure_contract(toy_contract)
    root = commit(repo, toy_contract, None, "1/10")
    commit(repo, toy_contract, root, "1/2")
    before = sum(repo.label_counts(toy_contract.sha256).values())
    with pytest.raises(HeadMoved):
        commit(repo, toy_contract, root, "6/10")
    assert sum(repo.label_counts(toy_contract.sha256).values()) == before
    assert repo.head(toy_contract.sha256).seq == 1


def test_two_writers_racing_on_one_sqlite_file_cannot_fork_the_chain(toy_contract, tmp_path):
    path = str(tmp_path / "race.db")
    r1, r2 = Repository(make_engine(path)), Repository(make_engine(path))
    r1.ensure_contract(toy_contract)
    root = commit(r1, toy_contract, None, "1/10")
    outcomes = []
    barrier = threading.Barrier(8)

    def writer(repo, x):
        barrier.wait()
        try:
            commit(repo, toy_contract, root, x)
            outcomes.append("won")
        except HeadMoved:
            outcomes.append("moved")

    threads = [threading.Thread(target=writer, args=((r1, r2)[i % 2], f"{i + 2}/10")) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["moved"] * 7 + ["won"]
    assert len(r1.commits(toy_contract.sha256)) == 2


def test_artifacts_are_content_addressed_and_inlined_on_read(toy_contract, repo):
    repo.ensure_contract(toy_contract)
    c = commit(repo, toy_contract, None, "1/10")
    cand = repo.candidate(c.candidate_id)
    assert cand.evidence.artifacts == {"certificate": {"x": "1/10"}}


def test_database_url_accepts_paths_and_urls():
    assert database_url("a.db") == "sqlite:///a.db"
    assert database_url("postgresql+psycopg://u@h:1/d").startswith("postgresql+psycopg://")


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        make_engine(str(tmp_path / "no" / "such" / "x.db"))




def test_stored_evidence_hash_is_the_hash_of_its_canonical_bytes_for_unusual_values(toy_contract, repo):
    import dataclasses
    import enum
    from fractions import Fraction

    from mathloop.domain import sha256_hex

    class Third(enum.Enum):
        VALUE = Fraction(1, 3)

    repo.ensure_contract(toy_contract)
    base = evidence_for(toy_contract, "1/10")
    res = dataclasses.replace(base.results[0], reasons=(Fraction(1, 3),))  # not a str: converted, as on every path
    ev = dataclasses.replace(base, results=(res,) + base.results[1:], state={**base.state, "v": Third.VALUE})
    c = repo.commit(contract_sha=toy_contract.sha256, session_id=None, parent=None, payload={"x": "1/10"}, proposer="t",
                    meta={}, label=Label.PROGRESS, evidence=ev)
    assert c.evidence_sha == sha256_hex(ev.canonical_bytes())
    assert b'"v":"1/3"' in ev.canonical_bytes() and b'"reasons":["1/3"]' in ev.canonical_bytes()


def test_a_float_anywhere_in_evidence_is_refused_before_anything_is_written(toy_contract, repo):
    import dataclasses

    repo.ensure_contract(toy_contract)
    base = evidence_for(toy_contract, "1/10")
    res = dataclasses.replace(base.results[0], reasons=(0.5,))
    for ev in (dataclasses.replace(base, results=(res,) + base.results[1:]), dataclasses.replace(base, state={"v": 0.5})):
        with pytest.raises(TypeError, match="float"):
            repo.commit(contract_sha=toy_contract.sha256, session_id=None, parent=None, payload={"x": "1/10"},
                        proposer="t", meta={}, label=Label.PROGRESS, evidence=ev)
    assert repo.head(toy_contract.sha256) is None and sum(repo.label_counts(toy_contract.sha256).values()) == 0
