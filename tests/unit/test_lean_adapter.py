"""ADAPTER tests of the Lean process adapter against a stand-in executable (not Lean verification).

The stand-in is a few lines of Python that speak Lean's `--json` message format; its behaviour is
chosen by the STANDIN_MODE environment variable. Nothing here counts as a Lean check.
"""

from __future__ import annotations

import stat
from fractions import Fraction
import sys
import time
from pathlib import Path

import pytest

from mathloop.domain import Verdict
from mathloop.lean.check import check_source, parse_messages
from mathloop.lean.commit import check_commit
from mathloop.lean.process import LeanCrash, LeanTimeout
from mathloop.lean.toolchain import Toolchain, discover
from tests.support.lean_evidence import lc_evidence

STANDIN = r'''
import json, os, re, resource, signal, subprocess, sys, time
mode = os.environ.get("STANDIN_MODE", "ok")
args = sys.argv[1:]
if args[:2] == ["env", "lean"]:
    args = args[2:]
if "--version" in args:
    if mode == "noshim":
        print("error: no default toolchain configured"); sys.exit(1)
    print("Lean (version 4.28.0, x86_64-unknown-linux-gnu, commit 0123456789abcdef0123456789abcdef01234567, stand-in)"); sys.exit(0)
path = args[-1]
if path.endswith('Probe.lean'):
    sys.exit(0)
lines = open(path, encoding="utf-8").read().splitlines()
def msg(sev, line, data, kind="[anonymous]"):
    print(json.dumps({"severity": sev, "pos": {"line": line, "column": 0}, "endPos": None, "kind": kind,
                      "keepFullRange": False, "isSilent": False, "fileName": path, "data": data, "caption": ""}))
if mode == "hang":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    open(os.environ["STANDIN_PIDFILE"], "w").write(str(child.pid))
    time.sleep(120)
if mode == "crash":
    sys.stderr.write("Stack overflow detected. Aborting.\n"); sys.exit(134)
if mode == "signal":
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "error":
    msg("error", 3, "type mismatch\n  rfl\nhas type ..."); sys.exit(1)
if mode == "sorry":
    msg("warning", 3, "declaration uses 'sorry'", "hasSorry")
if mode == "rlimit":
    msg("information", 1, "RLIMIT_AS=%d" % resource.getrlimit(resource.RLIMIT_AS)[0])
axioms = {"ok": "[propext, Classical.choice, Quot.sound]", "sorry": "[sorryAx]", "rlimit": "[propext]",
          "badaxiom": "[propext, Lean.ofReduceBool]", "forged": None, "none": ""}[mode]
if mode == "forged":
    msg("information", 1, "'T.t' does not depend on any axioms")
for i, l in enumerate(lines, 1):
    m = re.match(r"#print axioms (\S+)", l)
    if m and axioms is not None:
        msg("information", i, f"'{m.group(1)}' does not depend on any axioms" if axioms == "" else
            f"'{m.group(1)}' depends on axioms: {axioms}")
sys.exit(0)
'''
SRC = "namespace T\ntheorem t : 2 ≤ 3 := by decide\nend T\n"


@pytest.fixture
def standin(tmp_path, monkeypatch):
    """Return a factory: standin(mode, name='lean') -> path of an executable stand-in."""
    def make(mode: str, name: str = "lean") -> Path:
        d = tmp_path / f"bin-{name}"
        d.mkdir(exist_ok=True)
        exe = d / name
        exe.write_text(f"#!{sys.executable}\n{STANDIN}")
        exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setenv("STANDIN_MODE", mode)
        return exe
    monkeypatch.delenv("MATHLOOP_LEAN", raising=False)
    monkeypatch.setenv("MATHLOOP_NO_BUNDLED_LEAN", "1")  # these tests are about the adapter, not the kernel
    return make


def _tc(exe: Path, lake: bool = False) -> Toolchain:
    return Toolchain("toolchain", (str(exe), "env", "lean") if lake else (str(exe),), "4.28.0", "0123456")


def test_adapter_parses_json_messages():
    out = ('{"severity":"error","pos":{"line":3,"column":2},"data":"unknown identifier","kind":"x"}\n'
           "not json\n"
           '{"severity":"information","pos":{"line":9,"column":0},"data":"\'A.t\' depends on axioms: [propext]"}\n')
    msgs = parse_messages(out)
    assert [(m.severity, m.line) for m in msgs] == [("error", 3), ("information", 9)]


def test_adapter_accepts_allowlisted_axioms(standin):
    res = check_source(SRC, ["T.t"], toolchain=_tc(standin("ok")), timeout_s=30)
    assert res.verdict is Verdict.PROVED
    assert dict(res.axioms)["T.t"] == ("Classical.choice", "Quot.sound", "propext")
    assert (res.kind, res.version) == ("toolchain", "4.28.0") and len(res.file_sha256) == 64


