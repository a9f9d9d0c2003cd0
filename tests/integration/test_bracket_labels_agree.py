"""In a store holding both bracket partners (pair-correlation-rh and its ceiling), the loop, `mathloop check`, the
audit and Environment.score give every stored candidate the same label: one gate, bracket limits included."""

from __future__ import annotations

import json

import pytest

from mathloop.check.checker import Checker
from mathloop.check.runner import InProcessRunner
from mathloop.targets import load_contract
from mathloop.env import Environment, StoreCommit
from mathloop.audit.report import audit
from mathloop.search.loop import Session, SessionLimits
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target
from tests.integration.cli import invoke

pytestmark = pytest.mark.slow


def test_every_stored_candidate_gets_one_label_on_every_path(tmp_path):
    db = str(tmp_path / "pair.db")
    repo = Repository(make_engine(db))
    contracts = [load_contract("pair-correlation-rh"), load_contract("pair-correlation-rh-ceiling")]
    for c in contracts:  # both lineages, each session judged against the partner's head of its time
        Session(c, repo, InProcessRunner()).run(build_target(c).local_proposer(0), SessionLimits(3, samples=1))
    compared = 0
    for c in contracts:
        assert audit(c, repo, InProcessRunner())[0] == []  # every commit re-checked and re-gated: same labels
        checker = Checker(c, target=build_target(c), runner=InProcessRunner())
        head = repo.head(c.sha256)
        for cand in repo.candidates(c.sha256):
            if cand.proposer == "seed" or cand.label in ("malformed",):
                continue
            parent = repo.get_commit(cand.head_commit)
            _, decision = checker.judge(parent.state, cand.payload, parent.scores, checker.limits(repo, parent.hash))
            assert decision is not None and decision.label.value == cand.label, cand
            with Environment(c, StoreCommit(db, parent.hash)) as env:
                assert env.score(json.dumps(cand.payload)).label.value == cand.label, cand
            if parent.hash == head.hash:
                f = tmp_path / "cand.json"
                f.write_text(json.dumps(cand.payload))
                res = invoke("check", c.name, "--candidate", str(f), "--db", db, "--json")
                out = json.loads(res.stdout[res.stdout.index("{"):res.stdout.rindex("}") + 1])
                assert out["label_against_head"] == cand.label, out
            compared += 1
    assert compared >= 4
