"""A reward function for TRL's GRPOTrainer (`reward_funcs=[...]`), backed by mathloop's checkers.

TRL calls each reward function as `f(prompts=..., completions=..., completion_ids=..., **columns,
trainer_state=...)` with one entry per generated completion, and logs it under `f.__name__`.
Completions are strings (standard format) or lists of {"role", "content"} messages
(conversational format). The function returns one float per completion; TRL is never imported.

    from trl import GRPOTrainer
    from mathloop.integrations.trl import reward_function

    trainer = GRPOTrainer(model=..., reward_funcs=[reward_function("levinson-conrey")], train_dataset=...)

A dataset exported by `mathloop export TARGET --dataset DIR` has a `parent_commit` column; with
`db=` naming that store, each completion is scored against its own row's parent state.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping, Sequence

from mathloop.env import Environment, RewardTable, Score, StoreCommit
from mathloop.integrations.completions import completion_text

RewardFunction = Callable[..., list[float]]


def _rewards(value: RewardTable | Mapping[str, Any] | None) -> RewardTable | None:
    if value is None or isinstance(value, RewardTable):
        return value
    return RewardTable.from_mapping(value)


class MathloopReward:
    """The callable `reward_function` returns; `last_scores` holds the full Scores of the last batch."""

    def __init__(self, target: str, *, db: str | None = None, commit: str | None = None,
                 rewards: RewardTable | Mapping[str, Any] | None = None, workers: int = 1,
                 timeout_s: float | None = None, rejections: int = 0, name: str | None = None) -> None:
        if commit is not None and db is None:
            raise ValueError("commit: needs db= (the store the commit is in)")
        self.db = db
        reference = StoreCommit(db, commit) if commit is not None else None
        self.environment = Environment(target, reference, rewards=_rewards(rewards), workers=workers,
                                       timeout_s=timeout_s, rejections=rejections)
        self.__name__ = name or "mathloop_" + self.environment.contract.name.replace("-", "_")
        self._at: dict[str, Environment] = {}
        self._lock = threading.Lock()
        self.last_scores: list[Score] = []

    def __repr__(self) -> str:
        return f"MathloopReward({self.__name__}, {self.environment!r})"

    def _environment_for(self, parent: Any) -> Environment:
        if parent is None or parent == "" or parent == self.environment.reference.id:
            return self.environment
        if not isinstance(parent, str):
            raise ValueError(f"parent_commit: expected a commit hash, got {type(parent).__name__}")
        if self.db is None:
            raise ValueError("parent_commit: the dataset names store commits; pass db= (the store they are in) "
                             "to reward_function, or drop the column to score against the seed")
        with self._lock:
            env = self._at.get(parent)
            if env is None:
                env = self._at[parent] = self.environment.at(StoreCommit(self.db, parent))
            return env

    def __call__(self, completions: Sequence[Any] | None = None, prompts: Sequence[Any] | None = None,
                 parent_commit: Sequence[Any] | None = None, **kwargs: Any) -> list[float]:
        """Return one reward per completion (TRL's reward-function convention)."""
        if completions is None:
            raise TypeError("completions: required (TRL passes completions=[...])")
        texts = [completion_text(c) for c in completions]
        parents = list(parent_commit) if parent_commit is not None else [None] * len(texts)
        if len(parents) != len(texts):
            raise ValueError(f"parent_commit: {len(parents)} values for {len(texts)} completions")
        groups: dict[int, tuple[Environment, list[int]]] = {}
        for i, parent in enumerate(parents):
            env = self._environment_for(parent)
            groups.setdefault(id(env), (env, []))[1].append(i)
        scores: list[Score | None] = [None] * len(texts)
        for env, idx in groups.values():
            for i, s in zip(idx, env.score_batch([texts[i] for i in idx])):
                scores[i] = s
        self.last_scores = [s for s in scores if s is not None]
        return [s.reward for s in self.last_scores]

    def close(self) -> None:
        """Stop the checker processes (they also stop at interpreter exit)."""
        self.environment.close()


def reward_function(target: str, **options: Any) -> MathloopReward:
    """Return a TRL reward function for `target`: `f(completions, **kwargs) -> list[float]`.

    Options: db / commit (score against a store's commit instead of the seed; db also resolves a
    `parent_commit` column), rewards (a RewardTable or a mapping overriding its defaults), workers,
    timeout_s, rejections, name (the function's `__name__`, which TRL logs).

    Raises:
        ValueError: an option is invalid ("<option>: reason").
    """
    return MathloopReward(target, **options)
