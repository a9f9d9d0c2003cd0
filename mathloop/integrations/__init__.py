"""The verifier as a reward in the RL ecosystem's own conventions (TRL, verl), without importing either.

- `mathloop.integrations.trl.reward_function(target, **options)`: a `reward_funcs` entry for TRL's GRPOTrainer.
- `mathloop.integrations.verl.compute_score(data_source, solution_str, ground_truth, extra_info)`: verl's
  custom reward function.

And mathloop as the exact evaluator of evolve systems (programs run in the sandbox, checked, committed on progress):

- `mathloop.integrations.openevolve.evaluator(target, db)`: OpenEvolve's `evaluate(program_path)`.
- `mathloop.integrations.shinka.main(target=, db=)`: ShinkaEvolve's `evaluate.py --program_path --results_dir`.
- `mathloop.integrations.simpletes.evaluator(target, db)`: SimpleTES's `evaluate(candidate_path)`.
"""
