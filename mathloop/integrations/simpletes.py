"""SimpleTES's evaluator, answered by mathloop: `evaluate(candidate_path) -> dict`.

In the task's `evaluator.py`::

    from mathloop.integrations.simpletes import evaluator
    evaluate = evaluator("erdos-minimum-overlap", db="/path/to/store.db")

SimpleTES runs `evaluate` in a fresh interpreter per candidate, prints the returned dict as JSON and scores a node by
`combined_score`, giving `-inf` to any metrics dict with a true `error` (its own failure value). So a certified program
returns `combined_score` = 1/value (minimised) or value (maximised), > 0, with no `error` key; a refused or failed one
returns `combined_score: -inf` and `error` = the reason. The exact value, verdict and commit hash are further keys.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from mathloop.integrations.certified import CertifiedEvaluator, Evaluation


def metrics(ev: Evaluation) -> dict[str, Any]:
    """Return SimpleTES's metrics dict of an evaluation (JSON-serialisable; -inf for every refusal)."""
    out: dict[str, Any] = {"verdict": ev.verdict, "label": ev.label, "bound": ev.bound, "commit": ev.commit,
                           "head": ev.head, "program_sha256": ev.program_sha256, "feedback": ev.feedback()}
    if ev.valid:
        out.update(combined_score=float(ev.score), value=float(ev.value),
                   value_exact=f"{ev.value.numerator}/{ev.value.denominator}")
    else:
        out.update(combined_score=-math.inf, error=ev.feedback())
    return out


def evaluator(target: str, db: str, **options: Any) -> Callable[[str], dict[str, Any]]:
    """Return SimpleTES's `evaluate(candidate_path)` for `target` and the store `db` (built on the first call)."""
    built: list[CertifiedEvaluator] = []

    def evaluate(candidate_path: str) -> dict[str, Any]:
        if not built:
            built.append(CertifiedEvaluator(target, db, system="simpletes", **options))
        return metrics(built[0].evaluate_file(candidate_path))

    return evaluate
