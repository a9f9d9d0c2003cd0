"""The user's path through the CLI on the real Levinson–Conrey target: run, status, log, check, export, audit."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from decimal import Decimal

import pytest

from tests.integration.cli import ROOT, invoke, mathloop, mathloop_json
from tests.support.contracts import shipped

# Real sessions through the CLI (~60 s): in .ci/run's second tier; the default tier stays < 3 min.
pytestmark = pytest.mark.slow

SEED = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("lc") / "lc.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "12", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return db


def write(tmp_path, payload, name="c.json"):
    p = tmp_path / name
    p.write_text(payload if isinstance(payload, str) else json.dumps(payload))
    return str(p)


def test_run_commits_only_strict_improvements_and_status_reports_the_head(store):
    log = mathloop_json("log", "levinson-conrey", "--db", store)
    kappas = [Decimal(c["bounds"]["kappa"]) for c in log]
    assert kappas[0] == Decimal("0.386839251075")  # the seed at θ = 4/7 − 10⁻⁹
    assert all(b >= a + Decimal("1e-9") for a, b in zip(kappas, kappas[1:]))
    assert [c["parent"] for c in log[1:]] == [c["commit"] for c in log[:-1]]
    status = mathloop_json("status", "levinson-conrey", "--db", store)
    assert status["head"]["commit"] == log[-1]["commit"]
    assert status["head"]["bounds"]["kappa"] == log[-1]["bounds"]["kappa"]
    assert sum(status["labels"].values()) == 12 + 1  # the budget plus the seed
    assert {h["id"] for h in status["hypotheses"]} >= {"conrey-mean-value"}


def test_second_run_resumes_from_the_head(store):
    before = mathloop_json("status", "levinson-conrey", "--db", store)["head"]
    proc = mathloop("run", "levinson-conrey", "--db", store, "--budget", "3", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    log = mathloop_json("log", "levinson-conrey", "--db", store)
    assert log[0]["parent"] is None and before["commit"] in [c["commit"] for c in log]
    assert Decimal(log[-1]["bounds"]["kappa"]) >= Decimal(before["bounds"]["kappa"])


def test_check_reproduces_the_reference_values(tmp_path):
    out = mathloop_json("check", "levinson-conrey", "--candidate", write(tmp_path, SEED))
    assert out["ok"] and out["bounds"]["kappa"] == "0.386839251075"
    assert out["evidence"]["artifacts"]["highprec"]["kappa"].startswith("0.3868392510752201381")
    res = invoke("check", "levinson", "--candidate", write(tmp_path, SEED), "--json")
    out = json.loads(res.stdout)
    assert out["bounds"]["kappa"] == "0.342735254170"
    assert out["evidence"]["artifacts"]["highprec"]["kappa"].startswith("0.3427352541702084852")


@pytest.mark.parametrize(
    "payload, exit_code, reason",
    [
        ({"P": ["1", "1"], "Q": ["1", "-1"], "R": "13/10"}, 1, "p-at-zero"),
        ({"P": ["0", "2"], "Q": ["1", "-1"], "R": "13/10"}, 1, "p-at-one"),
        ({"P": ["0", "1"], "Q": ["2", "-1"], "R": "13/10"}, 1, "q-at-zero"),
        ({"P": ["0", "1"], "Q": ["1", "-1", "1"], "R": "13/10"}, 1, "q-symmetric"),
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": "-1"}, 1, "r-positive"),
        ({"P": ["0"] * 13 + ["1"], "Q": ["1", "-1"], "R": "13/10"}, 2, "P"),
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": "nan"}, 2, "R"),
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": "1e999"}, 2, "R"),
        ({"P": ["0", 1], "Q": ["1", "-1"], "R": "13/10"}, 2, "P"),
        ({"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10", "theta": "0.9"}, 2, "theta"),
        ({"P": ["0", "1"], "Q": ["1", "-1"]}, 2, "R"),
    ],
)
def test_bad_candidates_are_refused_with_a_reason(tmp_path, payload, exit_code, reason):
    res = invoke("check", "levinson-conrey", "--candidate", write(tmp_path, payload), "--json")
    assert res.exit_code == exit_code, (res.stdout, res.stderr)
    out = json.loads(res.stdout)
    assert out["ok"] is False and "kappa" not in out["bounds"]
    assert any(reason in r for r in out["reasons"]), out["reasons"]


def test_bad_candidates_in_a_session_leave_the_head_unchanged(store, tmp_path):
    head = mathloop_json("status", "levinson-conrey", "--db", store)["head"]["commit"]
    lines = [json.dumps(p) for p in ({"P": ["1", "1"], "Q": ["1", "-1"], "R": "13/10"},
                                     {"P": ["0", "1"], "Q": ["1", "-1", "1"], "R": "13/10"},
                                     {"P": ["0", "1"], "Q": ["1", "-1"], "R": "inf"})] + ["{not json"]
    replay = write(tmp_path, "\n".join(lines), "bad.jsonl")
    proc = mathloop("run", "levinson-conrey", "--db", store, "--proposer", f"replay:{replay}", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert mathloop_json("status", "levinson-conrey", "--db", store)["head"]["commit"] == head


def test_malformed_contract_file_is_refused_naming_the_key(tmp_path):
    text = shipped("levinson-conrey").read_text().replace("[limits]", "[limits]\nmax_degre = 3", 1)
    bad = write(tmp_path, text, "broken.toml")
    proc = mathloop("status", bad)
    assert proc.returncode == 2
    assert "broken.toml" in proc.stderr and "max_degre" in proc.stderr


def test_bad_options_exit_2_with_the_reason(tmp_path):
    proc = mathloop("run", "levinson-conrey", "--db", str(tmp_path / "x.db"), "--proposer", "oracle")
    assert proc.returncode == 2 and "unknown proposer" in proc.stderr
    proc = mathloop("run", "nonesuch", "--db", str(tmp_path / "x.db"))
    assert proc.returncode == 2 and "unknown target" in proc.stderr


def test_export_records_label_every_candidate(store, tmp_path):
    out = tmp_path / "records.jsonl"
    proc = mathloop("export", "levinson-conrey", "--db", store, "--records", str(out))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    status = mathloop_json("status", "levinson-conrey", "--db", store)
    assert len(records) == sum(status["labels"].values())
    assert all(r["label"] in status["labels"] for r in records)
    assert all(r["hypotheses"] and "payload" in r and "evidence" in r for r in records)
    assert all(r["parent_state"] is not None for r in records if r["parent_commit"])


def test_sigkill_mid_run_leaves_an_auditable_store_and_the_next_run_continues(tmp_path):
    db = str(tmp_path / "kill.db")
    proc = subprocess.Popen([sys.executable, "-m", "mathloop", "run", "levinson-conrey", "--db", db, "--budget", "400",
                             "--no-progress"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until a few commits exist, then kill without warning
        time.sleep(0.5)
        try:
            with sqlite3.connect(db) as conn:
                if conn.execute("SELECT count(*) FROM commits").fetchone()[0] >= 3:
                    break
        except sqlite3.Error:
            pass
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    audit = mathloop("audit", "levinson-conrey", "--db", db)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    n = len(mathloop_json("log", "levinson-conrey", "--db", db))
    assert n >= 3
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "4", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert mathloop("audit", "levinson-conrey", "--db", db).returncode == 0


def test_editing_a_committed_row_makes_audit_fail_and_name_the_commit(store, tmp_path):
    import shutil

    db = str(tmp_path / "edited.db")
    shutil.copy(store, db)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(store + suffix):
            shutil.copy(store + suffix, db + suffix)
    log = mathloop_json("log", "levinson-conrey", "--db", db)
    victim = log[1]["commit"]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE commits SET bounds = replace(bounds, '\"kappa\":\"', '\"kappa\":\"4') WHERE hash = ?", (victim,))
    proc = mathloop("audit", "levinson-conrey", "--db", db, "--hash-only")
    assert proc.returncode == 1
    assert victim in proc.stdout + proc.stderr


def test_graph_shows_every_obligation_with_status_and_hypotheses(store, tmp_path):
    res = invoke("graph", "levinson-conrey", "--db", store)
    assert res.exit_code == 0, res.stdout
    for oid in ("q-symmetric", "kappa-bound", "conrey-mean-value"):
        assert oid in res.stdout
    assert "taken as given" in res.stdout and "discharged" in res.stdout
    dot = tmp_path / "g.dot"
    assert invoke("graph", "levinson-conrey", "--db", store, "-o", str(dot)).exit_code == 0
    text = dot.read_text()
    assert text.startswith('digraph "levinson-conrey"') and '"q-symmetric" -> "closed-form"' in text


def test_graph_svg_through_graphviz(store, tmp_path):
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("graphviz `dot` not installed (apt-get install graphviz)")
    svg = tmp_path / "g.svg"
    res = invoke("graph", "levinson-conrey", "--db", store, "-o", str(svg))
    assert res.exit_code == 0, res.stdout
    assert "<svg" in svg.read_text() and "kappa&#45;bound" in svg.read_text()