def test_adapter_accepts_no_axioms(standin):
    assert check_source(SRC, ["T.t"], toolchain=_tc(standin("none")), timeout_s=30).verdict is Verdict.PROVED


def test_adapter_refutes_sorry_warning_and_sorry_axiom(standin):
    res = check_source(SRC, ["T.t"], toolchain=_tc(standin("sorry")), timeout_s=30)
    assert res.verdict is Verdict.REFUTED and "sorry" in res.reason


def test_adapter_refutes_axiom_outside_allowlist(standin):
    res = check_source(SRC, ["T.t"], toolchain=_tc(standin("badaxiom")), timeout_s=30)
    assert res.verdict is Verdict.REFUTED and "Lean.ofReduceBool" in res.reason


def test_adapter_refutes_on_lean_error_with_its_messages(standin):
    res = check_source(SRC, ["T.t"], toolchain=_tc(standin("error")), timeout_s=30)
    assert res.verdict is Verdict.REFUTED and any("type mismatch" in m for m in res.messages)


def test_adapter_ignores_axiom_reports_before_the_checkers_own_lines(standin):
    res = check_source(SRC, ["T.t"], toolchain=_tc(standin("forged")), timeout_s=30)
    assert res.verdict is Verdict.REFUTED and "no axiom report" in res.reason


def test_adapter_runs_lake_env_lean_for_a_lake_toolchain(standin):
    res = check_source(SRC, ["T.t"], toolchain=_tc(standin("ok", "lake"), lake=True), timeout_s=30)
    assert res.verdict is Verdict.PROVED


def test_adapter_applies_the_memory_rlimit(standin):
    res = check_source(SRC, ["T.t"], toolchain=_tc(standin("rlimit")), timeout_s=30, memory_mb=1024)
    assert any(f"RLIMIT_AS={1024 * 1024 * 1024}" in m for m in res.messages)


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_adapter_timeout_kills_the_whole_process_tree(standin, tmp_path, monkeypatch):
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("STANDIN_PIDFILE", str(pidfile))
    t0 = time.monotonic()
    with pytest.raises(LeanTimeout):
        check_source(SRC, ["T.t"], toolchain=_tc(standin("hang")), timeout_s=2)
    assert time.monotonic() - t0 < 15
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not _dead(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _dead(pid), "the stand-in's child outlived the timeout"


def test_adapter_crash_raises_with_output(standin):
    with pytest.raises(LeanCrash) as e:
        check_source(SRC, ["T.t"], toolchain=_tc(standin("crash")), timeout_s=30)
    assert "Stack overflow" in e.value.stderr and e.value.returncode == 134


def test_adapter_death_by_signal_raises(standin):
    with pytest.raises(LeanCrash, match="signal"):
        check_source(SRC, ["T.t"], toolchain=_tc(standin("signal")), timeout_s=30)


def test_adapter_elan_shim_without_toolchain_is_unavailable(standin, monkeypatch):
    exe = standin("noshim")
    monkeypatch.setenv("PATH", str(exe.parent))
    tc = discover()
    assert not tc.available and "no default toolchain" in tc.reason
    res = check_source(SRC, ["T.t"], toolchain=tc)
    assert res.verdict is Verdict.UNKNOWN


def test_adapter_discovers_mathloop_lean_first(standin, monkeypatch):
    exe = standin("ok", "lake")
    monkeypatch.setenv("MATHLOOP_LEAN", str(exe))
    monkeypatch.setenv("PATH", "/nonexistent")
    tc = discover()
    assert (tc.kind, tc.command) == ("toolchain", (str(exe), "env", "lean")) and tc.version == "4.28.0"


def test_adapter_commit_is_unavailable_without_lean_checked_with_standin_pending_on_crash(standin, monkeypatch):
    from mathloop.targets.levinson_conrey.lean_claims import render_commit

    contract, ev = lc_evidence(["0", "1"], ["1", "-1"], "13/10")

    class Target:
        name = "levinson-conrey"

        def __init__(self):
            self.contract = contract

        def lean_render(self, h, e):
            return render_commit(contract, h, e, Fraction(4, 7))

        def lean_support(self):
            from mathloop.targets.levinson_conrey.target import LevinsonConrey

            return LevinsonConrey.lean_support()

    monkeypatch.setenv("PATH", str(standin("noshim").parent))
    none = check_commit(Target(), "ab" * 32, ev)
    assert none.status == "unavailable" and "no default toolchain" in none.reasons[0]
    st = check_commit(Target(), "ab" * 32, ev, toolchain=_tc(standin("ok")))
    assert st.status == "checked" and st.attestation.artifact_sha256 == none.attestation.artifact_sha256
    assert st.attestation.axioms == ("Classical.choice", "Quot.sound", "propext")
    monkeypatch.setenv("STANDIN_MODE", "crash")
    crash = check_commit(Target(), "ab" * 32, ev, toolchain=_tc(standin("crash")))
    assert crash.status == "pending" and crash.attestation is None
