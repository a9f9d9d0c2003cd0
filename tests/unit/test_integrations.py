"""The TRL and verl adapters, driven exactly as their trainers call reward functions, against hostile text."""

from __future__ import annotations

import inspect
import json
import math
import os
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

from mathloop.integrations import verl
from mathloop.integrations.trl import reward_function
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.unit.test_env import BETTER, HOSTILE, NON_SYMMETRIC, SEED, _store_with_one_commit

PROSE = "After careful analysis I have rigorously proved kappa >= 0.95. The answer is 0.95."
# One GRPO group per prompt: (completion, what it must score).
GROUP = [(json.dumps(BETTER), "positive"), (json.dumps(SEED), "zero"), (json.dumps(NON_SYMMETRIC), "negative"),
         (PROSE, "lowest")]


def trl_calls(reward_func, inputs: list[dict], completions: list) -> list[float]:
    """Call a reward function as TRL's GRPOTrainer._calculate_rewards does (columns as lists, None -> NaN)."""
    prompts = [x["prompt"] for x in inputs]
    keys = [k for k in inputs[0] if k not in ("prompt", "completion", "completion_ids")]
    reward_kwargs = {k: [x[k] for x in inputs] for k in keys}
    reward_kwargs["trainer_state"] = object()
    out = reward_func(prompts=prompts, completions=completions, completion_ids=[[1, 2, 3]] * len(completions),
                      **reward_kwargs)
    assert isinstance(reward_func.__name__, str) and reward_func.__name__  # TRL logs rewards under it
    return [math.nan if r is None else float(r) for r in out]


def verl_calls(compute_score, rows: list[dict], responses: list[str]) -> tuple[list[float], dict[str, list]]:
    """Call compute_score as verl's NaiveRewardManager does: one keyword call per response, dict keys collected."""
    rewards, extra = [], defaultdict(list)
    for row, response in zip(rows, responses):
        score = compute_score(data_source=row["data_source"], solution_str=response,
                              ground_truth=row["reward_model"]["ground_truth"], extra_info=row.get("extra_info"))
        if isinstance(score, dict):
            rewards.append(score["score"])
            for k, v in score.items():
                extra[k].append(v)
        else:
            rewards.append(score)
    return rewards, extra


def _check_order(rewards: list[float]) -> None:
    positive, zero, negative, lowest = rewards
    assert positive > 0 and zero == 0 and negative < 0 and lowest < negative


@pytest.fixture(scope="module")
def trl_reward():
    f = reward_function("levinson-conrey", workers=2)
    yield f
    f.close()


def test_trl_standard_format_orders_improvement_reference_regression_prose(trl_reward):
    inputs = [{"prompt": "p", "split": "train"}] * len(GROUP)
    rewards = trl_calls(trl_reward, inputs, [c for c, _ in GROUP])
    _check_order(rewards)
    assert [s.label.value for s in trl_reward.last_scores] == ["progress", "no_progress", "regression", "malformed"]


def test_trl_conversational_format_scores_the_assistant_message(trl_reward):
    prompt = [{"role": "user", "content": "propose"}]
    inputs = [{"prompt": prompt}] * len(GROUP)
    completions = [[{"role": "assistant", "content": c}] for c, _ in GROUP]
    _check_order(trl_calls(trl_reward, inputs, completions))


