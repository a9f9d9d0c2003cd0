"""Nothing mathloop starts outlives a parent killed with SIGKILL: checker worker, its children, pools, subprocesses."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.procs import TAG_VAR, kill_tagged, new_tag, tagged, wait_gone
from tests.support.toy_target import TOY_CONTRACT

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = f"""
import os, sys, time
sys.path.insert(0, {str(ROOT)!r})
from mathloop import targets
targets.REGISTRY["toy"] = "tests.support.toy_target:ToyTarget"
"""


def start_parent(tmp_path: Path, body: str) -> tuple[subprocess.Popen, str]:
    """Start a Python parent running PRELUDE + body (it prints READY when its children are up)."""
    tag = new_tag()
    script = tmp_path / "parent.py"
    script.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
    (tmp_path / "toy.toml").write_text(TOY_CONTRACT, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, TAG_VAR: tag})
    return proc, tag


def wait_ready(proc: subprocess.Popen, tag: str, at_least: int, timeout_s: float = 60) -> None:
    assert proc.stdout.readline().strip() == "READY"
    deadline = time.monotonic() + timeout_s
    while len(tagged(tag)) < at_least and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(tagged(tag)) >= at_least, tagged(tag)


def kill_and_expect_nothing_left(proc: subprocess.Popen, tag: str, spare: set[int] = frozenset()) -> None:
    try:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        left = [p for p in wait_gone(tag, 10) if p[0] not in spare]
        assert left == [], f"still alive after the parent's SIGKILL: {left}"
    finally:
        kill_tagged(tag)


RUNNER_BODY = """
from mathloop.targets import load_contract
from mathloop.check.runner import ProcessRunner
if __name__ == "__main__":
    c = load_contract("toy.toml")
    r = ProcessRunner(600, start_method=%r)
    print("READY", flush=True)
    r.check(c, None, {"x": "1/2", "sleep": 600, "pidfile": "grandchild.pid"})
"""


@pytest.mark.parametrize("method", ["forkserver", "fork"])
def test_checker_worker_and_its_child_die_with_a_killed_session(tmp_path, method):
    proc, tag = start_parent(tmp_path, RUNNER_BODY % method)
    wait_ready(proc, tag, 3)
    deadline = time.monotonic() + 30
    while not (tmp_path / "grandchild.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    kill_and_expect_nothing_left(proc, tag)


def test_checker_worker_dies_even_when_its_forkserver_is_kept_alive(tmp_path):
    # A foreign fork child keeps the forkserver's alive pipe open, so the forkserver never exits and the
    # worker's parent-death signal never fires: the lifeline alone must bring the worker down.
    body = """
    import multiprocessing as mp
    from mathloop.targets import load_contract
    from mathloop.check.runner import ProcessRunner
    def idle():
        time.sleep(600)
    if __name__ == "__main__":
        c = load_contract("toy.toml")
        r = ProcessRunner(600, start_method="forkserver")
        r.check(c, None, {"x": "1/2"})  # worker up
        foreign = mp.get_context("fork").Process(target=idle)
        foreign.start()
        open("foreign.pid", "w").write(str(foreign.pid))
        open("worker.pid", "w").write(str(r._proc.pid))
        print("READY", flush=True)
        r.check(c, None, {"x": "1/2", "sleep": 600})
    """
    proc, tag = start_parent(tmp_path, body)
    wait_ready(proc, tag, 4)
    worker = int((tmp_path / "worker.pid").read_text())
    foreign = int((tmp_path / "foreign.pid").read_text())
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    try:
        deadline = time.monotonic() + 10
        while any(pid == worker for pid, _ in tagged(tag)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(pid != worker for pid, _ in tagged(tag)), "the checker worker outlived its session"
    finally:
        os.kill(foreign, signal.SIGKILL)
        kill_tagged(tag)


def test_subprocess_started_with_child_preexec_dies_with_its_parent(tmp_path):
    body = """
    import subprocess
    from mathloop.children import child_preexec
    if __name__ == "__main__":
        p = subprocess.Popen(["sleep", "600"], preexec_fn=child_preexec(512), start_new_session=True)
        print("READY", flush=True)
        p.wait()
    """
    proc, tag = start_parent(tmp_path, body)
    wait_ready(proc, tag, 2)
    kill_and_expect_nothing_left(proc, tag)


def test_timeout_kill_leaves_no_process_and_the_runner_recovers(tmp_path, toy_contract):
    from mathloop.check.runner import ProcessRunner

    tag = new_tag()
    os.environ[TAG_VAR] = tag
    try:
        runner = ProcessRunner(1.0, start_method="fork")
        out = runner.check(toy_contract, None, {"x": "1/2", "sleep": 30})
        assert out.error and "timed out" in out.error
        assert runner.check(toy_contract, None, {"x": "1/2"}).evidence is not None
        runner.close()
        left = [p for p in wait_gone(tag, 10) if p[0] != os.getpid()]
        assert left == []
    finally:
        del os.environ[TAG_VAR]
        kill_tagged(tag)


@pytest.mark.slow  # heavy: runs in .ci/run's second tier; the default tier stays < 3 min
def test_check_uses_the_run_timeout_and_leaves_no_process(tmp_path):
    (tmp_path / "toy.toml").write_text(TOY_CONTRACT, encoding="utf-8")  # limits.check_timeout_s = 5
    (tmp_path / "c.json").write_text('{"x": "1/2", "sleep": 120}', encoding="utf-8")
    tag = new_tag()
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "toy_cli.py"), "check", "toy.toml",
                           "--candidate", "c.json", "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, TAG_VAR: tag})
    try:
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "checker timed out after 5 s" in proc.stdout and '"error": true' in proc.stdout
        assert time.monotonic() - t0 < 60
        assert wait_gone(tag, 10) == []
    finally:
        kill_tagged(tag)


def test_lean_process_runner_child_dies_with_its_parent(tmp_path):
    body = """
    from pathlib import Path
    from mathloop.lean.process import run_process
    if __name__ == "__main__":
        print("READY", flush=True)
        run_process(["sleep", "600"], cwd=Path("."), timeout_s=600, memory_mb=512)
    """
    proc, tag = start_parent(tmp_path, body)
    wait_ready(proc, tag, 2)
    kill_and_expect_nothing_left(proc, tag)
