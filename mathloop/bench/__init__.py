"""The frozen paired benchmark: a spec (spec.py), per-run figures and paired differences (metrics.py)."""
