"""The eleven hostile programs of issue 33 in one `mathloop run --proposer program:DIR` session: none escapes, none
is committed, the session ends within --time-limit, and the one honest program among them is the only commit.

Each hostile program that gets what it wants prints a real improvement (the tent of slope 0.9, C1b = 857/2200): a
commit from any of them would show an escape. Those that fail exit 1 or print what they claim (inadmissible).
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract
from tests.integration.cli import invoke
from tests.support.sandboxes import LoopbackServer, needs_sandbox, wait_no_sandbox

TARGET = "erdos-minimum-overlap"
PROGRAM_S = 3
TIME_LIMIT_S = 120
ESCAPED = ("import json\nn = 20\nh = [max(0.0, min(1.0, 1 - abs(-1 + (i + 0.5) * 2 / n) * 0.9)) for i in range(n)]\n"
           "print(json.dumps({'heights': [f'{v:.6f}' for v in h]}))\n")
HONEST = ESCAPED.replace("* 0.9))", "* 0.85))")


def hostile(tmp: Path, port: int) -> dict[str, str]:
    """Return the eleven hostile programs by file name (run in name order)."""
    marker, store, home = tmp / "escaped-marker", tmp / "s.db", tmp / "home"
    escaped = "\n" + ESCAPED
    return {
        "h01_fork_bomb.py": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        "h02_infinite_loop.py": "while True:\n    pass\n",
        "h03_twenty_gigabytes.py": "x = bytearray(20 * 2**30)\n" + escaped,
        "h04_write_outside.py": f"open({str(marker)!r}, 'w').write('escaped')\n" + escaped,
        "h05_read_store_and_home.py": (f"open({str(store)!r}, 'rb').read(16)\n"
                                       f"open({str(home / '.netrc')!r}).read()\n" + escaped),
        "h06_socket.py": f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\n" + escaped,
        "h07_shell.py": (f"import subprocess\nsubprocess.run(['/bin/sh', '-c', 'echo x > {marker}'], check=True)\n"
                         + escaped),
        "h08_print_a_gigabyte.py": "import sys\nblock = b'7' * 2**20\nfor _ in range(1024):\n"
                                   "    sys.stdout.buffer.write(block)\n",
        "h09_wrong_target.py": "print('{\"P\": [\"1\", \"-1\"], \"Q\": [\"1\"], \"R\": \"13/10\"}')\n",
        "h10_monkeypatch_checker.py": textwrap.dedent("""
            import sys, types
            fake = types.ModuleType("mathloop.targets.erdos_minimum_overlap.value")
            fake.overlap_value = lambda ints: 0
            sys.modules[fake.__name__] = fake   # patched here, in the program's own interpreter only
            sys.stderr.write("patched the checker: C1b = 0\\n")
            print('{"heights": ["0", "0", "9", "0"]}')   # f > 1: not admissible
        """),
        "h11_overwrite_own_score.py": textwrap.dedent("""
            import sys
            def score(heights):
                return max(heights)
            exec("def score(heights):\\n    return 0.0")   # AlphaEvolve's notebooks: evolved code rewriting its scorer
            globals()["evaluate"] = lambda path: {"combined_score": 1e9}
            heights = [0, 0, 0, 7, 0]
            sys.stderr.write(f"claimed score {score(heights)}\\n")
            print({"heights": [str(h) for h in heights]}.__repr__().replace("'", '"'))
        """),
    }


@pytest.mark.slow  # the loop and the fork bomb run to their limit (~15 s in all)
def test_eleven_hostile_programs_commit_nothing_and_the_session_ends_in_time(tmp_path, monkeypatch):
    needs_sandbox()
    home = tmp_path / "home"
    home.mkdir()
    (home / ".netrc").write_text("SECRET-HOME-FILE")
    monkeypatch.setenv("HOME", str(home))
    server = LoopbackServer()
    progs = tmp_path / "progs"
    progs.mkdir()
    try:
        programs = hostile(tmp_path, server.port)
        programs["z_honest.py"] = HONEST
        for name, text in programs.items():
            (progs / name).write_text(text)
        start = time.monotonic()
        res = invoke("run", TARGET, "--proposer", f"program:{progs}", "--db", str(tmp_path / "s.db"), "--no-progress",
                     "--no-lean", "--program-time", str(PROGRAM_S), "--time-limit", str(TIME_LIMIT_S))
        took = time.monotonic() - start
    finally:
        server.close()
    assert res.exit_code == 0, res.output
    assert took < TIME_LIMIT_S and wait_no_sandbox(3.0) == []
    assert server.accepted == [] and not (tmp_path / "escaped-marker").exists()
    repo = Repository(make_engine(str(tmp_path / "s.db")))
    contract = load_contract(TARGET)
    rows = {c.meta["source"]: c for c in repo.candidates(contract.sha256) if c.proposer.startswith("program:")}
    assert set(rows) == set(programs)  # every program ran and was recorded
    assert [n for n, c in rows.items() if c.commit_hash] == ["z_honest.py"]
    for name in programs:
        assert "SECRET-HOME-FILE" not in repr(rows[name].meta) + repr(rows[name].reasons)
    why = {name: rows[name].reasons[0] if rows[name].reasons else rows[name].label for name in programs}
    assert why["h01_fork_bomb.py"].startswith("stopped") and why["h02_infinite_loop.py"].startswith("stopped"), why
    assert "MemoryError" in why["h03_twenty_gigabytes.py"], why
    for name in ("h04_write_outside.py", "h05_read_store_and_home.py", "h06_socket.py", "h07_shell.py"):
        assert why[name].startswith("program exited with status 1: "), (name, why[name])  # the act itself failed
    assert "output larger than" in why["h08_print_a_gigabyte.py"], why
    assert rows["h09_wrong_target.py"].label == "malformed"
    for name in ("h10_monkeypatch_checker.py", "h11_overwrite_own_score.py"):  # the real checker judged the output
        assert any("exceeds 1" in r for r in rows[name].reasons), (name, rows[name].reasons)
    head = repo.head(contract.sha256)
    assert head.candidate_id == rows["z_honest.py"].id
    audit = invoke("audit", TARGET, "--db", str(tmp_path / "s.db"))
    assert audit.exit_code == 0 and "audit ok" in audit.output
