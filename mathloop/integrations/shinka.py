"""ShinkaEvolve's evaluation script, answered by mathloop: `evaluate.py --program_path P --results_dir D`.

The task's `evaluate.py`::

    from mathloop.integrations.shinka import main
    if __name__ == "__main__":
        main(target="erdos-minimum-overlap", db="/path/to/store.db")

ShinkaEvolve starts the script per program and reads `D/metrics.json` (`combined_score`, `public`, `private`,
`text_feedback`) and `D/correct.json` (`{"correct": bool, "error": str | null}`); a missing or unreadable file means
`correct: false`, and incorrect programs are never its best and are not sampled as parents. So a certified program
writes `correct: true` and `combined_score` = 1/value (minimised) or value (maximised), > 0; a refused or failed one
`correct: false` with the reason and `combined_score: 0.0`. Both files are written here, after the check, replacing
whatever was in the directory (the program itself never sees it: it runs in the sandbox).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Sequence

from mathloop.outputs import atomic_write
from mathloop.integrations.certified import CertifiedEvaluator, Evaluation

FAILED_SCORE = 0.0


def files(ev: Evaluation) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (metrics.json, correct.json) of an evaluation."""
    public = {"verdict": ev.verdict, "label": ev.label, "commit": ev.commit, "head": ev.head,
              "program_sha256": ev.program_sha256}
    if ev.valid:
        public.update({ev.bound: float(ev.value), f"{ev.bound}_exact": f"{ev.value.numerator}/{ev.value.denominator}"})
    metrics = {"combined_score": float(ev.score) if ev.valid else FAILED_SCORE, "public": public,
               "private": {"reasons": list(ev.reasons), "stderr_tail": ev.stderr_tail}, "text_feedback": ev.feedback()}
    return metrics, {"correct": ev.valid, "error": None if ev.valid else ev.feedback()}


def _write(path: Path, value: Any) -> None:
    """Write JSON to `path` whole or not at all (a temporary file renamed over it)."""
    atomic_write(path, json.dumps(value, indent=2, allow_nan=False))


def main(argv: Sequence[str] | None = None, *, target: str, db: str, **options: Any) -> int:
    """Evaluate `--program_path` and write `--results_dir`/{metrics,correct}.json; return 0 (a verdict was written)."""
    parser = argparse.ArgumentParser(description=f"mathloop's exact evaluator for {target} (ShinkaEvolve)")
    parser.add_argument("--program_path", required=True)
    parser.add_argument("--results_dir", required=True)
    args, _ = parser.parse_known_args(argv)
    results = Path(args.results_dir)
    results.mkdir(parents=True, exist_ok=True)
    for name in ("metrics.json", "correct.json"):  # a crash below leaves none: ShinkaEvolve then reads `incorrect`
        (results / name).unlink(missing_ok=True)
    ev = CertifiedEvaluator(target, db, system="shinka", **options)
    try:
        verdict = ev.evaluate_file(args.program_path)
    finally:
        ev.close()
    metrics, correct = files(verdict)
    _write(results / "metrics.json", metrics)
    _write(results / "correct.json", correct)
    return 0
