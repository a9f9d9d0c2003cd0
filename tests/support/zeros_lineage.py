"""A long critical-line-zeros lineage made fast: the real loop, checker and store, in-process checks."""

from __future__ import annotations

from pathlib import Path

from mathloop.targets import load_contract
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target
from tests.support.clz import small_contract


def zeros_lineage(tmp: Path, commits: int = 300, chunk: int = 10) -> tuple[Path, str]:
    """Write a zeros contract whose local proposer adds `chunk` Gram intervals per commit; run it to
    `commits` commits after the root; return (contract path, db path). Every commit passed the real gate."""
    cap = (commits + 20) * chunk  # room to spare: a chunk ends at a good Gram point, so some are longer
    path = small_contract(tmp, **{"max_gram_index = 400": f"max_gram_index = {cap}",
                                  "chunk_gram_intervals = 320": f"chunk_gram_intervals = {chunk}"})
    contract = load_contract(path)
    db = tmp / "zeros.db"
    repo = Repository(make_engine(str(db)))
    proposer = build_target(contract).local_proposer(seed=0)
    if hasattr(proposer, "workers"):
        proposer.workers = 1
    Session(contract, repo, InProcessRunner()).run(proposer, SessionLimits(budget=commits))
    return path, str(db)
