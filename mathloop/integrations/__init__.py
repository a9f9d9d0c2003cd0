"""The verifier as a reward in the RL ecosystem's own conventions (TRL, verl), without importing either.

- `mathloop.integrations.trl.reward_function(target, **options)`: a `reward_funcs` entry for TRL's GRPOTrainer.
- `mathloop.integrations.verl.compute_score(data_source, solution_str, ground_truth, extra_info)`: verl's
  custom reward function.
"""
