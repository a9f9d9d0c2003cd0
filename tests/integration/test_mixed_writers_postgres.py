"""Five real `mathloop run` processes on one PostgreSQL store, local and model proposers mixed (issue 12 item 3).

Three `--proposer local` sessions (seeds 0, 1, 2) and two `--proposer openai` sessions, each talking real
HTTP to its own scripted chat-completions server, race on `levinson-conrey`: every session improves κ
from the same root within a few seconds, so commits collide on the same parent. The store alone must
show one linear chain, a head that only moved forward, every lost race re-gated against the newer head
(its label is the gate's answer against that head), every proposal stored with a label, and audit ok.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, replace

import pytest
from sqlalchemy import text

from mathloop.targets import load_contract
from mathloop.check.gate import decide
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import CandidateRecord, Repository
from mathloop.targets import build_target
from tests.integration.cli import ROOT
from tests.integration.postgres import private_cluster, unavailable_reason
from tests.support.procs import TAG_VAR, kill_tagged, new_tag, wait_gone
from tests.unit.test_openai_proposer import FakeChatServer, completion, good

TARGET = "levinson-conrey"
LOCAL_SEEDS = (0, 1, 2)
MODELS = ("scripted-a", "scripted-b")
LABELS = ("correct", "progress", "no_progress", "incomparable", "regression", "malformed", "error")


@dataclass(frozen=True)
class Regate:
    """A lost race as the store shows it: the head the session held, the newer head it was gated against."""

    row: CandidateRecord
    held: str
    against: str


def improving_payloads(tmp_path) -> list[dict]:
    """Return the payloads a reference local session commits after the root (a strictly improving sequence)."""
    contract = load_contract(TARGET)
    repo = Repository(make_engine(str(tmp_path / "ref.db"), create=True))
    Session(contract, repo, InProcessRunner()).run(build_target(contract).local_proposer(0), SessionLimits(budget=12))
    return [c.payload for c in repo.candidates(contract.sha256) if c.commit_hash and c.proposer != "seed"]


def regates(rows: list[CandidateRecord]) -> list[Regate]:
    """Return the rows of one session (chain order) gated against a head other than the one it held.

    A session's head changes only by its own commit or, when a commit loses the race on its parent
    (HeadMoved), by reading the newer head and re-gating there (search/loop.py): so a row whose gated
    head (`head_commit`, the parent for a commit) differs from the session's held head is a lost race.
    """
    out, held = [], None
    for r in rows:
        if held is not None and r.head_commit != held:
            out.append(Regate(r, held, r.head_commit))
        held = r.commit_hash or r.head_commit
    return out


def summary_count(stdout: str) -> int:
    """Return the number of candidates the session's own summary table counts (its labels, summed)."""
    return sum(int(n) for label, n in re.findall(r"│ (\w+)(?: \(this session\))?\s+│ (\d+)\s+│", stdout)
               if label in LABELS)


