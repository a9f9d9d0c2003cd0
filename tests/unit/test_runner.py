"""The check runner: a hung checker is killed with its whole process tree; a crash is an error value."""

import os
import time

from mathloop.search.runner import InProcessRunner, ProcessRunner


def test_timeout_kills_the_checker_and_its_children_and_the_next_check_works(toy_contract):
    runner = ProcessRunner(1.0, start_method="fork")
    try:
        t0 = time.monotonic()
        out = runner.check(toy_contract, None, {"x": "1/2", "sleep": 30})
        assert out.error and "timed out" in out.error
        assert time.monotonic() - t0 < 10
        pgid = runner._proc  # killed and cleared
        assert pgid is None
        ok = runner.check(toy_contract, None, {"x": "1/2"})
        assert ok.evidence is not None and ok.evidence.bounds["value"] == 0.5
    finally:
        runner.close()


def test_no_grandchild_survives_a_timeout(toy_contract):
    runner = ProcessRunner(1.0, start_method="fork")
    out = runner.check(toy_contract, None, {"x": "1/2", "sleep": 30})
    assert out.error
    time.sleep(0.3)
    # every process of the killed group is gone: no process still has the worker's group id
    survivors = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
                with open(f"/proc/{pid}/stat") as f:
                    state = f.read().split()[2]
            except OSError:
                continue
            if b"pytest" in cmd and state != "Z" and int(pid) != os.getpid() and os.getpgid(int(pid)) != os.getpgid(0):
                survivors.append(pid)
    runner.close()
    assert survivors == []


def test_checker_crash_is_an_error_value_not_an_exception(toy_contract):
    out = InProcessRunner().check(toy_contract, None, {"x": "1/2", "crash": True})
    assert out.evidence is None and "asked to crash" in out.error


def test_malformed_payload_is_a_malformed_value(toy_contract):
    out = InProcessRunner().check(toy_contract, None, {"x": "banana"})
    assert out.malformed == "x: not a rational: 'banana'"
