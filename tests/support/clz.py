"""A small critical-line-zeros contract (cap g_400, one worker) for fast tests."""

from __future__ import annotations

from pathlib import Path

from mathloop.targets import load_contract
from mathloop.targets import build_target

ROOT = Path(__file__).resolve().parents[2]
# Version 2 of the shipped contract (point lists of 512 Gram intervals, the balls in the evidence): the lineage of
# the stores in tests/adversarial/data, and the base of the small contracts the list-candidate tests use.
V2_CONTRACT = ROOT / "tests" / "adversarial" / "data" / "critical-line-zeros-v2.toml"


def small_contract(tmp: Path, **edits: str) -> Path:
    """Write contract version 2 (point lists) with a low cap and small chunks into `tmp`; return its path."""
    text = V2_CONTRACT.read_text()
    text = text.replace("max_gram_index = 21150000", "max_gram_index = 400")
    text = text.replace("check_workers = 0", "check_workers = 1")
    text = text.replace("chunk_gram_intervals = 512", "chunk_gram_intervals = 320")
    for old, new in edits.items():
        text = text.replace(old, new)
    p = tmp / "clz-small.toml"
    p.write_text(text)
    return p


def small_env(tmp: Path):
    """Return (target, root evidence, first proposed chunk, its evidence, contract path) on the small contract."""
    path = small_contract(tmp)
    target = build_target(load_contract(path))
    root = target.check(None, target.parse(target.contract.seed))
    proposer = target.local_proposer(0)
    proposer.workers = 1
    chunk = proposer.chunks_from(-1, 1)[0]
    first = target.check(root.state, target.parse(chunk))
    return target, root, chunk, first, path
