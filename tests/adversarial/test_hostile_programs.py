"""Hostile programs in the sandbox: each is refused or cut, and the test checks what did not happen outside.

Every test asserts the containment itself (the file outside not written, the server saw no connection, the wall time,
no process left), not only that the program failed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import textwrap
from pathlib import Path

import pytest

from mathloop.sandbox import Sandbox, SandboxLimits
from tests.support.sandboxes import LoopbackServer, needs_sandbox, sandbox_pids, wait_no_sandbox


@pytest.fixture(scope="module")
def box() -> Sandbox:
    needs_sandbox()
    return Sandbox()


def run(box: Sandbox, source: str, **limits) -> tuple:
    start = time.monotonic()
    result = box.run(textwrap.dedent(source), SandboxLimits(**limits))
    return result, time.monotonic() - start


def test_infinite_loop_is_killed_at_the_wall_clock_limit_with_its_tree(box):
    result, seconds = run(box, """
        import os
        os.fork()
        while True:
            pass
    """, wall_s=1.0)
    assert result.stopped == "stopped at the wall-clock limit (1 s)" and result.exit_code is None
    assert seconds < 2.5
    assert wait_no_sandbox(2.0) == []


def test_fork_bomb_stays_within_the_process_limit_and_leaves_nothing(box):
    peak = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak.append(len(sandbox_pids()))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result, seconds = run(box, """
            import os, sys
            forks = 0
            while True:
                try:
                    os.fork()
                    forks += 1
                except OSError:
                    pass
        """, wall_s=1.0, processes=6)
    finally:
        done.set()
        watcher.join()
    assert result.stopped is not None and seconds < 2.5
    assert max(peak) >= 4  # the bomb did fork: the watcher saw it
    # bubblewrap's own two processes (outside and the namespace's init) plus at most `processes` of the program's user
    assert max(peak) <= 6 + 2, max(peak)
    assert wait_no_sandbox(2.0) == []


def test_twenty_gigabytes_cannot_be_allocated(box):
    result, seconds = run(box, """
        x = bytearray(20 * 2**30)
        print("allocated", len(x))
    """, memory_mb=512)
    assert result.exit_code == 1 and "MemoryError" in result.stderr_tail
    assert b"allocated" not in result.stdout and seconds < 5


def test_printing_a_gigabyte_is_cut_at_the_output_limit(box):
    result, seconds = run(box, """
        import sys
        block = b"7" * 2**20
        for _ in range(1024):
            sys.stdout.buffer.write(block)
    """, output_bytes=1 << 20)
    assert result.stopped == f"stopped: output larger than the {1 << 20}-byte limit"
    assert result.stdout == b"" and seconds < 5
    assert wait_no_sandbox(2.0) == []


def test_writing_outside_its_own_directory_reaches_nothing(box, tmp_path):
    outside = [tmp_path / "outside.txt", "/work/mathloop-escape-test.txt", "/root/mathloop-escape-test.txt"]
    host_tmp = "/tmp/mathloop-escape-test.txt"  # inside, /tmp is the program's own directory: written there only
    result, _ = run(box, f"""
        import os
        open({host_tmp!r}, "w").write("stays inside")
        for path in {[str(p) for p in outside]!r} + ["/opt/mathloop-sandbox/program.py", "/usr/lib/escape"]:
            try:
                with open(path, "w") as f:
                    f.write("escaped")
                print("WROTE", path)
            except OSError as e:
                print("refused", path, type(e).__name__)
        with open("mine.txt", "w") as f:  # its own directory is writable
            f.write("x")
        print("own directory:", os.getcwd(), sorted(os.listdir(".")))
    """)
    assert result.ok and b"WROTE" not in result.stdout
    assert b"own directory: /tmp ['mathloop-escape-test.txt', 'mine.txt']" in result.stdout
    assert not any(os.path.exists(p) for p in [*outside, host_tmp])


def test_the_store_the_home_and_the_source_are_not_in_the_sandbox(box, tmp_path, monkeypatch):
    store, home = tmp_path / "mathloop.db", tmp_path / "home"
    store.write_text("SECRET-STORE-ROW")
    home.mkdir()
    (home / ".netrc").write_text("SECRET-HOME-FILE")
    monkeypatch.setenv("HOME", str(home))
    import mathloop

    source_dir = os.path.dirname(mathloop.__file__)
    result, _ = run(box, f"""
        import os
        found = []
        for path in [{str(store)!r}, {str(home / ".netrc")!r}, os.path.expanduser("~/.netrc"), "/root/.bashrc",
                     {source_dir!r} + "/sandbox/runner.py", "/etc/passwd", "/proc/1/environ"]:
            try:
                found.append(open(path).read()[:100])
            except OSError as e:
                found.append(type(e).__name__)
        try:
            import mathloop
            found.append("mathloop importable")
        except ImportError:
            found.append("no mathloop")
        print(found, os.listdir("/"), os.listdir(os.path.expanduser("~")))
    """)
    assert result.ok, result.failure()
    text = result.stdout.decode()
    assert "SECRET" not in text and "no mathloop" in text and "mathloop importable" not in text
    assert "['tmp', 'proc', 'dev', 'usr', 'root', 'opt', 'lib64', 'lib']" in text or "work" not in text


def test_environment_is_scrubbed_of_keys_and_paths(box, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-in-the-sandbox-0123456789")
    monkeypatch.setenv("MATHLOOP_DB", "/work/secret.db")
    result, _ = run(box, "import os; print(sorted(os.environ.items()))")
    assert result.ok and b"sk-never" not in result.stdout and b"secret.db" not in result.stdout
    assert b"OPENAI" not in result.stdout and b"MATHLOOP" not in result.stdout


def test_sockets_reach_no_server_not_even_on_loopback(box, tmp_path):
    server = LoopbackServer()
    unix_path = tmp_path / "host.sock"
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(unix_path))
    unix.listen(1)
    unix.settimeout(0.5)
    try:
        result, _ = run(box, f"""
            import socket
            out = []
            for family, addr in [(socket.AF_INET, ("127.0.0.1", {server.port})), (socket.AF_INET, ("10.0.2.2", 80)),
                                 (socket.AF_INET, ("1.1.1.1", 443)), (socket.AF_UNIX, {str(unix_path)!r})]:
                s = socket.socket(family)
                s.settimeout(1)
                try:
                    s.connect(addr)
                    out.append("CONNECTED")
                except OSError as e:
                    out.append(type(e).__name__)
            try:
                socket.getaddrinfo("example.com", 80)
                out.append("RESOLVED")
            except OSError as e:
                out.append(type(e).__name__)
            print(out)
        """, wall_s=10)
        time.sleep(0.3)  # a connection that made it would be accepted by now
        with pytest.raises(TimeoutError):
            unix.accept()
    finally:
        server.close()
        unix.close()
    assert result.ok and b"CONNECTED" not in result.stdout and b"RESOLVED" not in result.stdout
    assert server.accepted == []


def test_no_shell_can_be_spawned(box, tmp_path):
    marker = tmp_path / "shell-ran"
    result, _ = run(box, f"""
        import os, shutil, subprocess
        print("system:", os.system("echo ran > {marker}"))
        for exe in ["/bin/sh", "/bin/bash", "/usr/bin/env", "/usr/bin/python3"]:
            try:
                subprocess.run([exe, "-c", "echo ran > {marker}"])
                print("RAN", exe)
            except OSError as e:
                print("no", exe, type(e).__name__)
        print("which sh:", shutil.which("sh"))
    """)
    assert result.ok, result.failure()
    assert b"RAN" not in result.stdout and b"which sh: None" in result.stdout
    assert not marker.exists()


def test_a_sandbox_dies_with_a_parent_killed_by_sigkill(tmp_path):
    needs_sandbox()
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(os.path.dirname(__file__))!r} + "/..")
        from mathloop.sandbox import Sandbox, SandboxLimits
        print("READY", flush=True)
        Sandbox().run("import os\\nos.fork()\\nwhile True: pass", SandboxLimits(wall_s=60))
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout.readline().strip() == "READY"
    end = time.monotonic() + 10
    while len(sandbox_pids()) < 3 and time.monotonic() < end:
        time.sleep(0.05)
    assert len(sandbox_pids()) >= 3
    parent.kill()
    parent.wait(10)
    assert wait_no_sandbox(5.0) == []


def test_as_an_ordinary_user_the_limits_hold_in_a_user_namespace(tmp_path):
    """The non-root path: the system's interpreter run as `nobody` makes a user namespace, where RLIMIT_NPROC binds."""
    needs_sandbox()
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3") or not os.path.exists("/usr/bin/setpriv"):
        pytest.skip("needs root (to become nobody), /usr/bin/python3 and setpriv")
    # `nobody` must read the package: a checkout under a private directory (mktemp -d is 0700) is not readable, so
    # the test runs a world-readable copy of it
    root = tempfile.mkdtemp(prefix="mathloop-nobody-")
    shutil.copytree(Path(__file__).resolve().parents[2] / "mathloop", Path(root) / "mathloop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for d, _, files in os.walk(root):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {root!r})
        from mathloop.sandbox import Sandbox, SandboxLimits
        box = Sandbox(packages=())
        assert not box.as_root
        r = box.run("import os, socket\\nprint(os.getuid(), sorted(os.listdir('/')))\\n"
                    "s = socket.socket(); s.settimeout(1)\\n"
                    "print(s.connect_ex(('127.0.0.1', {{port}})))")
        print(r.stdout.decode().strip())
        r = box.run("import threading, time\\nts = [threading.Thread(target=time.sleep, args=(0.3,)) for i in range(10)]\\n"
                    "[t.start() for t in ts]\\nprint('all started')", SandboxLimits(processes=4))
        print("threads:", r.exit_code, r.stdout.decode().strip() or r.stderr_tail.strip().splitlines()[-1])
    """)
    server = LoopbackServer()
    try:
        out = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                              script.replace("{port}", str(server.port))],
                             capture_output=True, text=True, timeout=60, cwd="/tmp")
    finally:
        server.close()
        shutil.rmtree(root, ignore_errors=True)
    assert out.returncode == 0, out.stderr[-500:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith("65534 ['dev', 'lib', 'lib64', 'opt', 'proc', 'tmp', 'usr']"), lines
    assert lines[1] != "0" and server.accepted == []
    assert lines[2] == "threads: 1 RuntimeError: can't start new thread", lines