@pytest.mark.slow  # five sessions and a private cluster: .ci/run's second tier
@pytest.mark.postgres_live
@pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")
def test_local_and_model_writers_on_postgresql_keep_one_chain_and_re_gate_every_lost_race(tmp_path):
    contract = load_contract(TARGET)
    steps = improving_payloads(tmp_path)
    assert len(steps) >= 5, steps
    tag = new_tag()
    env = {**os.environ, TAG_VAR: tag, "COLUMNS": "200", "NO_COLOR": "1", "OPENAI_API_KEY": "sk-mixed-writers"}
    # each model writer: one malformed reply, then the improving sequence (b from the second step on), paced
    # like a slow model so that the model sessions still propose while the local ones commit
    scripts = {MODELS[0]: [completion("no JSON here")] + [replace(good(p), delay=1.0) for p in steps],
               MODELS[1]: [completion("no JSON here")] + [replace(good(p), delay=1.5) for p in steps[1:]]}
    servers = {m: FakeChatServer(s, default=completion("script exhausted")) for m, s in scripts.items()}
    heads: list[tuple[int, str]] = []
    stop = threading.Event()
    with private_cluster() as url:
        for s in servers.values():
            s.__enter__()
        procs: dict[str, subprocess.Popen] = {}
        try:
            base = [sys.executable, "-m", "mathloop", "run", TARGET, "--db", url, "--no-progress", "--no-lean"]
            for seed in LOCAL_SEEDS:
                procs[f"local:{seed}"] = subprocess.Popen(
                    base + ["--seed", str(seed), "--budget", "12", "--samples", "2"], cwd=ROOT, env=env,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for m, s in servers.items():
                procs[m] = subprocess.Popen(
                    base + ["--proposer", "openai", "--model", m, "--base-url", s.url, "--samples", "1",
                            "--budget", str(len(scripts[m]))], cwd=ROOT, env=env,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

            def watch() -> None:  # the head as any reader sees it while the writers race
                repo = None
                while not stop.is_set():
                    try:
                        repo = repo or Repository(make_engine(url, create=False))
                        head = repo.head(contract.sha256)
                        if head and (not heads or heads[-1][1] != head.hash):
                            heads.append((head.seq, head.hash))
                    except Exception:  # the tables may not exist yet
                        pass
                    time.sleep(0.02)

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            outputs = {name: p.communicate(timeout=600)[0] for name, p in procs.items()}
            stop.set()
            watcher.join(5)
        finally:
            stop.set()
            for s in servers.values():
                s.__exit__(None, None, None)
            kill_tagged(tag)
        assert wait_gone(tag, 10) == []
        codes = {name: p.returncode for name, p in procs.items()}
        assert set(codes.values()) == {0}, outputs

        repo = Repository(make_engine(url, create=False))
        commits = repo.commits(contract.sha256)
        by_hash = {c.hash: c for c in commits}
        # one linear chain: seq 0..n-1, each commit on the one before
        assert [c.seq for c in commits] == list(range(len(commits)))
        assert all(c.parent == p.hash for p, c in zip(commits, commits[1:]))
        # the head only moved forward: every head a reader saw is in the chain, in increasing seq
        assert heads and all(h in by_hash and by_hash[h].seq == seq for seq, h in heads)
        assert [seq for seq, _ in heads] == sorted({seq for seq, _ in heads})
        # no candidate lost: each session stored exactly what it processed, each row with a label
        rows = list(repo.candidates(contract.sha256))
        sessions = {}
        for r in rows:
            sessions.setdefault(r.session_id, []).append(r)
        assert all(r.label in LABELS for r in rows)
        proposers = sorted(rs[0].proposer if rs[0].proposer != "seed" else rs[1].proposer for rs in sessions.values())
        assert proposers == sorted(["local"] * len(LOCAL_SEEDS) + [f"openai:{m}" for m in MODELS]), proposers
        with repo.engine.begin() as conn:
            owners = {(proposer, seed): sid for sid, proposer, seed in
                      conn.execute(text("SELECT id, proposer, seed FROM sessions")).all()}
        for name, out in outputs.items():
            key = ("local", int(name.split(":")[1])) if name.startswith("local:") else (f"openai:{name}", 0)
            mine = [r for r in sessions[owners[key]] if r.proposer != "seed"]
            assert len(mine) == summary_count(out) > 0, (name, len(mine), out)
        # the model sessions: every HTTP reply is one stored row (malformed included)
        for m, s in servers.items():
            mine = [r for r in rows if r.proposer == f"openai:{m}"]
            assert len(mine) == len(s.requests) == len(scripts[m]), (m, len(mine), len(s.requests))
            assert sum(r.label == "malformed" for r in mine) >= 1
        assert sum(summary_count(o) for o in outputs.values()) + 1 == len(rows)  # + the root
        # each session counts only its own commits (a lost race moves its head too, to the winner's)
        made = [int(re.search(r"│ commits\s+│ (\d+)", o).group(1)) for o in outputs.values()]
        assert sum(made) + 1 == len(commits), made
        # every lost race was re-gated against the newer head: the label is the gate's answer there,
        # and against the head the session held it would have committed (that commit lost the race)
        lost = [g for rs in sessions.values() for g in regates(sorted(rs, key=lambda r: r.id))]
        assert lost, "no commit raced: the test would show nothing"
        for g in lost:
            held, against = by_hash[g.held], by_hash[g.against]
            assert against.seq > held.seq, (g.held, g.against)
            assert g.row.evidence is not None
            assert decide(contract, held.scores, g.row.evidence).commits
            assert g.row.label == decide(contract, against.scores, g.row.evidence).label.value
        model_lost = [g for g in lost if g.row.proposer.startswith("openai:")]
        audit = subprocess.run([sys.executable, "-m", "mathloop", "audit", TARGET, "--db", url], cwd=ROOT,
                               env=env, capture_output=True, text=True, timeout=600)
        assert audit.returncode == 0, audit.stdout + audit.stderr
    print(f"postgresql, {len(procs)} writers: {len(commits)} commits, {len(rows)} candidates, {len(lost)} lost races "
          f"re-gated ({len(model_lost)} by model sessions; {sum(g.row.commit_hash is not None for g in lost)} "
          f"committed on the newer head)")

