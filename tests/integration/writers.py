"""Run several real `mathloop run` processes on one store at once and watch the head while they race."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.support.procs import TAG_VAR, new_tag, wait_gone
from tests.support.toy_target import TOY_CONTRACT

ROOT = Path(__file__).resolve().parents[2]
TOY_CLI = ROOT / "tests" / "support" / "toy_cli.py"


@dataclass
class Race:
    """What the writers did: exit codes, the heads seen while they ran, lost races, processes left."""

    codes: list[int]
    heads: list[tuple[int, str]] = field(default_factory=list)
    lost: list[tuple[str, str]] = field(default_factory=list)
    left: list = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


def payloads(writer: int, writers: int, n: int) -> list[dict]:
    """Return writer k's ascending candidates x = (writers*i + k + 1) / (writers*n): interleaved, racing."""
    d = writers * n
    return [{"x": f"{writers * i + writer + 1}/{d}"} for i in range(n)]


def race(tmp: Path, db: str, writers: int = 4, n: int = 40) -> Race:
    """Start `writers` toy sessions on `db` at once (each replaying its own candidates); return the race."""
    contract = tmp / "toy.toml"
    contract.write_text(TOY_CONTRACT, encoding="utf-8")
    tag, log = new_tag(), tmp / "races.log"
    env = {**os.environ, TAG_VAR: tag, "MATHLOOP_RACE_LOG": str(log), "COLUMNS": "200", "NO_COLOR": "1"}
    procs = []
    for k in range(writers):
        replay = tmp / f"w{k}.jsonl"
        replay.write_text("".join(json.dumps(p) + "\n" for p in payloads(k, writers, n)), encoding="utf-8")
        procs.append(subprocess.Popen([sys.executable, str(TOY_CLI), "run", str(contract), "--db", db, "--proposer",
                                       f"replay:{replay}", "--budget", str(n), "--samples", "1", "--no-progress",
                                       "--no-lean"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    result = Race([])
    stop = threading.Event()

    def watch() -> None:  # the head as any reader sees it, while the writers race
        repo = None
        while not stop.is_set():
            try:
                repo = repo or Repository(make_engine(db, create=False))
                from mathloop.targets import load_contract

                head = repo.head(load_contract(contract).sha256)
                if head and (not result.heads or result.heads[-1][1] != head.hash):
                    result.heads.append((head.seq, head.hash))
            except Exception:  # the store may not exist yet
                pass
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    for p in procs:
        out, _ = p.communicate(timeout=600)
        result.codes.append(p.returncode)
        result.outputs.append(out)
    stop.set()
    watcher.join(5)
    result.left = wait_gone(tag, 10)
    if log.exists():
        result.lost = [tuple(line.split()) for line in log.read_text().splitlines() if line.strip()]
    return result
