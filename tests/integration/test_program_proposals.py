"""Programs as candidates through `run` and `check`: sandboxed, read by the target's file rules, checked, gated,
committed with their text as provenance (log, web view, exports, audit); hostile ones commit nothing untrue."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sqlite3
import textwrap
import time
from pathlib import Path

import pytest

from mathloop.domain import Label
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract
from tests.integration.cli import invoke
from tests.support.sandboxes import needs_sandbox, wait_no_sandbox

TARGET = "erdos-minimum-overlap"
GOOD = """
import json
n = 20
h = [max(0.0, min(1.0, 1 - abs(-1 + (i + 0.5) * 2 / n) * 0.9)) for i in range(n)]
print(json.dumps({"heights": [f"{v:.6f}" for v in h]}))
"""
# f > 1 after normalisation: not admissible, whatever the program claims about its score
CLAIMS_TOO_MUCH = """
import sys
try:
    import mathloop.targets.erdos_minimum_overlap.value as v
    v.overlap_value = lambda ints: 0.0
    sys.stderr.write("patched the checker\\n")
except ImportError as e:
    sys.stderr.write(f"no checker to patch: {e}\\n")
score = 0.0
exec("score = 0.1")                      # AlphaEvolve-style: the program rewrites its own scoring
globals()["evaluate"] = lambda *a: 0.0
sys.stderr.write("claimed C1b = 0.1\\n")
print('{"heights": ["0", "0", "5", "0"]}')
"""
WRONG_TARGET = 'print(\'{"P": ["1", "-1"], "Q": ["1"], "R": "13/10"}\')\n'


@pytest.fixture(autouse=True)
def sandbox_here():
    needs_sandbox()


def write_programs(folder: Path, programs: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in programs.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


@pytest.mark.slow  # four programs and a session (~3.5 s); the fast tier keeps check, refusal and the on-disk edit
def test_run_commits_a_programs_output_with_its_text_and_audits(tmp_path):
    db = str(tmp_path / "s.db")
    progs = write_programs(tmp_path / "progs", {"a_good.py": GOOD, "b_claims.py": CLAIMS_TOO_MUCH,
                                                "c_wrong_target.py": WRONG_TARGET, "d_crash.py": "1/0\n"})
    res = invoke("run", TARGET, "--proposer", f"program:{progs}", "--db", db, "--no-progress", "--no-lean")
    assert res.exit_code == 0, res.output
    contract = load_contract(TARGET)
    repo = Repository(make_engine(db))
    rows = {c.meta.get("source"): c for c in repo.candidates(contract.sha256) if c.proposer.startswith("program:")}
    assert rows["a_good.py"].label == Label.PROGRESS.value and rows["a_good.py"].commit_hash
    assert rows["a_good.py"].meta["program"]["text"] == textwrap.dedent(GOOD)
    assert rows["a_good.py"].meta["program"]["sha256"] == hashlib.sha256(textwrap.dedent(GOOD).encode()).hexdigest()
    # the checker was out of reach: the real one refused the inadmissible heights, the claim was never read
    claims = rows["b_claims.py"]
    assert claims.commit_hash is None and "no checker to patch" in claims.meta["program"]["run"]["stderr_tail"]
    assert any("exceeds 1" in r for r in claims.reasons), claims.reasons
    assert rows["c_wrong_target.py"].label == Label.MALFORMED.value and rows["c_wrong_target.py"].commit_hash is None
    assert rows["d_crash.py"].label == Label.MALFORMED.value
    assert rows["d_crash.py"].reasons[0].startswith("program exited with status 1: ZeroDivisionError")
    head = repo.head(contract.sha256)
    assert head.candidate_id == rows["a_good.py"].id and str(head.bounds["C1b"]) == "857/2200"
    audit = invoke("audit", TARGET, "--db", db)
    assert audit.exit_code == 0 and "audit ok" in audit.output
    shown = json.loads(invoke("log", TARGET, "--db", db, "--json").output)
    assert shown[-1]["program"]["text"] == textwrap.dedent(GOOD) and "program" not in shown[0]
    text = invoke("log", TARGET, "--db", db, "--programs").output
    assert "--- program of commit" in text and "print(json.dumps" in text
    records = tmp_path / "records.jsonl"
    assert invoke("export", TARGET, "--db", db, "--records", str(records)).exit_code == 0
    exported = [json.loads(line) for line in records.read_text().splitlines()]
    assert any(r.get("meta", {}).get("program", {}).get("text") == textwrap.dedent(GOOD) for r in exported)
    if importlib.util.find_spec("pyarrow") is not None:
        import pyarrow.parquet as pq

        out = tmp_path / "dataset"
        assert invoke("export", TARGET, "--db", db, "--dataset", str(out)).exit_code == 0
        table = pq.read_table(out / "data" / "train-00000-of-00001.parquet").to_pylist()
        assert textwrap.dedent(GOOD) in [r["program"] for r in table]
    # the program text is covered by the audit like every column of the memory
    with sqlite3.connect(db) as con:
        row_id, meta = con.execute("SELECT id, proposer_meta FROM candidates WHERE proposer_meta LIKE '%0.9))%'").fetchone()
        con.execute("UPDATE candidates SET proposer_meta = ? WHERE id = ?", (meta.replace("0.9))", "0.1))"), row_id))
    audit = invoke("audit", TARGET, "--db", db)
    assert audit.exit_code == 1 and f"memory row {row_id}" in audit.output and "proposer_meta" in audit.output


@pytest.mark.slow
def test_the_web_view_shows_the_program_escaped(tmp_path):
    from mathloop.web.pages import candidate_page

    db = str(tmp_path / "s.db")
    progs = write_programs(tmp_path / "progs", {"a.py": "# <script>alert(1)</script>\n" + textwrap.dedent(GOOD)})
    assert invoke("run", TARGET, "--proposer", f"program:{progs}", "--db", db, "--no-progress", "--no-lean").exit_code == 0
    contract = load_contract(TARGET)
    repo = Repository(make_engine(db))
    c = next(c for c in repo.candidates(contract.sha256) if c.proposer.startswith("program:"))
    page = candidate_page(c, contract.name, contract.sha256)
    assert 'id="program"' in page and "print(json.dumps" in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page


NO_BWRAP = "programs run only in a sandbox, and none can be made here: bubblewrap (`bwrap`) is not on PATH"
NO_NAMESPACES = ("programs run only in a sandbox, and none can be made here: bubblewrap ({bwrap}) cannot make a sandbox "
                 "here: bwrap: No permissions to create a new namespace")


@pytest.mark.parametrize("entry", ["run program:PATH", "run --form program", "check --program"])
@pytest.mark.parametrize("missing", ["no bwrap on PATH", "bwrap cannot make namespaces"])
def test_program_proposals_are_refused_in_one_line_where_no_sandbox_can_be_made(entry, missing, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if missing == "bwrap cannot make namespaces":  # e.g. a container that forbids user namespaces
        fake = bin_dir / "bwrap"
        fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n")
        fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    db, prog = tmp_path / "s.db", tmp_path / "p.py"
    prog.write_text(GOOD)
    args, what = {
        "run program:PATH": (["run", TARGET, "--proposer", f"program:{prog}"], f"--proposer program:{prog}"),
        "run --form program": (["run", TARGET, "--proposer", "openai", "--form", "program", "--model", "m",
                                "--base-url", "http://127.0.0.1:9/v1"], "--form program"),
        "check --program": (["check", TARGET, "--program", str(prog)], f"--program {prog}"),
    }[entry]
    res = invoke(*args, "--db", str(db), *(["--no-progress"] if args[0] == "run" else []))
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    why = NO_BWRAP if missing == "no bwrap on PATH" else NO_NAMESPACES.format(bwrap=bin_dir / "bwrap")
    assert len(lines) == 1 and lines[0].startswith(f"error: {what}: {why}"), lines
    assert not db.exists()  # refused before the store was opened: nothing written, nothing run unsandboxed


def test_check_runs_a_program_and_refuses_a_failing_one(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(GOOD)
    bad.write_text("import os\nos.system('true')\nraise SystemExit(4)\n")
    res = invoke("check", TARGET, "--program", str(good), "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["ok"] and out["bounds_exact"] == {"C1b": "857/2200"} and out["program"]["exit_code"] == 0
    res = invoke("check", TARGET, "--program", str(bad))
    assert res.exit_code == 2 and "program exited with status 4" in res.output
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG_TARGET)  # valid JSON, for levinson-conrey
    res = invoke("check", TARGET, "--program", str(wrong), "--json")
    assert res.exit_code == 2 and json.loads(res.stdout)["malformed"] is True
    assert res.stderr.startswith(f"error: --program {wrong}: ") and len(res.stderr.splitlines()) == 1
    res = invoke("check", TARGET, "--program", str(good), "--candidate", str(good))
    assert res.exit_code == 2 and "exactly one of --candidate FILE and --program FILE.py" in res.output


def test_a_program_editing_the_checker_file_on_disk_changes_nothing(tmp_path):
    import mathloop.targets.erdos_minimum_overlap.value as value

    path = Path(value.__file__)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    progs = write_programs(tmp_path / "progs", {"edit.py": f"""
        import sys
        try:
            with open({str(path)!r}, "a") as f:
                f.write("\\noverlap_value = lambda ints: 0\\n")
            sys.stderr.write("EDITED\\n")
        except OSError as e:
            sys.stderr.write(f"could not edit: {{type(e).__name__}}\\n")
        print('{{"heights": ["1", "1", "1", "1"]}}')
    """})
    db = str(tmp_path / "s.db")
    assert invoke("run", TARGET, "--proposer", f"program:{progs}", "--db", db, "--no-progress", "--no-lean").exit_code == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    repo = Repository(make_engine(db))
    c = next(c for c in repo.candidates(load_contract(TARGET).sha256) if c.proposer.startswith("program:"))
    assert "could not edit" in c.meta["program"]["run"]["stderr_tail"] and c.commit_hash is None


def test_a_key_in_a_program_is_redacted_before_it_runs_and_is_stored(monkeypatch):
    from mathloop.propose.programs import ProgramRunner
    from mathloop.sandbox import Sandbox, SandboxLimits
    from mathloop.targets import build_target

    key = "sk-test-secret-key-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    runner = ProgramRunner(build_target(load_contract(TARGET)), Sandbox(), SandboxLimits(wall_s=10))
    out = runner.outcome(f'import sys\nsys.stderr.write("{key}")\nprint(\'{{"heights": ["1"]}}\')\n')
    assert out.malformed is None and key[:12] not in json.dumps(out.record)
    assert "[redacted]" in out.record["text"] and "[redacted]" in out.record["run"]["stderr_tail"]


@pytest.mark.slow
def test_a_program_never_runs_past_the_sessions_time_limit(tmp_path):
    progs = write_programs(tmp_path / "progs", {"loop.py": "import os\nos.fork()\nwhile True:\n    pass\n"})
    start = time.monotonic()
    res = invoke("run", TARGET, "--proposer", f"program:{progs}", "--db", str(tmp_path / "s.db"), "--no-progress",
                 "--no-lean", "--time-limit", "2", "--program-time", "600")
    took = time.monotonic() - start
    assert res.exit_code == 0, res.output
    assert took < 2 + 3, took  # the session's start (seed check) and end around a 2 s limit; the program had 600 s
    assert wait_no_sandbox(2.0) == []
