"""Hostile input files: each is a clear error naming the file and the reason, exit 2, never a traceback."""

import json
import os
from pathlib import Path

import pytest

from mathloop.bounded import InputError, iter_lines, read_bytes
from tests.integration.cli import invoke

TARGET = "pair-correlation"


def check(path: Path, *extra: str, target: str = TARGET):
    return invoke("check", target, "--candidate", str(path), *extra)


def refused(result, words: str) -> None:
    assert result.exit_code == 2, result.output
    assert words in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe{\"x\": 1}", "not valid UTF-8"),
    (b'{"a": 1, "\xed\xa0\x80": 2}', "not valid UTF-8"),
    (b'{"\\ud800": 1}', "lone surrogate \\ud800 in a key"),
    (b'{"a": "\\udfff"}', "lone surrogate \\udfff in a string"),
    (b'{"a": NaN}', "non-finite number NaN"),
    (b'{"a": -Infinity}', "non-finite number -Infinity"),
    (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"a": ' + b"9" * 5000 + b"}", "not valid JSON"),
    (b"", "not valid JSON"),
    (b"{\"a\": 1} trailing", "not valid JSON"),
])
def test_bad_candidate_file_exits_2_with_the_reason(tmp_path, content, words):
    path = tmp_path / "c.json"
    path.write_bytes(content)
    refused(check(path), words)
    refused(check(path, "--json"), words)


def test_lone_surrogate_key_with_json_output_is_exit_2_not_an_encoding_crash(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"kappa\\udc80": "1/2"}', encoding="utf-8")
    r = check(path, "--json")
    refused(r, "lone surrogate")


def test_oversized_candidate_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:  # sparse: no disk or memory is used
        f.truncate(60_000_000)
    refused(check(path), "larger than the 50000000-byte limit")


@pytest.mark.parametrize("make, words", [
    (lambda p: os.mkfifo(p), "not a regular file"),
    (lambda p: p.mkdir(), "not a regular file"),
    (lambda p: None, "no such file"),
])
def test_special_or_missing_candidate_path_is_refused(tmp_path, make, words):
    path = tmp_path / "c.json"
    make(path)
    refused(check(path), words)


def test_device_file_is_not_read(tmp_path):
    with pytest.raises(InputError, match="not a regular file"):
        read_bytes("/dev/zero", 1000, "--candidate")


def test_file_growing_past_the_cap_while_read_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 10)
    real_fstat = os.fstat
    monkeypatch.setattr(os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 0, *real_fstat(fd)[7:])))
    with pytest.raises(InputError, match="larger than the 5-byte limit"):
        read_bytes(path, 5, "--candidate")


def test_over_long_line_is_skipped_without_being_held(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 5000 + b"\n" + b'{"b": 2}\n')
    assert [(n, line) for n, line in iter_lines(path, max_line=100)] == [(1, b'{"a": 1}'), (2, None), (3, b'{"b": 2}')]


def _manifest(tmp_path: Path, files) -> Path:
    d = tmp_path / "export"
    d.mkdir(exist_ok=True)
    path = d / "manifest.json"
    path.write_text(json.dumps({"format": "x", "target": "critical-line-zeros", "files": files}), encoding="utf-8")
    return path


@pytest.mark.parametrize("files, words", [
    (["chunk-000001.json"], "files[0]: must be an object with string keys file and sha256"),
    ([{"file": 3, "sha256": "0"}], "files[0]: must be an object"),
    ([{"file": "a.json"}], "files[0]: must be an object"),
    ([{"file": "../outside.json", "sha256": "0" * 64}], "missing or outside the export"),
    ([{"file": "missing.json", "sha256": "0" * 64}], "missing or outside the export"),
    ([], "manifest has no files"),
])
def test_bad_manifest_entry_exits_2(tmp_path, files, words):
    refused(check(_manifest(tmp_path, files), target="critical-line-zeros"), words)


def test_file_named_by_a_manifest_is_size_capped(tmp_path):
    m = _manifest(tmp_path, [{"file": "big.json", "sha256": "0" * 64}])
    with open(m.parent / "big.json", "wb") as f:
        f.truncate(2_000_000_000)  # the 2 GB entry of the report, sparse
    refused(check(m, target="critical-line-zeros"), "larger than the 50000000-byte limit")


def test_file_named_by_a_manifest_with_invalid_utf8_exits_2(tmp_path):
    import hashlib

    data = b'{"candidate": "\xff"}'
    m = _manifest(tmp_path, [{"file": "bad.json", "sha256": hashlib.sha256(data).hexdigest()}])
    (m.parent / "bad.json").write_bytes(data)
    refused(check(m, target="critical-line-zeros"), "not valid UTF-8")


def test_oversized_contract_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.toml"
    with open(path, "wb") as f:
        f.truncate(3_000_000_000)
    r = invoke("check", str(path), "--candidate", str(path))
    refused(r, "larger than 1000000 bytes")


def test_contract_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    path = tmp_path / "c.toml"
    os.mkfifo(path)
    refused(invoke("check", str(path), "--candidate", str(path)), "no such contract file")
