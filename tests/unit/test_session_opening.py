"""SessionConfig refuses a bad field by name; open_session closes the pool, the Lean worker and the SIGTERM handler
and seals the session however the session ends."""

from __future__ import annotations

import signal
import threading

import pytest
from sqlmodel import Session as DB

from mathloop.check.executors import LocalPool
from mathloop.search.config import ConfigError, SessionConfig
from mathloop.search.loop import Observer
from mathloop.search.opening import open_session
from mathloop.store.models import SessionRow
from tests.support.procs import TAG_VAR, new_tag, tagged, wait_gone


def _config(contract, tmp_path, **extra) -> SessionConfig:
    return SessionConfig(contract_file=contract.path, db=str(tmp_path / "store.db"), **extra)


def _outcome(opened) -> str | None:
    with DB(opened.repo.engine) as s:
        row = s.get(SessionRow, opened.session_id)
        return row.outcome if row is not None else None


def _lean_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mathloop-lean" and t.is_alive()]


@pytest.mark.parametrize("fields, field, words", [
    ({"target": "toy", "budget": 0}, "budget", "must be >= 1, got 0"),
    ({"target": "toy", "recheck": 1.5}, "recheck", "must be <= 1.0, got 1.5"),
    ({"target": "toy", "time_limit": 0.0}, "time_limit", "must be >= 0.1, got 0.0"),
    ({"target": "toy", "bugdet": 3}, "bugdet", "unknown key"),
    ({"target": "toy", "start": "nowhere"}, "start", "unknown start 'nowhere' (head, published)"),
])
def test_a_refused_field_is_named_with_the_reason(fields, field, words):
    with pytest.raises(ConfigError) as e:
        SessionConfig(**fields)
    assert e.value.field == field and str(e.value).startswith(f"{field}: ") and words in e.value.reason


def test_a_config_without_a_target_or_a_contract_file_says_so():
    with pytest.raises(ConfigError, match="give a TARGET name or --contract FILE") as e:
        SessionConfig(db="x.db")
    assert e.value.plain and e.value.field is None


def test_a_config_is_frozen():
    config = SessionConfig(target="toy")
    with pytest.raises(ValueError):
        config.budget = 3  # type: ignore[misc]


def test_cli_run_refuses_an_unknown_start_in_one_usage_error_naming_the_option(tmp_path):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    db = tmp_path / "store.db"
    res = CliRunner().invoke(app, ["run", "levinson-conrey", "--db", str(db), "--start", "nowhere", "--no-progress"])
    assert res.exit_code == 2 and "Invalid value for --start: " in res.output and "unknown start 'nowhere' (head, published)" in res.output
    assert not db.exists()  # bad input fails before the store is touched


@pytest.fixture
def leak_tag(monkeypatch) -> str:
    tag = new_tag()
    monkeypatch.setenv(TAG_VAR, tag)  # every checker child and Lean process inherits it
    return tag


def test_an_exception_in_the_session_closes_the_pool_and_the_lean_worker_and_seals_it(toy_contract, tmp_path,
                                                                                       leak_tag):
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(RuntimeError, match="boom"):
        with open_session(_config(toy_contract, tmp_path, workers=2, lean=True)) as opened:
            pool = opened.checker.executor
            assert isinstance(pool, LocalPool) and opened.worker is not None and _lean_threads()
            assert signal.getsignal(signal.SIGTERM) is not before  # SIGTERM ends the session like Ctrl-C
            assert opened.checker.warm() == 2 and len(tagged(leak_tag)) >= 2  # every pool child is up
            raise RuntimeError("boom")
    assert pool.closed and wait_gone(leak_tag) == []
    assert _lean_threads() == [] and opened.lean_left == 0
    assert signal.getsignal(signal.SIGTERM) is before
    assert _outcome(opened) == "failed: RuntimeError: boom"


def test_ctrl_c_during_the_run_seals_it_interrupted_and_stops_the_checkers_and_lean(toy_contract, tmp_path, leak_tag):
    class CtrlC(Observer):
        def candidate(self, label, head, summary):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        with open_session(_config(toy_contract, tmp_path, workers=2, lean=True, budget=3)) as opened:
            pool = opened.checker.executor
            opened.run(CtrlC())
    assert pool.closed and opened.checker.executor is None and wait_gone(leak_tag) == []
    assert _lean_threads() == [] and opened.lean_left is not None
    assert _outcome(opened) == "interrupted"
    assert len(opened.repo.commits(toy_contract.sha256)) >= 1  # the root and the first candidate stay recorded


def test_a_session_run_to_its_end_is_sealed_with_its_outcome(toy_contract, tmp_path, leak_tag):
    with open_session(_config(toy_contract, tmp_path, lean=False, budget=2)) as opened:
        summary = opened.run()
        assert wait_gone(leak_tag) == []  # the session's checker child stops when the run ends
    assert summary.outcome == "budget spent" and _outcome(opened) == "budget spent"


def test_a_session_opened_and_never_run_is_sealed_all_the_same(toy_contract, tmp_path):
    with open_session(_config(toy_contract, tmp_path, lean=False)) as opened:
        pass
    assert _outcome(opened) == "closed before it ran"


def test_the_time_limit_counts_from_since(toy_contract, tmp_path):
    import time

    since = time.monotonic() - 100.0
    with open_session(_config(toy_contract, tmp_path, lean=False, time_limit=1000.0), since=since) as opened:
        assert opened.deadline == pytest.approx(since + 1000.0) and opened.limits.deadline == opened.deadline