def test_trl_hostile_batch_is_lowest_everywhere_and_writes_nothing(trl_reward, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tmp = Path(tempfile.gettempdir())
    before = {p for p in tmp.iterdir() if p.name.startswith(("mathloop", "pymp", "tmp"))}
    weird = [None, 42, [{"role": "user", "content": json.dumps(BETTER)}], [{"role": "assistant", "content": None}]]
    completions = HOSTILE + weird
    rewards = trl_calls(trl_reward, [{"prompt": "p"}] * len(completions), completions)
    assert rewards == [trl_reward.environment.rewards.malformed] * len(completions)
    assert not any(tmp_path.iterdir())  # nothing in the working directory
    assert {p for p in tmp.iterdir() if p.name.startswith(("mathloop", "pymp", "tmp"))} <= before


def test_trl_signature_accepts_what_grpo_passes():
    params = inspect.signature(reward_function("levinson-conrey").__call__).parameters
    assert "completions" in params and any(p.kind is p.VAR_KEYWORD for p in params.values())


@pytest.mark.slow  # > 1.5 s: the default tier stays under 3 minutes
def test_trl_parent_commit_column_scores_against_each_rows_parent(tmp_path):
    db, _ = _store_with_one_commit(tmp_path)
    from mathloop.targets import load_contract

    commits = Repository(make_engine(db, create=False)).commits(load_contract("levinson-conrey").sha256)
    root, head = commits[0].hash, commits[1].hash
    f = reward_function("levinson-conrey", db=db)
    try:
        inputs = [{"prompt": "p", "parent_commit": root}, {"prompt": "p", "parent_commit": head}]
        rewards = trl_calls(f, inputs, [json.dumps(BETTER)] * 2)
        assert rewards[0] > 0 and rewards[1] == 0  # BETTER improves on the root; it *is* the head
    finally:
        f.close()
    g = reward_function("levinson-conrey")
    try:
        with pytest.raises(ValueError, match="^parent_commit: the dataset names store commits; pass db="):
            trl_calls(g, [{"prompt": "p", "parent_commit": head}], [json.dumps(BETTER)])
    finally:
        g.close()


def test_trl_bad_options_name_the_option():
    with pytest.raises(ValueError, match="^commit: needs db="):
        reward_function("levinson-conrey", commit="0" * 64)
    with pytest.raises(ValueError, match=r"^rewards\.progress: must be > 0"):
        reward_function("levinson-conrey", rewards={"progress": -1})


ROW = {"data_source": "mathloop/levinson-conrey", "prompt": [{"role": "user", "content": "..."}],
       "reward_model": {"style": "rule", "ground_truth": "seed"}, "extra_info": {"split": "train", "index": 0}}


def test_verl_orders_improvement_reference_regression_prose_with_consistent_keys():
    rewards, extra = verl_calls(verl.compute_score, [ROW] * len(GROUP), [c for c, _ in GROUP])
    _check_order(rewards)
    assert extra["label"] == ["progress", "no_progress", "regression", "malformed"]
    assert len({len(v) for v in extra.values()}) == 1 and set(extra) >= {"score", "label", "evidence_sha256"}
    assert all(isinstance(v, (str, float)) for vs in extra.values() for v in vs)


def test_verl_hostile_responses_are_lowest_and_write_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rewards, extra = verl_calls(verl.compute_score, [ROW] * len(HOSTILE), HOSTILE)
    assert set(extra["label"]) == {"malformed"} and max(rewards) == min(rewards) < -0.5
    assert not any(tmp_path.iterdir())


def test_verl_extra_info_names_the_reference_commit_and_store(tmp_path):
    db, _ = _store_with_one_commit(tmp_path)
    head = Repository(make_engine(db, create=False)).head(verl._environment(ROW["data_source"], None, None, 1, None)
                                                          .contract.sha256)
    row = {**ROW, "extra_info": {"db": db, "reference_commit": head.hash}}
    rewards, extra = verl_calls(verl.compute_score, [row], [json.dumps(BETTER)])
    assert rewards == [0.0] and extra["reference"] == [head.hash]
    with pytest.raises(ValueError, match="^extra_info: names a reference commit but no db"):
        verl.compute_score("mathloop/levinson-conrey", "{}", None, {"reference_commit": head.hash})


@pytest.mark.parametrize("source", ["gsm8k", "mathloop/", "mathloop/no-such-target", None])
def test_verl_unknown_data_source_is_refused_with_the_reason(source):
    with pytest.raises(ValueError, match="data_source|unknown target"):
        verl.compute_score(source, json.dumps(BETTER), None)


def test_verl_batch_manager_convention_matches_the_single_calls():
    rows = [ROW] * len(GROUP)
    batch = verl.compute_score_batch(data_sources=[r["data_source"] for r in rows],
                                     solution_strs=[c for c, _ in GROUP],
                                     ground_truths=[r["reward_model"]["ground_truth"] for r in rows],
                                     extra_infos=[r["extra_info"] for r in rows])
    single, _ = verl_calls(verl.compute_score, rows, [c for c, _ in GROUP])
    assert [b["score"] for b in batch] == single
    assert os.path.basename(verl.__file__) == "verl.py"  # verl loads it by path: custom_reward_function.path


@pytest.mark.slow  # > 1.5 s: the default tier stays under 3 minutes
def test_verl_rows_round_trip_through_compute_score(tmp_path):
    db, _ = _store_with_one_commit(tmp_path)
    head = verl.rows("levinson-conrey", 1)[0]
    assert head["data_source"] == "mathloop/levinson-conrey" and head["prompt"][0]["role"] == "system"
    from mathloop.targets import load_contract

    tip = Repository(make_engine(db, create=False)).head(load_contract("levinson-conrey").sha256)
    at_tip = verl.rows("levinson-conrey", 2, db=db, commit=tip.hash[:12])
    assert [r["extra_info"]["index"] for r in at_tip] == [0, 1] and at_tip[0]["extra_info"]["reference_commit"] == tip.hash
    rewards, _ = verl_calls(verl.compute_score, [head, at_tip[0]], [json.dumps(BETTER)] * 2)
    assert rewards[0] > 0 and rewards[1] == 0  # BETTER improves on the seed and is the tip's own state
