"""The verifier as an environment for model builders: prompts, checked scores and rewards.

`Environment(target, reference)` gives the chat messages a model is shown (`prompt()`) and the
checked, labelled score of its reply (`score(text)`); see `mathloop.env.environment`.
"""

from mathloop.env.environment import Environment, Score, clear_cache
from mathloop.env.reference import ReferenceError, StoreCommit
from mathloop.env.rewards import RewardTable

__all__ = ["Environment", "ReferenceError", "RewardTable", "Score", "StoreCommit", "clear_cache"]
