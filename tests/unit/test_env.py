"""The verifier environment: the model proposer's prompt, checked scores against a reference, no side effects."""

from __future__ import annotations

import gc
import json
import time
import os
import tempfile
from pathlib import Path

import pytest

from mathloop.domain import Label
from mathloop.env import Environment, ReferenceError, RewardTable, StoreCommit
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.cli import invoke
from tests.unit.test_runner import _alive
from tests.unit.test_openai_proposer import FakeChatServer, good

SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}
BETTER = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}  # kappa 0.3898... > the seed's 0.3868...
NON_SYMMETRIC = {"P": ["0", "1"], "Q": ["1", "-1", "1"], "R": "13/10"}  # Q(x) + Q(1-x) not constant

# What a policy under RL pressure emits: claims, broken JSON, oversized or sneaky payloads.
HOSTILE = [
    "",
    "   \n ",
    "I have proved that kappa >= 0.99. This is certainly correct; please accept it.",
    "Certified: kappa = 0.41 {as shown above}",
    '{"P": ["0", "1"], "Q": ["1", "-1"], "R": NaN}',
    '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5", "R": "13/10"}',
    '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5", "kappa": "0.99"}',
    '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "1e999"}',
    '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "' + "9" * 5000 + '"}',
    '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "١٣/١٠"}',
    '["P", "Q", "R"]',
    "[" * 50_000,
    "x" * 70_000,
    '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"',
    '{"__import__": "os", "P": "system(\'touch pwned\')"}',
]


@pytest.fixture(scope="module")
def env():
    with Environment("levinson-conrey") as e:
        yield e


def test_genuine_improvement_scores_above_zero(env):
    s = env.score(json.dumps(BETTER))
    assert s.label is Label.PROGRESS and s.reward > 0 and s.reasons == ()
    assert s.bounds["kappa"] > env.reference.head.bounds["kappa"]
    assert len(s.evidence_sha256) == 64


def test_the_reference_state_itself_scores_zero(env):
    s = env.score(json.dumps(SEED))
    assert s.label is Label.NO_PROGRESS and s.reward == 0
    assert any("below the minimum improvement" in r for r in s.reasons)


def test_non_symmetric_q_scores_below_zero_with_the_checkers_reason(env):
    s = env.score(json.dumps(NON_SYMMETRIC))
    assert s.label is Label.REGRESSION and s.reward < 0
    assert "kappa" not in s.bounds
    assert any(r.startswith("q-symmetric:") for r in s.reasons)


def test_prose_claims_score_lowest(env):
    prose = env.score("I have proved that kappa >= 0.99, trust me.")
    worst_checked = min(env.score(json.dumps(p)).reward for p in (BETTER, SEED, NON_SYMMETRIC))
    assert prose.label is Label.MALFORMED and prose.reward < worst_checked
    assert prose.reasons == ("no usable JSON: no JSON object in reply",)


def test_claims_around_the_json_never_change_the_score(env):
    bare = env.score(json.dumps(SEED))
    claimed = env.score("Here it is, kappa = 0.999 certified:\n```json\n" + json.dumps(SEED) + "\n```\nQED")
    assert (claimed.label, claimed.reward, claimed.bounds, claimed.evidence_sha256) == \
           (bare.label, bare.reward, bare.bounds, bare.evidence_sha256)


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_completions_are_malformed_and_lowest(env, text):
    s = env.score(text)
    assert s.label is Label.MALFORMED and s.reward == RewardTable().malformed
    assert s.reasons and all(isinstance(r, str) and r for r in s.reasons)


def test_non_text_completions_are_malformed(env):
    assert [s.label for s in env.score_batch([None, b"{}", {"P": []}, 7])] == [Label.MALFORMED] * 4


def test_identical_candidates_are_checked_once_per_process():
    with Environment("levinson-conrey") as env:
        payload = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "1231/1000"}
        texts = [json.dumps(payload), json.dumps(payload, indent=2), "sure: " + json.dumps(payload)] * 5
        before = env.checks_run
        scores = env.score_batch(texts)
        assert env.checks_run - before == 1 and len({s.evidence_sha256 for s in scores}) == 1
    with Environment("levinson-conrey") as again:  # another environment in the same process, same reference
        again.score(json.dumps(payload))
        assert again.checks_run == 0


def test_two_workers_give_the_same_scores_as_one():
    texts = [json.dumps({"P": ["0", "1"], "Q": ["1", "-1"], "R": f"{1200 + i}/1000"}) for i in range(8)]
    texts += [json.dumps(NON_SYMMETRIC), "no json", json.dumps(SEED)]
    from mathloop.env import clear_cache

    clear_cache()
    with Environment("levinson-conrey", workers=1) as one:
        a = one.score_batch(texts)
    clear_cache()
    with Environment("levinson-conrey", workers=2) as two:
        b = two.score_batch(texts)
        assert two.checks_run == 10
    assert [s.to_json() for s in a] == [s.to_json() for s in b]


