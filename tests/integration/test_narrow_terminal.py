"""An 80-column terminal: no help cuts a flag name, no table splits a hash or a certified value, no line overflows.

Run as a user runs it (the real CLI in-process with COLUMNS=80), on a store with a real session's commits.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from mathloop.cli.app import COMMANDS, app, build_command

WIDTH = 80


@pytest.fixture(scope="module", autouse=True)
def narrow_console():
    """The CLI's rich console takes its width from COLUMNS when first imported: set it as a fresh process would."""
    from mathloop.cli.common import console

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(console, "width", WIDTH)
        yield


def _run(*args: str) -> str:
    res = CliRunner().invoke(app, list(args), env={"COLUMNS": str(WIDTH), "NO_COLOR": "1"}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def _fits(out: str) -> None:
    long = [line for line in out.splitlines() if len(line) > WIDTH]
    assert long == [], long


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_every_flag_whole_at_80_columns(name):
    out = _run(name, "--help")
    _fits(out)
    for param in build_command(name).params:
        for flag in (*param.opts, *param.secondary_opts):
            if flag.startswith("--"):
                assert re.search(rf"(^|[\s/,]){re.escape(flag)}($|[\s,=])", out, flags=re.M), f"{name}: {flag} cut"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    db = str(tmp_path_factory.mktemp("narrow") / "m.db")
    res = CliRunner().invoke(app, ["run", "levinson-conrey", "--db", db, "--budget", "6", "--no-lean", "--no-progress"],
                             env={"COLUMNS": str(WIDTH), "NO_COLOR": "1"}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    _fits(res.output)  # the run's summary table too
    return db


def _values_and_hashes(db: str) -> tuple[list[str], list[str]]:
    import json

    commits = json.loads(_run("log", "levinson-conrey", "--db", db, "--json"))
    assert len(commits) >= 5
    return [c["bounds"]["kappa"] for c in commits], [c["commit"][:12] for c in commits]


def test_log_keeps_every_hash_and_value_on_one_line(store):
    out = _run("log", "levinson-conrey", "--db", store)
    _fits(out)
    values, hashes = _values_and_hashes(store)
    for token in values + hashes:
        assert token in out, f"{token} split across lines:\n{out}"


def test_status_and_targets_fit_80_columns(store):
    out = _run("status", "levinson-conrey", "--db", store)
    _fits(out)
    assert _values_and_hashes(store)[0][-1] in out
    _fits(_run("targets"))
