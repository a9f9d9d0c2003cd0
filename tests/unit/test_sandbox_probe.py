"""Where no sandbox can be made, one line says what is missing; the limits refuse nonsense."""

from __future__ import annotations

import os

import pytest

from mathloop.sandbox import Sandbox, SandboxLimits, SandboxUnavailable, probe
from mathloop.sandbox.bwrap import bwrap_argv, rlimits
from mathloop.sandbox.view import runtime_view


def test_missing_bubblewrap_is_named_with_the_package_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxUnavailable, match=r"^bubblewrap \(`bwrap`\) is not on PATH \(Debian/Ubuntu: apt-get install bubblewrap\)$"):
        Sandbox()


def test_a_bubblewrap_that_cannot_make_namespaces_is_reported_in_one_line(tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    why = probe(bwrap=str(fake))
    assert why == f"bubblewrap ({fake}) cannot make a sandbox here: bwrap: No permissions to create a new namespace"


def test_a_missing_allowed_package_is_named():
    with pytest.raises(SandboxUnavailable, match="allowed package 'no_such_package_p33' is not installed"):
        runtime_view(("no_such_package_p33",))


def test_a_bwrap_path_that_is_not_executable_is_refused(tmp_path):
    plain = tmp_path / "bwrap"
    plain.write_text("")
    with pytest.raises(SandboxUnavailable, match="is not an executable file"):
        Sandbox(bwrap=str(plain))


@pytest.mark.parametrize("field, value", [("wall_s", 0), ("cpu_s", 0), ("memory_mb", 8), ("processes", -1),
                                          ("open_files", 4), ("output_bytes", True)])
def test_limits_refuse_nonsense(field, value):
    with pytest.raises(ValueError, match=f"^{field}: "):
        SandboxLimits(**{field: value})


def test_the_command_line_keeps_the_host_out():
    view = runtime_view(())
    argv = bwrap_argv("/usr/bin/bwrap", view, "/tmp/p.py", SandboxLimits(), as_root=True)
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    assert not any(b.startswith(("/work", "/home", os.path.expanduser("~") + "/.")) and "pyenv" not in b for b in binds)
    assert "--unshare-net" in argv and "--die-with-parent" in argv and "--clearenv" in argv
    assert "--bind" not in argv  # nothing of the host is writable
    limits = rlimits(SandboxLimits(processes=5, memory_mb=256))
    assert limits["RLIMIT_NPROC"] == (5, 5) and limits["RLIMIT_AS"] == (256 << 20, 256 << 20)
