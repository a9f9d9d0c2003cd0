"""A Lean run this process stops itself (kill_active) is no answer: LeanCancelled, never `unavailable`."""

from __future__ import annotations

import threading
import time

import pytest

from mathloop.lean import process, toolchain
from mathloop.lean.process import LeanCancelled, LeanCrash, run_process


def _slow_lean(tmp_path):
    exe = tmp_path / "lean"
    exe.write_text("#!/bin/sh\nsleep 30\n")
    exe.chmod(0o755)
    return exe


def _kill_soon(delay: float = 0.3) -> threading.Thread:
    t = threading.Thread(target=lambda: (time.sleep(delay), process.kill_active()))
    t.start()
    return t


def test_a_run_stopped_by_kill_active_raises_cancelled_not_a_crash(tmp_path):
    killer = _kill_soon()
    start = time.monotonic()
    with pytest.raises(LeanCancelled):
        run_process([str(_slow_lean(tmp_path))], cwd=tmp_path, timeout_s=60)
    killer.join()
    assert time.monotonic() - start < 10


def test_a_run_killed_by_someone_else_is_still_a_crash(tmp_path):
    exe = tmp_path / "lean"
    exe.write_text("#!/bin/sh\nkill -9 $$\n")
    exe.chmod(0o755)
    with pytest.raises(LeanCrash) as e:
        run_process([str(exe)], cwd=tmp_path, timeout_s=60)
    assert not isinstance(e.value, LeanCancelled) and "signal 9" in str(e.value)


def test_a_probe_stopped_by_this_process_says_nothing_about_the_lean(tmp_path):
    tc = toolchain.Toolchain("toolchain", (str(_slow_lean(tmp_path)),))
    killer = _kill_soon()
    with pytest.raises(LeanCancelled):  # not (False, "killed by signal 9"): that would be cached as unavailable
        toolchain._probe(tc)
    killer.join()


def test_a_cancelled_worker_records_nothing_about_the_check_it_cut(tmp_path, toy_contract):
    from mathloop.domain import Evidence
    from mathloop.lean import attest
    from mathloop.lean.worker import LeanWorker
    from mathloop.store.engine import make_engine
    from mathloop.targets import build_target

    engine = make_engine(str(tmp_path / "s.db"))
    slow = _slow_lean(tmp_path)

    def discover_like_before():  # what discovery did with a killed probe: "unavailable", a would-be attestation
        try:
            run_process([str(slow)], cwd=tmp_path, timeout_s=60)
        except LeanCrash as e:
            return toolchain.Toolchain("unavailable", reason=f"probe file: {e}")
        return toolchain.Toolchain("unavailable", reason="?")

    ev = Evidence(checker="toy", checker_version="1", results=(), bounds={}, state={"x": "1/2"})
    worker = LeanWorker(engine, toy_contract.sha256, build_target(toy_contract), toolchain=discover_like_before)
    worker.submit("ab" * 32, ev)
    time.sleep(0.3)  # the worker is inside its "probe" now
    assert worker.cancel() == 1
    assert attest.latest(engine, toy_contract.sha256) == {}
    assert worker.outcomes["ab" * 32].status == "pending"

    quick = LeanWorker(engine, toy_contract.sha256, build_target(toy_contract),
                       toolchain=lambda: toolchain.Toolchain("unavailable", reason="no Lean here"))
    quick.submit("cd" * 32, ev)
    assert quick.wait(timeout_s=30)
    quick.close()
    assert attest.latest(engine, toy_contract.sha256)["cd" * 32].status == "not_rendered"  # uncancelled: recorded
