"""OpenEvolve's evaluator, answered by mathloop: `evaluate(program_path) -> EvaluationResult`.

In OpenEvolve's evaluator file (`evaluator.py` of a run)::

    from mathloop.integrations.openevolve import evaluator
    evaluate = evaluator("erdos-minimum-overlap", db="/path/to/store.db")

Each program runs in the sandbox; its output is checked exactly, gated against the store's head and committed when it
is strict progress (`mathloop.integrations.certified`). OpenEvolve selects by `metrics["combined_score"]` (higher is
better) and turns every evaluator failure (an exception, a timeout) into `{"error": 0.0}`, which scores 0.0. So a
certified program scores `1/value` (minimised bound) or `value` (maximised), always > 0, and a refused or failed
program scores exactly 0.0 with no other numeric metric: it can never rank with or above a certified one. The exact
value, the verdict, the label, the reasons and the commit hash travel as artifacts (strings), which OpenEvolve shows
the model in the next prompt.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable

from mathloop.integrations.certified import CertifiedEvaluator, Evaluation

FAILED_SCORE = 0.0  # what OpenEvolve itself gives a failed evaluation ({"error": 0.0}); below every certified score


def result(ev: Evaluation) -> Any:
    """Return the OpenEvolve `EvaluationResult` of an evaluation (metrics: combined_score; artifacts: the rest)."""
    try:
        from openevolve.evaluation_result import EvaluationResult
    except ImportError:
        raise ImportError("mathloop.integrations.openevolve needs OpenEvolve: pip install 'mathloop[evolve]'") from None
    if ev.valid:
        metrics = {"combined_score": float(ev.score), ev.bound: float(ev.value)}
    else:
        metrics = {"combined_score": FAILED_SCORE}
    artifacts = {"verdict": ev.verdict, "label": ev.label or "", "bound": ev.bound,
                 "value_exact": "" if ev.value is None else f"{ev.value.numerator}/{ev.value.denominator}",
                 "commit": ev.commit or "", "head": ev.head or "", "program_sha256": ev.program_sha256,
                 "feedback": ev.feedback()}
    if ev.stderr_tail:
        artifacts["stderr"] = ev.stderr_tail
    return EvaluationResult(metrics=metrics, artifacts=artifacts)


def evaluator(target: str, db: str, **options: Any) -> Callable[[str], Any]:
    """Return OpenEvolve's `evaluate(program_path)` for `target` and the store `db`.

    The CertifiedEvaluator (its checker child and sandbox) is built on the first call in each process: OpenEvolve
    evaluates in a pool of worker processes, each with its own. `options` go to CertifiedEvaluator (program_time, ...).
    """
    built: dict[int, CertifiedEvaluator] = {}
    lock = threading.Lock()

    def evaluate(program_path: str) -> Any:
        with lock:
            pid = os.getpid()
            if pid not in built:
                built.clear()  # a forked worker: the parent's checker child is not ours
                built[pid] = CertifiedEvaluator(target, db, system="openevolve", **options)
            ev = built[pid]
        return result(ev.evaluate_file(program_path))

    return evaluate
