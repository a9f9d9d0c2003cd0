"""Lean through the CLI: a run ends with its commits `checked`; exports re-check; forged statuses fail `audit`.

The tests marked `lean` use the real kernel (the `lean` extra or a toolchain). The others hide every
Lean and show that nothing is ever `checked` without one, and that everything else still works.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import statistics

import pytest

from mathloop.lean.toolchain import discover
from tests.integration.cli import mathloop, mathloop_json

_TC = discover()
needs_lean = pytest.mark.skipif(not _TC.available, reason=f"no Lean here: {_TC.reason}")
NO_LEAN = {"MATHLOOP_NO_BUNDLED_LEAN": "1", "MATHLOOP_LEAN": "", "PATH": os.path.dirname(os.__file__)}


@pytest.fixture(scope="module")
def lc_store(tmp_path_factory):
    """Return a store after a default levinson-conrey session with Lean checking."""
    db = str(tmp_path_factory.mktemp("lean") / "lc.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--no-progress", timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return db, proc.stdout


@needs_lean
@pytest.mark.lean
def test_a_finished_run_shows_every_commit_checked(lc_store):
    db, out = lc_store
    assert re.search(r"Lean: \d+ checked", out), out
    log = mathloop_json("log", "levinson-conrey", "--db", db)
    assert log and all(c["lean"]["status"] == "checked" for c in log), [c["lean"] for c in log]
    _report_times("levinson-conrey", log)
    head = mathloop_json("status", "levinson-conrey", "--db", db)["head"]
    assert head["lean"]["status"] == "checked" and head["lean"]["kind"] in ("bundled", "toolchain")
    assert head["lean"]["axioms"] == [] or set(head["lean"]["axioms"]) <= {"propext", "Classical.choice", "Quot.sound"}
    assert mathloop("audit", "levinson-conrey", "--db", db, "--hash-only").returncode == 0


@needs_lean
@pytest.mark.lean
def test_export_rechecks_and_a_mutated_digit_fails(lc_store, tmp_path):
    db, _ = lc_store
    out = tmp_path / "export"
    assert mathloop("export", "levinson-conrey", "--db", db, "--lean", str(out)).returncode == 0
    good = mathloop("lean-check", "--export", str(out), "--json", timeout=900)
    res = json.loads(good.stdout)
    assert res["verdict"] == "PROVED" and good.returncode == 0 and len(res["commits"]) >= 2, res["reasons"]
    statement = sorted(out.glob("Certs/*/Statement.lean"))[-1]
    text = statement.read_text()
    m = re.search(r"def k0 : Frac := \(qp (\d+)", text)
    statement.write_text(text[:m.end(1) - 1] + str((int(m.group(1)[-1]) + 1) % 10) + text[m.end(1):])
    bad = mathloop("lean-check", "--export", str(out), "--json", timeout=900)
    res = json.loads(bad.stdout)
    assert res["verdict"] != "PROVED" and bad.returncode == 1
    assert any("differs from the manifest" in r for r in res["reasons"])


@needs_lean
@pytest.mark.lean
def test_export_rechecks_against_the_store_and_a_rehashed_forgery_is_refused(lc_store, tmp_path):
    import hashlib

    db, _ = lc_store
    out = tmp_path / "export"
    assert mathloop("export", "levinson-conrey", "--db", db, "--lean", str(out)).returncode == 0
    good = mathloop("lean-check", "--export", str(out), "--db", db, "--json", timeout=900)
    assert json.loads(good.stdout)["verdict"] == "PROVED" and good.returncode == 0, good.stdout[-2000:]
    statement = sorted(out.glob("Certs/*/Statement.lean"))[-1]
    statement.write_text(re.sub(r"def k0 : Frac := \([^)]*\)", "def k0 : Frac := (qp 3 4)", statement.read_text()))
    m = json.loads((out / "manifest.json").read_text())
    m["files"] = {rel: hashlib.sha256((out / rel).read_bytes()).hexdigest() for rel in m["files"]}
    (out / "manifest.json").write_text(json.dumps(m))
    bad = mathloop("lean-check", "--export", str(out), "--db", db, "--json", timeout=900)
    res = json.loads(bad.stdout)
    assert res["verdict"] == "REFUSED" and bad.returncode == 1
    assert statement.relative_to(out).as_posix() in res["reasons"][0] and "store" in res["reasons"][0]


def _report_times(name: str, log: list) -> None:
    """Print the Lean time per commit (median, max) of a session: the figure the issue asks for."""
    secs = sorted(c["lean"]["seconds"] for c in log)
    print(f"\n{name}: {len(log)} commits checked ({log[0]['lean']['kind']} Lean {log[0]['lean']['version']}); "
          f"Lean time per commit median {statistics.median(secs):.2f} s, max {secs[-1]:.2f} s")


def _db(path: str) -> sqlite3.Connection:
    return sqlite3.connect(path)


def _audit(db: str, *extra: str):
    """Return (exit code, stdout with whitespace flattened) of `mathloop audit`."""
    proc = mathloop("audit", "levinson-conrey", "--db", db, "--hash-only", *extra, timeout=900)
    return proc.returncode, " ".join(proc.stdout.split())


@needs_lean
@pytest.mark.lean
def test_a_forged_lean_status_fails_audit_and_names_the_commit(lc_store, tmp_path):
    import shutil

    db = str(tmp_path / "forged.db")
    shutil.copy(lc_store[0], db)
    con = _db(db)
    (h,) = con.execute("SELECT commit_hash FROM lean_attestations ORDER BY seq LIMIT 1 OFFSET 1").fetchone()
    con.execute("UPDATE lean_attestations SET status = 'refuted' WHERE commit_hash = ?", (h,))
    con.commit()
    code, out = _audit(db)
    assert code == 1 and h in out and "status was edited" in out
    # an edited body (status and all) no longer hashes to its row
    con.execute("UPDATE lean_attestations SET status = 'checked', body = replace(body, '\"milliseconds\":', "
                "'\"milliseconds\":1') WHERE commit_hash = ?", (h,))
    con.commit()
    code, out = _audit(db)
    assert code == 1 and h in out and "hash mismatch" in out
    # a deleted attestation breaks the chain
    shutil.copy(lc_store[0], db)
    con = _db(db)
    con.execute("DELETE FROM lean_attestations WHERE seq = 0")
    con.commit()
    code, out = _audit(db)
    assert code == 1 and "chain broken" in out


@needs_lean
@pytest.mark.lean
def test_audit_lean_reruns_lean_and_catches_a_rehashed_forgery(lc_store, tmp_path):
    import shutil

    from mathloop.lean import attest
    from mathloop.store.engine import make_engine

    db = str(tmp_path / "rehashed.db")
    shutil.copy(lc_store[0], db)
    engine = make_engine(db)
    contract_sha = _db(db).execute("SELECT contract_sha FROM lean_attestations LIMIT 1").fetchone()[0]
    last = attest.latest(engine, contract_sha)
    h, att = next(iter(last.items()))
    attest.record(engine, contract_sha, attest.Attestation(h, "refuted", att.kind, att.lean_version, att.lean_commit,
                                                           att.prelude_sha256, att.artifact_sha256, att.file_sha256s))
    engine.dispose()
    code, out = _audit(db)  # the chain is intact, but the new status contradicts the earlier one: no re-run needed
    assert code == 1 and h in out and "same Lean on the same rendering" in out
    code, out = _audit(db, "--lean")
    assert code == 1 and h in out and "re-run says checked" in out


@needs_lean
@pytest.mark.lean
def test_a_pair_correlation_run_shows_every_commit_checked(tmp_path):
    db = str(tmp_path / "pc.db")
    proc = mathloop("run", "pair-correlation", "--db", db, "--no-progress", timeout=900)
    assert proc.returncode == 0, proc.stderr
    log = mathloop_json("log", "pair-correlation", "--db", db)
    assert log and all(c["lean"]["status"] == "checked" for c in log), [c["lean"]["status"] for c in log]
    _report_times("pair-correlation", log)


@pytest.mark.slow  # heavy: runs in .ci/run's second tier; the default tier stays < 3 min
def test_without_any_lean_commits_are_unavailable_never_checked_and_the_rest_works(tmp_path):
    db = str(tmp_path / "none.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "3", "--no-progress", env=NO_LEAN)
    assert proc.returncode == 0, proc.stderr
    assert "unavailable" in proc.stdout
    log = json.loads(mathloop("log", "levinson-conrey", "--db", db, "--json", env=NO_LEAN).stdout)
    assert {c["lean"]["status"] for c in log} == {"unavailable"}
    doctor = json.loads(mathloop("doctor", "--json", env=NO_LEAN).stdout)["lean"]
    assert doctor["available"] is False and doctor["kind"] == "unavailable" and "lean" in doctor["reason"]
    again = mathloop("lean-check", "levinson-conrey", "--db", db, "--json", env=NO_LEAN)
    assert again.returncode == 0 and json.loads(again.stdout)["commits"] == []  # nothing new to say without a Lean
    assert mathloop("audit", "levinson-conrey", "--db", db, "--hash-only", env=NO_LEAN).returncode == 0
    assert mathloop("export", "levinson-conrey", "--db", db, "--lean", str(tmp_path / "x"), env=NO_LEAN).returncode == 0


@pytest.mark.slow  # several CLI subprocesses (~5 s)
def test_no_lean_leaves_commits_pending(tmp_path):
    db = str(tmp_path / "p.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "2", "--no-progress", "--no-lean")
    assert proc.returncode == 0, proc.stderr
    head = mathloop_json("status", "levinson-conrey", "--db", db)["head"]
    assert head["lean"]["status"] == "pending"
