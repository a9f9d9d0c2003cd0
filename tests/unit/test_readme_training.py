"""The documentation's GRPO example (docs/training.md) runs: with TRL where installed, else against a stand-in that calls rewards as TRL does."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest

TRAINING = Path(__file__).resolve().parents[2] / "docs" / "training.md"
BETTER = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}


def _section_blocks() -> list[str]:
    text = TRAINING.read_text(encoding="utf-8")
    section = text.split("## GRPO with TRL", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def _stand_in_trl(seen: list) -> types.ModuleType:
    """A module `trl` whose GRPOTrainer.train() calls each reward function as GRPOTrainer does."""
    trl = types.ModuleType("trl")

    class GRPOConfig:
        def __init__(self, output_dir: str, num_generations: int = 8, per_device_train_batch_size: int = 8, **kw):
            self.num_generations, self.batch = num_generations, per_device_train_batch_size

    class GRPOTrainer:
        def __init__(self, model, reward_funcs, args, train_dataset):
            self.reward_funcs, self.args, self.data = reward_funcs, args, train_dataset

        def train(self):
            row = self.data[0]
            replies = [json.dumps(BETTER), "I proved kappa >= 0.9.", json.dumps({"P": ["0", "1"], "Q": ["1", "-1", "1"],
                                                                             "R": "1"}), "{}"]
            completions = [[{"role": "assistant", "content": r}] for r in replies[: self.args.num_generations]]
            extra = {k: [row[k]] * len(completions) for k in row if k != "prompt"}
            for f in self.reward_funcs:
                seen.append((f.__name__, f(prompts=[row["prompt"]] * len(completions), completions=completions,
                                           completion_ids=[[0]] * len(completions), trainer_state=None, **extra)))

    trl.GRPOConfig, trl.GRPOTrainer = GRPOConfig, GRPOTrainer
    return trl


@pytest.mark.slow  # > 1.5 s: the default tier stays under 3 minutes
def test_the_grpo_example_trains_with_mathloop_rewards(monkeypatch, tmp_path):
    pytest.importorskip("datasets")
    block = next(b for b in _section_blocks() if "GRPOTrainer(" in b)
    seen: list = []
    try:
        import trl  # noqa: F401
        pytest.skip("TRL is installed: run the example itself (it downloads a model)")
    except ImportError:
        monkeypatch.setitem(sys.modules, "trl", _stand_in_trl(seen))
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(block, "docs/training.md", "exec"), scope)
    scope["reward"].close()
    (name, rewards), = seen
    assert name == "mathloop_levinson_conrey"
    assert rewards[0] > 0 and rewards[1] == min(rewards) and rewards[2] < 0
    assert [s.label.value for s in scope["reward"].last_scores] == ["progress", "malformed", "regression", "malformed"]
    assert not any(tmp_path.iterdir())
