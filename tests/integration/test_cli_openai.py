"""`mathloop run --proposer openai|openai+local` end to end against a scripted chat-completions server."""

import json

import pytest

from tests.integration.cli import invoke, mathloop_json
from tests.unit.test_openai_proposer import FakeChatServer, Reply, completion, good

BETTER = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}  # a real improvement on the seed at θ = 4/7 − 10⁻⁹


@pytest.mark.slow  # a whole CLI session against a real HTTP model server (~6 s)
def test_model_session_records_every_reply_and_commits_only_through_the_gate(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-cli-secret-123")
    db = str(tmp_path / "m.db")
    script = [good(BETTER), completion("not json at all"), good({"P": ["1", "1"], "Q": ["1", "-1"], "R": "1"}),
              completion('{"P": ["0", "1"], "Q"', finish_reason="length"), Reply({"error": "busy"}, status=429,
                                                                             headers={"retry-after": "0"}), good(BETTER)]
    with FakeChatServer(script, default=good({"P": ["0", "1"], "Q": ["1", "-1", "1"], "R": "1"})) as server:
        res = invoke("run", "levinson-conrey", "--db", db, "--proposer", "openai", "--model", "scripted",
                     "--base-url", server.url, "--budget", "6", "--samples", "1", "--no-progress", "--no-lean")
    assert res.exit_code == 0, res.stdout + str(res.exception)
    status = mathloop_json("status", "levinson-conrey", "--db", db)
    assert status["labels"]["malformed"] == 2 and status["labels"]["regression"] >= 1
    log = mathloop_json("log", "levinson-conrey", "--db", db)
    assert len(log) == 2 and log[1]["parent"] == log[0]["commit"]  # the one improvement, once
    out = tmp_path / "r.jsonl"
    assert invoke("export", "levinson-conrey", "--db", db, "--records", str(out)).exit_code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    model = [r for r in records if r["proposer"].startswith("openai:")]
    assert len(model) == 6 and all(r["meta"].get("model") == "scripted" for r in model)
    assert any("truncated" in " ".join(r["reasons"]) for r in model)
    assert "sk-cli-secret-123" not in out.read_text() and "sk-cli-secret-123" not in res.stdout


def test_bad_base_url_is_a_clear_option_error(tmp_path):
    res = invoke("run", "levinson-conrey", "--db", str(tmp_path / "x.db"), "--proposer", "openai", "--model", "m",
                 "--base-url", "ftp://nowhere", "--budget", "1")
    assert res.exit_code == 2 and "base_url" in res.stdout + res.stderr


def test_a_key_in_the_base_url_is_refused_before_anything_is_stored(tmp_path):
    db = tmp_path / "x.db"
    res = invoke("run", "levinson-conrey", "--db", str(db), "--proposer", "openai", "--model", "m",
                 "--base-url", "http://me:sk-url-secret-456@127.0.0.1:9/v1", "--budget", "1")
    assert res.exit_code == 2 and "credentials in the URL are refused" in res.stdout + res.stderr
    assert "sk-url-secret-456" not in res.stdout + res.stderr
    assert not db.exists() or b"sk-url-secret-456" not in db.read_bytes()


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_openai_plus_local_polishes_the_models_structure(tmp_path):
    db = str(tmp_path / "p.db")
    with FakeChatServer([], default=good({"P": ["0", "1", "0"], "Q": ["1", "-1"], "R": "1"})) as server:
        res = invoke("run", "levinson-conrey", "--db", db, "--proposer", "openai+local", "--model", "scripted",
                     "--base-url", server.url, "--budget", "2", "--samples", "1", "--no-progress", "--no-lean")
    assert res.exit_code == 0, res.stdout + str(res.exception)
    log = mathloop_json("log", "levinson-conrey", "--db", db)
    assert len(log) >= 2  # the polished proposal beats the seed
