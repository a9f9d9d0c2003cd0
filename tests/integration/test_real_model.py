"""Real-model tier: a real 135M model behind a real OpenAI-compatible server drives `mathloop run`.

The model mostly proposes nonsense; the point is that the store stays exactly as trustworthy:
every candidate recorded with a label or a malformed reason, the head moved only through the
gate, the API key nowhere, and the server stopped afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from tests.integration.model_server import missing_requirements, port_open, serve_model

pytestmark = pytest.mark.model

BUDGET = 20
SECRET = "sk-mathloop-real-model-tier-secret-0123456789"
LABELS = {"correct", "progress", "no_progress", "regression", "incomparable", "malformed", "error"}
META_KEYS = {"model", "latency_s", "prompt_tokens", "completion_tokens", "finish_reason", "raw_response",
             "response_format_mode", "attempts"}


def mathloop(*args: str, env: dict[str, str], timeout: float = 1700) -> subprocess.CompletedProcess:
    """Run the `mathloop` CLI of this interpreter and return the completed process."""
    return subprocess.run([sys.executable, "-c", "from mathloop.cli.app import main; main()", *args],
                          capture_output=True, text=True, env=env, timeout=timeout)


def kappa(commit: dict) -> Fraction:
    """Return a commit's certified kappa, exact when the log gives it."""
    return Fraction((commit.get("bounds_exact") or commit["bounds"])["kappa"])


@pytest.fixture()
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, OPENAI_API_KEY=SECRET, COLUMNS="200")
    env.pop("OPENAI_BASE_URL", None)
    env.pop("MATHLOOP_DB", None)
    return env


@pytest.mark.timeout(1800)  # a 135M model on 2 shared cores: minutes, not seconds
def test_a_real_model_session_records_every_candidate_and_commits_only_through_the_gate(
        tmp_path: Path, cli_env: dict[str, str]) -> None:
    why = missing_requirements()
    if why:
        pytest.skip(why)
    db = tmp_path / "store.sqlite"
    with serve_model(log_dir=tmp_path) as server:
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        run = mathloop("run", "levinson-conrey", "--proposer", "openai", "--model", server.model,
                       "--base-url", server.base_url, "--budget", str(BUDGET), "--samples", "4", "--concurrency", "1",
                       "--max-tokens", "256", "--request-timeout", "120", "--db", str(db), "--seed", "0",
                       "--no-progress", env=cli_env)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert server.process.poll() is not None and not port_open(port), "the model server is still running"

    records_file = tmp_path / "records.jsonl"
    exported = mathloop("export", "levinson-conrey", "--records", str(records_file), "--db", str(db), env=cli_env)
    assert exported.returncode == 0, exported.stderr
    records = [json.loads(line) for line in records_file.read_text().splitlines()]
    model_records = [r for r in records if r["proposer"] == f"openai:{server.model}"]
    assert len(model_records) == BUDGET, (run.stdout[-2000:], [r["proposer"] for r in records])
    for r in model_records:
        assert r["label"] in LABELS
        assert META_KEYS <= set(r["meta"]), r["meta"].keys()
        if r["label"] not in ("progress", "correct"):
            assert r["reasons"], r  # every refusal says why
        if r["label"] == "malformed":
            assert all(isinstance(x, str) and x for x in r["reasons"])

    log = mathloop("log", "levinson-conrey", "--db", str(db), "--json", env=cli_env)
    assert log.returncode == 0, log.stderr
    commits = json.loads(log.stdout)
    by_hash = {c["commit"]: c for c in commits}
    for c in commits:
        if c["parent"] is not None:
            assert kappa(c) > kappa(by_hash[c["parent"]]), (c, by_hash[c["parent"]])
    committed = {r["commit"] for r in records if r.get("commit")}
    assert set(by_hash) == committed  # every commit is a recorded candidate that passed the gate

    status = mathloop("status", "levinson-conrey", "--db", str(db), "--json", env=cli_env)
    head = json.loads(status.stdout)["head"]
    assert head["commit"] in by_hash and sum(json.loads(status.stdout)["labels"].values()) == len(records)
    assert mathloop("audit", "levinson-conrey", "--db", str(db), env=cli_env).returncode == 0

    stored = b"".join(p.read_bytes() for p in tmp_path.glob("store.sqlite*"))  # with the WAL, if any
    everything = stored + records_file.read_bytes() + (run.stdout + run.stderr + log.stdout).encode()
    assert SECRET.encode() not in everything
