"""Figures for the README's Reliability table: tamperings found / tried, hostile files refused, racing writers.

Run: python tests/benchmarks/bench_integrity.py [--kill-figures FILE] (the kill figures come from
`MATHLOOP_RELIABILITY_OUT=FILE pytest -m slow tests/integration/test_kill.py`). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mathloop import targets  # noqa: E402

targets.REGISTRY["toy"] = "tests.support.toy_target:ToyTarget"

from mathloop.targets import load_contract  # noqa: E402
from mathloop.audit.report import audit_store  # noqa: E402
from mathloop.check.runner import InProcessRunner  # noqa: E402
from mathloop.store.checkpoint import take  # noqa: E402
from mathloop.store.engine import make_engine  # noqa: E402
from mathloop.store.repository import Repository  # noqa: E402
from tests.adversarial.store_fixture import build  # noqa: E402
from tests.adversarial.test_store_tampering import CASES  # noqa: E402
from tests.support.toy_target import TOY_CONTRACT  # noqa: E402

ROLLBACKS = {
    "deleted head commit": "PRAGMA foreign_keys=OFF; DELETE FROM commits WHERE seq = 2",
    "deleted newest memory rows of a killed session": "DELETE FROM candidates WHERE session_id = 2",
    "replaced head hash": "UPDATE commits SET hash = 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff' WHERE seq = 2",
    "rewritten memory tip": "UPDATE candidates SET row_hash = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' WHERE session_id = 2",
}


def tamperings(tmp: Path) -> dict:
    """Apply every catalogued edit to a fresh store; count the ones audit finds (and names correctly)."""
    contract_path = tmp / "toy.toml"
    contract_path.write_text(TOY_CONTRACT, encoding="utf-8")
    contract = load_contract(contract_path)
    found = named = 0
    for i, (name, (edit, table, column, _words)) in enumerate(CASES.items()):
        repo = Repository(make_engine(str(tmp / f"t{i}.db")))
        store = build(contract, repo)
        store.sql(edit)
        report = audit_store(contract, repo, InProcessRunner())
        found += bool(report.findings)
        named += bool(report.findings) and (report.findings[0].table, report.findings[0].field) == (table, column)
    rolled = 0
    for i, (name, edit) in enumerate(ROLLBACKS.items()):
        repo = Repository(make_engine(str(tmp / f"r{i}.db")))
        store = build(contract, repo)
        cp = take(repo, contract.sha256)
        store.sql(edit)
        rolled += bool(audit_store(contract, repo, None, checkpoint=cp).findings)
    return {"tamperings_tried": len(CASES), "tamperings_detected": found, "named_table_and_column": named,
            "rollbacks_tried": len(ROLLBACKS), "rollbacks_detected": rolled}


def writers(tmp: Path) -> dict:
    """Four racing `mathloop run` processes on SQLite and (if available) PostgreSQL."""
    from tests.integration.postgres import private_cluster, unavailable_reason
    from tests.integration.writers import race

    out = {}
    dbs = [("sqlite", str(tmp / "race.db"), None)]
    if unavailable_reason() is None:
        dbs.append(("postgresql", None, private_cluster))
    for name, db, cluster in dbs:
        d = tmp / name
        d.mkdir()
        t0 = time.monotonic()
        if cluster:
            with cluster() as url:
                r, commits = _race(race, d, url)
        else:
            r, commits = _race(race, d, db)
        out[name] = {"writers": 4, "candidates_each": 40, "commits": commits, "lost_races_regated": len(r.lost),
                     "exit_codes": r.codes, "processes_left": len(r.left), "seconds": round(time.monotonic() - t0, 1)}
    return out


def _race(race, d: Path, db: str):
    r = race(d, db, 4, 40)
    contract = load_contract(d / "toy.toml")
    repo = Repository(make_engine(db, create=False))
    assert audit_store(contract, repo, InProcessRunner()).findings == []
    return r, len(repo.commits(contract.sha256))


def adversarial_cases() -> dict:
    """Run this helper's tests/adversarial files (store, rollback, hostile files, processes); count and pass them."""
    files = ["tests/adversarial/test_store_tampering.py", "tests/adversarial/test_rollback.py",
             "tests/adversarial/test_hostile_files.py", "tests/adversarial/test_process_leaks.py"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider", *files],
                         cwd=ROOT, capture_output=True, text=True)
    summary = (run.stdout.strip().splitlines() or [""])[-1]
    return {"cases": summary, "exit": run.returncode}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kill-figures", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-integrity-") as d:
        tmp = Path(d)
        figures = {"tamper": tamperings(tmp), "writers": writers(tmp), "adversarial": adversarial_cases()}
    if args.kill_figures and args.kill_figures.exists():
        figures["kill"] = json.loads(args.kill_figures.read_text())
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
