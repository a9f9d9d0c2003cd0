"""verl's custom reward function, backed by mathloop's checkers (verl is never imported).

verl's reward managers call `compute_score(data_source=..., solution_str=..., ground_truth=...,
extra_info=...)` once per response (the batch manager calls `compute_score_batch` with plural
names). Point verl at this module:

    custom_reward_function:
      path: <site-packages>/mathloop/integrations/verl.py   # or a two-line wrapper file of your own
      name: compute_score

Each row's `data_source` is "mathloop/<target>" (e.g. "mathloop/levinson-conrey"). `extra_info` may
name the reference state: {"db": STORE, "reference_commit": HASH} (or "parent_commit", as the exported
dataset calls it); without it the contract's seed is the reference. `ground_truth` is not read: there
is no answer key, the checkers decide. The returned dict always has the same keys, as verl collects
each key into its `reward_extra_info` lists.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Mapping, Sequence

from mathloop.env import Environment, RewardTable, StoreCommit
from mathloop.integrations.completions import completion_text

PREFIX = "mathloop/"

# (target, rewards, workers, timeout) -> the environment at the seed; references share its checkers.
_roots: dict[tuple[str, str, int, float | None], Environment] = {}
_at: dict[tuple[tuple[str, str, int, float | None], str, str], Environment] = {}
_lock = threading.Lock()


def target_of(data_source: Any) -> str:
    """Return the target named by a data_source "mathloop/<target>".

    >>> target_of("mathloop/levinson-conrey")
    'levinson-conrey'

    Raises:
        ValueError: the data_source is not "mathloop/<target>".
    """
    if not isinstance(data_source, str) or not data_source.startswith(PREFIX) or len(data_source) == len(PREFIX):
        raise ValueError(f"data_source: expected 'mathloop/<target>', got {data_source!r}")
    return data_source[len(PREFIX):]


def _reference(extra_info: Any) -> tuple[str, str] | None:
    """Return (db, commit) named by extra_info, or None for the seed."""
    if extra_info is None:
        return None
    if not isinstance(extra_info, Mapping):
        raise ValueError(f"extra_info: expected a mapping, got {type(extra_info).__name__}")
    commit = extra_info.get("reference_commit") or extra_info.get("parent_commit")
    db = extra_info.get("db") or extra_info.get("store")
    if commit in (None, "", "seed"):
        return None
    if not db:
        raise ValueError("extra_info: names a reference commit but no db (the store it is in)")
    return str(db), str(commit)


def _environment(data_source: Any, extra_info: Any, rewards: Mapping[str, Any] | RewardTable | None,
                 workers: int, timeout_s: float | None) -> Environment:
    table = rewards if isinstance(rewards, RewardTable) or rewards is None else RewardTable.from_mapping(rewards)
    key = (target_of(data_source), json.dumps(table.to_json() if table else None, sort_keys=True), workers, timeout_s)
    ref = _reference(extra_info)
    with _lock:
        root = _roots.get(key)
        if root is None:
            root = _roots[key] = Environment(key[0], rewards=table, workers=workers, timeout_s=timeout_s)
        if ref is None:
            return root
        env = _at.get((key, *ref))
        if env is None:
            env = _at[(key, *ref)] = root.at(StoreCommit(*ref))
        return env


def _result(score, env: Environment) -> dict[str, Any]:
    return {
        "score": score.reward,
        "label": score.label.value,
        "acc": 1.0 if score.label.value in ("correct", "progress") else 0.0,
        "reasons": "; ".join(score.reasons),
        "bounds": json.dumps(score.to_json()["bounds"], sort_keys=True),
        "evidence_sha256": score.evidence_sha256 or "",
        "reference": env.reference.id,
    }


def compute_score(data_source: str, solution_str: Any, ground_truth: Any = None, extra_info: Any = None, *,
                  rewards: Mapping[str, Any] | RewardTable | None = None, workers: int = 1,
                  timeout_s: float | None = None, **kwargs: Any) -> dict[str, Any]:
    """Return {"score", "label", "acc", "reasons", "bounds", "evidence_sha256", "reference"} for one response.

    `rewards`, `workers`, `timeout_s` arrive from verl's `custom_reward_function.reward_kwargs`.

    Raises:
        ValueError: data_source is not "mathloop/<target>", or extra_info names an unusable reference.
    """
    env = _environment(data_source, extra_info, rewards, workers, timeout_s)
    return _result(env.score(completion_text(solution_str)), env)


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[Any], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any], **kwargs: Any) -> list[dict[str, Any]]:
    """Return compute_score's dict per response, each distinct payload checked once, in parallel."""
    if not len(data_sources) == len(solution_strs) == len(extra_infos):
        raise ValueError("data_sources, solution_strs and extra_infos: must have the same length")
    opts = {k: kwargs[k] for k in ("rewards", "workers", "timeout_s") if k in kwargs}
    groups: dict[int, tuple[Environment, list[int]]] = {}
    for i, (ds, info) in enumerate(zip(data_sources, extra_infos)):
        env = _environment(ds, info, opts.get("rewards"), opts.get("workers", 1), opts.get("timeout_s"))
        groups.setdefault(id(env), (env, []))[1].append(i)
    out: list[dict[str, Any] | None] = [None] * len(solution_strs)
    for env, idx in groups.values():
        for i, s in zip(idx, env.score_batch([completion_text(solution_strs[i]) for i in idx])):
            out[i] = _result(s, env)
    return [r for r in out if r is not None]


def rows(target: str, n: int = 1, *, db: str | None = None, commit: str | None = None) -> list[dict[str, Any]]:
    """Return n rows of a verl RL dataset for `target`: prompt at the reference state, data_source, extra_info.

    Write them with `pandas.DataFrame(rows).to_parquet(...)` and point `data.train_files` at the file.

    Raises:
        ValueError: commit without db.
    """
    if commit is not None and db is None:
        raise ValueError("commit: needs db= (the store the commit is in)")
    with Environment(target, StoreCommit(db, commit) if commit else None) as env:
        prompt, ref = env.prompt(), env.reference.id
    info = {"db": db, "reference_commit": ref} if commit else {}
    return [{"data_source": PREFIX + env.contract.name, "prompt": prompt, "ability": "math",
             "reward_model": {"style": "rule", "ground_truth": ref},
             "extra_info": {**info, "index": i}} for i in range(n)]