def _tree(*roots: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for root in roots:
        for d, _, files in os.walk(root):
            for f in files:
                p = Path(d) / f
                try:
                    st = p.stat()
                except FileNotFoundError:
                    continue
                out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def _store_with_one_commit(tmp_path: Path) -> tuple[str, list]:
    db = str(tmp_path / "store" / "m.db")
    (tmp_path / "store").mkdir()
    with FakeChatServer([good(BETTER)], default=good(NON_SYMMETRIC)) as server:
        res = invoke("run", "levinson-conrey", "--db", db, "--proposer", "openai", "--model", "scripted",
                     "--base-url", server.url, "--budget", "2", "--samples", "1", "--no-progress", "--no-lean")
        assert res.exit_code == 0, res.stdout
        requests = list(server.requests)
    return db, requests


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_prompt_is_exactly_what_the_model_proposer_sends(tmp_path):
    db, requests = _store_with_one_commit(tmp_path)
    commits = Repository(make_engine(db, create=False)).commits(
        Environment("levinson-conrey").contract.sha256)
    with Environment("levinson-conrey", StoreCommit(db, commits[0].hash)) as at_root:
        assert at_root.prompt() == requests[0]["body"]["messages"]
    with Environment("levinson-conrey", StoreCommit(db, commits[1].hash[:10])) as at_head:
        assert at_head.reference.id == commits[1].hash
        assert at_head.score(json.dumps(BETTER)).label is Label.NO_PROGRESS  # already the head's state
        assert at_head.prompt()[0] == at_root.prompt()[0]  # same system template and schema


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_scoring_writes_no_store_and_creates_no_file(tmp_path, monkeypatch):
    db, _ = _store_with_one_commit(tmp_path)
    (tmp_path / "cwd").mkdir()
    (tmp_path / "tmp").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    engine = make_engine(db, create=False)
    head = Repository(engine).head(Environment("levinson-conrey").contract.sha256)
    engine.dispose()
    with Environment("levinson-conrey", StoreCommit(db, head.hash), workers=2, rejections=4) as env:
        gc.collect()  # the run's own engine, if still unreachable-but-open, closes (and checkpoints) now, not later
        before = _tree(tmp_path, Path(tempfile.gettempdir()))
        store_bytes = b"".join(p.read_bytes() for p in sorted((tmp_path / "store").iterdir()))
        scores = env.score_batch(HOSTILE + [json.dumps(p) for p in (BETTER, SEED, NON_SYMMETRIC)]
                                 + [json.dumps({"P": ["0", "1"], "Q": ["1", "-1"], "R": f"{i}/7"}) for i in range(1, 9)])
        assert {s.label for s in scores} >= {Label.MALFORMED, Label.NO_PROGRESS, Label.REGRESSION}
        after = _tree(tmp_path, Path(tempfile.gettempdir()))
        assert after == before
        assert b"".join(p.read_bytes() for p in sorted((tmp_path / "store").iterdir())) == store_bytes
    assert not (tmp_path / "cwd" / "pwned").exists()


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_a_store_reference_must_name_a_commit_of_this_lineage(tmp_path):
    db, _ = _store_with_one_commit(tmp_path)
    with pytest.raises(ReferenceError, match=r"^commit: no commit 'deadbeefdead'"):
        Environment("levinson-conrey", StoreCommit(db, "deadbeefdead"))
    with pytest.raises(ReferenceError, match=r"^commit: expected a commit hash"):
        Environment("levinson-conrey", StoreCommit(db, "abc"))
    with pytest.raises(ReferenceError, match=r"^db: "):
        Environment("levinson-conrey", StoreCommit(str(tmp_path / "nowhere.db"), "0" * 64))


def test_gain_scaling_rewards_larger_certified_gains_more():
    with Environment("levinson-conrey", rewards=RewardTable(gain_scale=10.0)) as env:
        small = env.score(json.dumps({"P": ["0", "1"], "Q": ["1", "-1"], "R": "128/100"}))
        large = env.score(json.dumps(BETTER))
    assert small.label is large.label is Label.PROGRESS
    assert 0.5 < small.reward < large.reward


@pytest.mark.parametrize("bad, message", [
    ({"progress": 0.0}, "rewards.progress: must be > 0"),
    ({"no_progress": 0.1}, "rewards.no_progress: must be 0"),
    ({"regression": 0.0}, "rewards.regression: must be < 0"),
    ({"malformed": -0.1}, "rewards.malformed: must be below regression and incomparable"),
    ({"error": float("nan")}, "rewards.error: must be a finite number"),
    ({"bonus": 1.0}, "rewards.bonus: unknown key"),
])
def test_a_reward_table_that_breaks_the_labels_order_is_refused(bad, message):
    with pytest.raises(ValueError, match="^" + message.replace(".", r"\.")):
        RewardTable.from_mapping(bad)


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_a_checker_timeout_is_an_error_scored_lowest_and_not_cached(toy_contract):
    with Environment(toy_contract, timeout_s=1.0, start_method="fork") as env:
        slow = '{"x": "1/2", "sleep": 30}'
        s = env.score(slow)
        assert s.label is Label.ERROR and s.reward == RewardTable().error and "timed out" in s.reasons[0]
        assert env.score('{"x": "1/2"}').label is Label.CORRECT  # a fresh checker after the kill
        env.score(slow)
        assert env.checks_run == 3


def test_a_commit_of_another_contract_is_refused_by_name(tmp_path):
    db = str(tmp_path / "levinson.db")
    res = invoke("run", "levinson", "--db", db, "--budget", "1", "--no-progress", "--no-lean")
    assert res.exit_code == 0, res.stdout
    from mathloop.targets import load_contract

    root = Repository(make_engine(db, create=False)).commits(load_contract("levinson").sha256)[0]
    with pytest.raises(ReferenceError, match=r"^commit: .* belongs to another contract"):
        Environment("levinson-conrey", StoreCommit(db, root.hash))


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_an_environment_dropped_without_close_stops_its_checkers():
    import gc

    env = Environment("levinson-conrey", workers=2)
    pids = env._pool.pids()
    assert len(pids) >= 2 and all(_alive(p) for p in pids)
    del env
    gc.collect()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


