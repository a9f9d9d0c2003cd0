"""`critical-line-zeros` with a real process pool, the real CLI, and (slow) all zeros up to 10^4."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from mathloop.targets import load_contract
from mathloop.targets import build_target
from mathloop.targets.critical_line_zeros.certificate import Prefix
from mathloop.targets.critical_line_zeros.counting import zeros_up_to
from mathloop.targets.critical_line_zeros.export import export_certificates
from mathloop.targets.critical_line_zeros.verify import verify_chunk
from tests.support.clz import V2_CONTRACT

ROOT = Path(__file__).resolve().parents[2]


def test_lehmer_pair_chunk_is_identical_with_one_or_two_workers():
    target = build_target(load_contract(V2_CONTRACT))  # a proposer of point lists (the shipped one proposes ranges)
    proposer = target.local_proposer(0)
    proposer.workers = 2
    # 6693 is a good Gram point; the chunk covers the Lehmer pair near t = 7005.06 / 7005.10.
    parallel = proposer.chunks_from(6693, 1)[0]
    proposer.workers = 1
    serial = proposer.chunks_from(6693, 1)[0]
    assert parallel == serial
    assert any(Fraction("7005.06") < Fraction(p) < Fraction("7005.11") for b in parallel["blocks"] for p in b["points"])
    cand = target.parse(parallel)
    prefix = Prefix(6693, 6000, (6693,), 0, None, 0)
    outs = []
    for workers in (1, 2):
        params = target.settings.check.__class__(**{**target.settings.check.__dict__, "workers": workers})
        outs.append(verify_chunk(cand, prefix, params))
    assert outs[0] == outs[1] and outs[0].reason is None


def _mathloop(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from mathloop.cli.app import main; main()", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # heavy: runs in .ci/run's second tier; the default tier stays < 3 min
def test_run_status_audit_export_and_recheck_through_the_cli(tmp_path):
    db = str(tmp_path / "z.db")
    r = _mathloop("run", "critical-line-zeros", "--db", db, "--budget", "2", "--samples", "2", cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    status = json.loads(_mathloop("status", "critical-line-zeros", "--db", db, "--json", cwd=ROOT).stdout)
    assert float(status["head"]["bounds"]["height"]) > 1400 and float(status["head"]["bounds"]["count"]) >= 1000
    assert _mathloop("audit", "critical-line-zeros", "--db", db, cwd=ROOT).returncode == 0
    # export with the target's pure function from the evidence chain, then re-verify one file via the CLI
    target = build_target(load_contract("critical-line-zeros"))
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository

    repo = Repository(make_engine(db, create=False))
    log = json.loads(_mathloop("log", "critical-line-zeros", "--db", db, "--json", cwd=ROOT).stdout)
    assert len(log) == 3
    evidences = _chain_evidence(repo, target)
    manifest = json.loads(export_certificates(evidences, tmp_path / "certs").read_text())
    last = tmp_path / "certs" / manifest["files"][-1]["file"]
    # alone, a file's parent_state is only a claim: the bounds are conditional, not certified
    r = _mathloop("check", "critical-line-zeros", "--candidate", str(last), "--json", cwd=ROOT)
    assert r.returncode == 1 and json.loads(r.stdout)["parent_confirmed"] is False
    # confirmed by the store that holds the chain ...
    r = _mathloop("check", "critical-line-zeros", "--candidate", str(last), "--db", db, "--json", cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["bounds"]["count"].startswith(str(status["head"]["state"]["count"]))
    # ... or by re-verifying the whole exported chain from the root
    r = _mathloop("check", "critical-line-zeros", "--candidate", str(tmp_path / "certs" / "manifest.json"), "--json",
                  cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["bounds"]["count"] == str(status["head"]["state"]["count"])


def _chain_evidence(repo, target):
    """Return the committed evidence JSON from root to head, artifacts inlined."""
    return [repo.candidate(c.candidate_id).evidence.to_json() for c in repo.commits(target.contract.sha256)]


def _prove_until(count: int, height: Fraction, samples: int = 2):
    """Return (final evidence, evidences in chain order) once count and height are certified, gating each chunk."""
    from mathloop.domain import Head, Scores
    from mathloop.order import compare
    from mathloop.propose.base import Context

    contract = load_contract(V2_CONTRACT)  # point lists: zeros_up_to reads the balls in the evidence
    target = build_target(contract)
    specs = {b.name: b for b in contract.bounds}
    ev = target.check(None, target.parse(contract.seed))
    chain, proposer, rnd = [ev], target.local_proposer(0), 0
    while not (ev.bounds.get("count", 0) >= count and ev.bounds.get("height", 0) >= height):
        head = Head(f"mem{rnd}", rnd, ev.state, ev.ranks, ev.bounds)
        ctx = Context(contract, head, tuple(k for k, r in ev.ranks.items() if r), (), frozenset(), rnd, samples)
        proposals = proposer.propose(ctx)
        assert proposals, "proposer exhausted before the goal"
        for p in proposals:
            new = target.check(ev.state, target.parse(p.payload))
            cmp = compare(Scores.of(ev), Scores.of(new), specs)
            assert cmp.passes_gate, f"chunk refused ({cmp.label.value}): {new.reasons()[:2]}"
            ev = new
            chain.append(ev)
        rnd += 1
    return ev, chain


@pytest.mark.slow
def test_all_zeros_up_to_ten_thousand_are_on_the_line():
    ev, chain = _prove_until(10142, Fraction(10**4))
    assert ev.bounds["count"] >= 10142 and ev.bounds["height"] >= 10**4
    chunks = [e.artifacts["chunk"] for e in chain]
    assert [zeros_up_to(Fraction(t), chunks) for t in (100, 1000, 10**4)] == [29, 649, 10142]
    assert ev.state["first_bad_gram"] == 126
