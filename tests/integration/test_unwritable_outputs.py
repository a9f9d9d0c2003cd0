"""Every output a user names fails in one line, exit 2, when it cannot be written, and leaves nothing behind.

Real folders: a read-only bind mount and a 16 KiB tmpfs (a full disk), each in a private mount namespace
(`unshare -m`), and a folder that does not exist; the commands are the real CLI as a subprocess.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.cli import ROOT

pytestmark = pytest.mark.slow  # about twenty CLI processes

ENV = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
MOUNT = {"ro": 'mount --bind "$f" "$f" && mount -o remount,bind,ro "$f"',
         # a 16 KiB tmpfs with all but one page taken, so any output of more than 4 KiB fills it whatever its size
         "full": 'mount -t tmpfs -o size=16k tmpfs "$f" && head -c 12288 /dev/zero > "$f/.filler"'}


def _namespaces_work(tmp: Path) -> str | None:
    if shutil.which("unshare") is None:
        return "no unshare here"
    r = subprocess.run(["unshare", "-m", "sh", "-c", 'f="$1"; ' + MOUNT["ro"] + ' && ! touch "$f/x" 2>/dev/null',
                        "sh", str(tmp)], capture_output=True, timeout=30)
    return None if r.returncode == 0 else f"cannot make a read-only mount here: {r.stderr.decode()[:200]}"


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run `python -m mathloop ARGS` in `cwd`."""
    return subprocess.run([sys.executable, "-m", "mathloop", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=ENV)


def cli_on(folder: Path, mount: str, args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the CLI in a private mount namespace where `folder` is `mount`ed (ro: read-only; full: a tmpfs with
    4 KiB free); return its process (stderr is the CLI's; returncode its exit code) and what it left in `folder`."""
    script = ('f="$1"; c="$2"; shift 2; ' + MOUNT[mount] + ' || exit 99; cd "$c" || exit 98; '
              '"$@" >/dev/null; rc=$?; echo "rc=$rc"; ls -A -I .filler "$f"')
    p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder), str(cwd), sys.executable, "-m",
                        "mathloop", *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=ENV)
    head, _, rest = p.stdout.partition("\n")
    assert head.startswith("rc="), (p.stdout, p.stderr)
    return subprocess.CompletedProcess(p.args, int(head[3:]), "", p.stderr), rest.split()


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A folder with a levinson-conrey store and a critical-line-zeros store, each with commits, and a bench spec."""
    tmp = tmp_path_factory.mktemp("outputs")
    why = _namespaces_work(tmp)
    if why:
        pytest.skip(why)
    for target, budget in (("levinson-conrey", "3"), ("critical-line-zeros", "2")):
        r = cli(["run", target, "--db", f"{target}.db", "--budget", budget, "--no-lean", "--no-progress"], tmp)
        assert r.returncode == 0, r.stderr
    (tmp / "bench.toml").write_text('[protocol]\ntargets = ["levinson-conrey"]\nbudget = 1\nseeds = [0]\n\n'
                                    '[[proposers]]\nname = "local"\nproposer = "local"\n', encoding="utf-8")
    return tmp


def outputs(d: str) -> dict[str, list[str]]:
    """Return {what: argv} writing each kind of output into folder `d`."""
    lc = ["--db", "levinson-conrey.db"]
    return {
        "graph html": ["graph", "levinson-conrey", *lc, "-o", f"{d}/g.html"],
        "graph dot": ["graph", "levinson-conrey", *lc, "-o", f"{d}/g.dot"],
        "graph svg": ["graph", "levinson-conrey", *lc, "-o", f"{d}/g.svg"],
        "plot": ["plot", "levinson-conrey", *lc, "-o", f"{d}/p.png"],
        "records": ["export", "levinson-conrey", *lc, "--records", f"{d}/r.jsonl"],
        "lean": ["export", "levinson-conrey", *lc, "--lean", f"{d}/lean"],
        "dataset": ["export", "levinson-conrey", *lc, "--dataset", f"{d}/ds"],
        "certificates": ["export", "critical-line-zeros", "--db", "critical-line-zeros.db", "--certificates",
                         f"{d}/certs"],
        "checkpoint": ["checkpoint", "levinson-conrey", *lc, "-o", f"{d}/cp.json"],
        "bench": ["bench", "bench.toml", "-o", f"{d}/bench", "--no-progress"],
        "store": ["run", "levinson-conrey", "--db", f"{d}/s.db", "--budget", "1", "--no-lean", "--no-progress"],
    }


def _one_line(r: subprocess.CompletedProcess, path: str, reason: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr, r.stderr
    assert path in lines[0] and reason in lines[0], lines[0]


@pytest.mark.parametrize("what", sorted(outputs("x")))
def test_a_read_only_folder_is_one_line_naming_the_path_and_exit_2(what, work):
    ro = work / f"ro-{what.replace(' ', '-')}"
    ro.mkdir()
    r, left = cli_on(ro, "ro", outputs(ro.name)[what], work)
    _one_line(r, ro.name, "Read-only file system")
    assert left == []


@pytest.mark.parametrize("what", sorted(outputs("x")))
def test_a_missing_folder_is_one_line_and_nothing_is_created(what, work):
    missing = f"missing-{what.replace(' ', '-')}"
    r = cli(outputs(f"{missing}/deeper")[what], work)
    _one_line(r, missing, "does not exist")
    assert not (work / missing).exists()


@pytest.mark.parametrize("what", ["graph html", "records", "lean", "certificates"])
def test_a_full_disk_leaves_nothing_half_written(what, work):
    full = work / f"full-{what.replace(' ', '-')}"
    full.mkdir()
    r, left = cli_on(full, "full", outputs(full.name)[what], work)
    _one_line(r, full.name, "No space left on device")
    assert left == [], f"left behind on the full disk: {left}"
