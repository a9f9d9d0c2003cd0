"""`check --json` answers a candidate file it refuses as a whole with one JSON refusal on stdout, exit 2.

The same fields as the other malformed answers ({"ok": false, "malformed": true, "bounds": {}, "reasons"}),
and the one-line error on stderr as without --json.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from mathloop.cli.app import app


def _check(target: str, path, *extra: str):
    return CliRunner().invoke(app, ["check", target, "--candidate", str(path), *extra],
                              env={"COLUMNS": "200", "NO_COLOR": "1"})


def _bad_npy(path):
    np.save(path, np.zeros((2, 2)))  # a 2-D array: not a step function's heights


FILES = {
    "nan literal": ("levinson-conrey", "c.json", lambda p: p.write_text('{"R": NaN}'), "NaN"),
    "deep nesting": ("levinson-conrey", "c.json", lambda p: p.write_text("[" * 5000 + "]" * 5000), "nest"),
    "invalid utf-8": ("levinson-conrey", "c.json", lambda p: p.write_bytes(b'{"R": "\xff\xfe"}'), "UTF-8"),
    "duplicate key": ("levinson-conrey", "c.json", lambda p: p.write_text('{"R": "1", "R": "2"}'), "duplicate"),
    "bad npy": ("sidon-autocorrelation", "c.npy", _bad_npy, "one-dimensional"),
}


@pytest.mark.parametrize("case", sorted(FILES))
def test_a_file_level_refusal_prints_one_json_object_and_exits_2(case, tmp_path):
    target, name, write, word = FILES[case]
    path = tmp_path / name
    write(path)
    plain = _check(target, path)
    r = _check(target, path, "--json")
    assert r.exit_code == plain.exit_code == 2, (r.stdout, r.stderr)
    answer = json.loads(r.stdout)  # exactly one JSON document on stdout
    assert answer["ok"] is False and answer["malformed"] is True and answer["bounds"] == {}
    assert len(answer["reasons"]) == 1 and word.lower() in answer["reasons"][0].lower(), answer
    assert str(path) in answer["reasons"][0]
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error:"), r.stderr
    assert plain.stdout == ""  # without --json, the one line on stderr is the whole answer


def test_a_schema_refusal_keeps_the_same_json_fields(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"not_a_field": 1}')
    r = _check("levinson-conrey", path, "--json")
    assert r.exit_code == 2
    answer = json.loads(r.stdout)
    assert {"ok", "malformed", "bounds", "reasons"} <= set(answer) and answer["malformed"] is True


def test_a_refused_certificate_manifest_prints_its_json_refusal(tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"files": [{"file": "../x", "sha256": "00"}]}')
    r = _check("critical-line-zeros", manifest, "--json")
    assert r.exit_code == 2
    answer = json.loads(r.stdout)
    assert answer["malformed"] is True and "outside the export" in answer["reasons"][0]
