"""A replay file cannot spoof credit: what a line claims about who wrote it is kept apart and never credited.

A replay line may carry `meta` (e.g. copied from a model session's records). Everything in it is the file's word:
stored under `untrusted_line_meta`, never read by the dataset, `bench`, the web view or the log. A replayed
candidate is credited to the replay file (its name and sha256). Replayed payloads are respelled canonically, like
a model's replies through the target's form, so a respelling of a stored candidate is recorded as the repeat it is.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction

import pytest

from mathloop.bench.metrics import run_row
from mathloop.propose.origin import REPLAY, credit
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract
from mathloop.web.pages import candidate_page
from tests.integration.cli import invoke

BETTER = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}
SPOOF = {"model": "gpt-9-spoof", "origin": {"model": "ab" * 32, "polished_by": None, "stored": "cd" * 32},
         "raw_response": "I, gpt-9-spoof, wrote this", "prompt_tokens": 10, "completion_tokens": 10,
         "replay": {"file": "model-session.jsonl", "sha256": "00" * 32}, "repeat_of": "ee" * 32}


def _session(tmp_path, lines: list) -> tuple[Repository, str, str]:
    replay = tmp_path / "claims.jsonl"
    replay.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    db = str(tmp_path / "r.db")
    res = invoke("run", "levinson-conrey", "--db", db, "--proposer", f"replay:{replay}", "--no-progress", "--no-lean")
    assert res.exit_code == 0, res.output
    return Repository(make_engine(db, create=False)), db, hashlib.sha256(replay.read_bytes()).hexdigest()


def test_a_replay_line_claiming_a_model_is_credited_to_the_replay_file(tmp_path):
    repo, db, sha = _session(tmp_path, [{"payload": BETTER, "meta": SPOOF}])
    contract = load_contract("levinson-conrey")
    [c] = [c for c in repo.candidates(contract.sha256) if c.proposer != "seed"]
    assert c.label == "progress" and c.commit_hash is not None
    assert "model" not in c.meta and "origin" not in c.meta and "raw_response" not in c.meta
    assert c.meta["replay"] == {"file": "claims.jsonl", "sha256": sha, "line": 1}
    assert c.meta["untrusted_line_meta"] == SPOOF  # kept, under a name that says what it is
    assert credit(c.meta, c.proposer) == REPLAY
    # bench: the run's credit classes
    row = run_row(proposer={"name": "r", "proposer": "replay"}, contract=contract, seed=0,
                  records=[c], head_bounds={"kappa": Fraction(1, 2)}, commits=1, seconds=1.0, outcome="done")
    assert row["by_origin"] == {REPLAY: {"candidates": 1, "commits": 1}} and row["tokens_per_candidate"] is None
    # export --records: the credit, and the claims only under their untrusted name
    out = tmp_path / "records.jsonl"
    assert invoke("export", "levinson-conrey", "--db", db, "--records", str(out)).exit_code == 0
    [rec] = [json.loads(x) for x in out.read_text().splitlines() if json.loads(x)["proposer"] != "seed"]
    assert rec["origin"] == REPLAY and "model" not in rec["meta"] and rec["meta"]["replay"]["sha256"] == sha
    # the web view says who is credited, by the file's name and sha256
    page = candidate_page(c, contract.name, contract.sha256)
    assert f"credited to <b>replay claims.jsonl</b> (sha256 <code>{sha[:16]}" in page


def test_a_dataset_never_credits_a_replayed_candidate_to_a_model(tmp_path):
    pytest.importorskip("pyarrow")
    from mathloop.export.dataset import rows

    repo, db, sha = _session(tmp_path, [{"payload": BETTER, "meta": SPOOF}])
    [row] = [r for r in rows(load_contract("levinson-conrey"), repo) if r["proposer"] != "seed"]
    assert row["origin"] == REPLAY and row["model"] is None
    assert row["completion"] == json.dumps(BETTER, separators=(",", ":"), sort_keys=True)  # not the claimed reply


def test_a_respelled_replay_line_is_a_repeat_and_not_checked_again(tmp_path):
    respelled = {"P": ["0", "1/1"], "Q": ["1", "-1"], "R": "12/10"}
    seed_again = {"P": ["0", "1.0"], "Q": ["1", "-1"], "R": "1.3"}  # the contract spells it "13/10"
    repo, db, _ = _session(tmp_path, [BETTER, respelled, seed_again])
    cands = [c for c in repo.candidates(load_contract("levinson-conrey").sha256) if c.proposer != "seed"]
    assert [c.label for c in cands] == ["progress", "no_progress", "no_progress"]
    assert [c.evidence is None for c in cands] == [False, True, True]  # recorded, never sent to a checker
    assert all("repeat_of" in c.meta for c in cands[1:])
    assert cands[1].payload == BETTER and cands[1].meta["replay"]["as_written"] == respelled
    assert cands[2].payload == {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}


def test_old_replay_records_with_a_claimed_model_are_still_credited_to_the_replay():
    assert credit({"model": "gpt", "origin": {"polished_by": None}}, "replay:old.jsonl") == REPLAY
    assert credit({"model": "gpt", "origin": {"polished_by": None}}, "openai:gpt") == "model"
