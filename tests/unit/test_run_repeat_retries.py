"""`run --repeat-retries N`: how many extra requests a round may make when replies repeat a stored candidate."""

import json

import pytest
from typer.testing import CliRunner

from mathloop.cli.app import app
from tests.unit.test_openai_proposer import FakeChatServer, good

SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}  # levinson-conrey's seed: every reply repeats the root


def run(tmp_path, url: str, *extra: str):
    return CliRunner().invoke(app, ["run", "levinson-conrey", "--proposer", "openai", "--model", "fake",
                                    "--base-url", url, "--budget", "1", "--samples", "1", "--concurrency", "1",
                                    "--no-lean", "--no-progress", "--db", str(tmp_path / "m.db"), *extra])


@pytest.mark.parametrize("retries, requests", [("0", 1), ("3", 4)])
def test_run_asks_again_after_a_repeat_at_most_repeat_retries_times(tmp_path, monkeypatch, retries, requests):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeChatServer([], default=good(SEED)) as srv:
        result = run(tmp_path, srv.url, "--repeat-retries", retries)
    assert result.exit_code == 0, result.output
    assert len(srv.requests) == requests  # one request of the round, then one per allowed retry (all repeats)
    assert "repeats (in no_progress)" in result.output


def test_a_negative_repeat_budget_is_refused_before_anything_is_written(tmp_path):
    result = run(tmp_path, "http://127.0.0.1:9/v1", "--repeat-retries", "-1")
    assert result.exit_code == 2 and "--repeat-retries" in result.output
    assert not (tmp_path / "m.db").exists()


def test_the_repeat_budget_is_documented_with_the_other_model_options():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text()
    assert "--repeat-retries" in docs
    assert json.dumps("--repeat-retries")[1:-1] in CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output


@pytest.mark.slow  # two CLI sessions, ~1.2 s
def test_run_form_offers_a_named_form_and_refuses_an_unknown_one(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeChatServer([], default=good({"dS": ["-0.2"], "dT": [], "dR": "0"})) as srv:
        result = run(tmp_path, srv.url, "--form", "edits")
    assert result.exit_code == 0, result.output
    assert '"dS"' in json.dumps(srv.requests[0]["body"]["response_format"])  # the edit form's schema was sent
    monkeypatch.setenv("COLUMNS", "400")  # one line per message in the error box
    result = run(tmp_path, "http://127.0.0.1:9/v1", "--form", "steps")
    assert result.exit_code == 2 and "offers no form 'steps'" in result.output and "moves, edits, absolute" in result.output
    assert not (tmp_path / "m.db").exists() or "steps" not in (tmp_path / "m.db").read_bytes().decode("latin-1")
