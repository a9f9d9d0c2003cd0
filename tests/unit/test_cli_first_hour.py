"""A newcomer's first commands: fast help, brackets that survive rich, extras named, read-only views, one count."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HEAVY = ("openai", "sqlmodel", "sqlalchemy", "numpy", "flint", "scipy", "matplotlib", "mpmath", "sympy", "networkx")


def _cli(args: list[str], cwd: Path, prelude: str = "", path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess:
    code = textwrap.dedent(prelude) + "\nimport sys\nfrom mathloop.cli.app import main\nsys.argv = ['mathloop', *sys.argv[1:]]\nmain()\n"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={"COLUMNS": "200", "NO_COLOR": "1", "PATH": path, "HOME": str(cwd)})


def test_help_imports_no_heavy_module(tmp_path):
    probe = ("import sys, atexit\n"
             "atexit.register(lambda: print('LOADED', sorted(m for m in %r if m in sys.modules), file=sys.stderr))\n"
             % (HEAVY,))
    r = _cli(["--help"], tmp_path, probe)
    assert r.returncode == 0, r.stderr
    assert "LOADED []" in r.stderr, r.stderr
    for name in ("run", "status", "graph", "export", "serve", "lean-check", "checkpoint"):
        assert re.search(rf"\b{name}\b", r.stdout)


def test_every_summary_and_command_resolves():
    from mathloop.cli.app import COMMANDS, build_command

    for name, (_module, _attr, summary) in COMMANDS.items():
        assert summary and len(summary) <= 76, name
        assert build_command(name).name == name


def _brackets(text: str) -> list[str]:
    return re.findall(r"\[[a-z#/@][^\[\]]*\]", text or "")


def test_help_strings_keep_their_brackets():
    from typer.testing import CliRunner

    from mathloop.cli.app import COMMANDS, app, build_command

    checked = 0
    for name in COMMANDS:
        command = build_command(name)
        texts = [command.help or ""] + [getattr(p, "help", "") or "" for p in command.params]
        out = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "300", "NO_COLOR": "1"}).output
        flat = re.sub(r"[\s│]+", " ", out)
        for text in texts:
            for tag in _brackets(text.replace("\\[", "[")):
                assert tag in flat, f"{name} --help lost {tag!r}"
                checked += 1
    assert checked >= 2  # export's [rewards], bench's [...] at least


def test_export_help_shows_the_rewards_table_name():
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    out = CliRunner().invoke(app, ["export", "--help"], env={"COLUMNS": "300", "NO_COLOR": "1"}).output
    assert "[rewards]" in out


def test_fail_prints_brackets_as_written(capsys):
    import typer

    from mathloop.cli.common import fail

    with pytest.raises(typer.Exit) as e:
        fail("needs the `ml` extra: pip install 'mathloop[ml]' ([rewards] table)")
    assert e.value.exit_code == 2
    assert "pip install 'mathloop[ml]' ([rewards] table)" in capsys.readouterr().err


BLOCK = """
import importlib.abc, sys
class _Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in %r:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _Hide())
"""


def test_plot_without_the_extra_names_it_and_exits_2(tmp_path):
    r = _cli(["plot", "levinson-conrey", "-o", "p.png"], tmp_path, BLOCK % (("matplotlib",),))
    assert r.returncode == 2, r.stderr
    assert "needs the `plot` extra: pip install 'mathloop[plot]'" in r.stderr
    assert "Traceback" not in r.stderr and not list(tmp_path.glob("*.db")) and not (tmp_path / "p.png").exists()


def test_graph_picture_without_dot_or_matplotlib_names_the_extra(tmp_path):
    r = _cli(["graph", "levinson-conrey", "-o", "g.svg"], tmp_path, BLOCK % (("matplotlib",),), path=str(tmp_path))
    assert r.returncode == 2, r.stderr
    assert "pip install 'mathloop[plot]'" in r.stderr and not list(tmp_path.glob("*.db"))


def test_dataset_export_without_the_extra_names_it(tmp_path):
    r = _cli(["export", "levinson-conrey", "--dataset", "ds"], tmp_path, BLOCK % (("pyarrow",),))
    assert r.returncode == 2, r.stderr
    assert "needs the `ml` extra: pip install 'mathloop[ml]'" in r.stderr
    assert not (tmp_path / "ds").exists() and not list(tmp_path.glob("*.db"))


@pytest.mark.parametrize("args", [["graph", "levinson-conrey"], ["graph", "levinson-conrey", "--format", "jpeg", "-o", "g.jpeg"],
                                  ["status", "levinson-conrey"], ["log", "levinson-conrey"],
                                  ["export", "levinson-conrey", "--records", "r.jsonl"]])
def test_read_only_commands_never_create_a_store(tmp_path, args):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    r = CliRunner().invoke(app, [*args, "--db", str(tmp_path / "m.db")], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert r.exit_code == 2, r.output
    assert list(tmp_path.iterdir()) == []


def test_read_only_commands_leave_a_store_byte_identical(tmp_path):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    db = tmp_path / "m.db"
    env = {"COLUMNS": "200", "NO_COLOR": "1"}
    assert CliRunner().invoke(app, ["run", "levinson-conrey", "--budget", "2", "--db", str(db), "--no-lean"],
                              env=env).exit_code == 0
    import sqlite3

    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for args in (["status", "levinson-conrey"], ["log", "levinson-conrey"], ["graph", "levinson-conrey"],
                 ["graph", "levinson-conrey", "-o", str(tmp_path / "g.dot")],
                 ["export", "levinson-conrey", "--records", str(tmp_path / "r.jsonl")]):
        r = CliRunner().invoke(app, [*args, "--db", str(db)], env=env)
        assert r.exit_code == 0, (args, r.output)
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name not in ("g.dot", "r.jsonl")}
    assert after.get("m.db") == before["m.db"]


def test_status_counts_are_the_lineage_counts(tmp_path):
    import json

    from typer.testing import CliRunner

    from mathloop.cli.app import app
    from mathloop.targets import load_contract
    from mathloop.store.engine import make_engine
    from mathloop.view.counts import lineage_counts

    db = tmp_path / "m.db"
    env = {"COLUMNS": "200", "NO_COLOR": "1"}
    assert CliRunner().invoke(app, ["run", "levinson-conrey", "--budget", "3", "--db", str(db), "--no-lean"],
                              env=env).exit_code == 0
    out = json.loads(CliRunner().invoke(app, ["status", "levinson-conrey", "--db", str(db), "--json"], env=env).output)
    counts = lineage_counts(make_engine(str(db), readonly=True), load_contract("levinson-conrey").sha256)
    assert out["commits"] == counts.commits == out["head"]["seq"] + 1
    assert out["labels"] == counts.labels and counts.candidates == sum(out["labels"].values())
    text = CliRunner().invoke(app, ["status", "levinson-conrey", "--db", str(db)], env=env).output
    assert counts.line() in text
