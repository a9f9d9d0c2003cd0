"""Hostile replay files: a bad line is that line's `malformed` record; an unreadable file is exit 2 naming it.

Why this split: a replay file is a list of recorded candidates (often a model's raw output); one
broken line says nothing about the others, so it is recorded with its line number and reason and
the replay goes on. A file that cannot be opened at all has no lines to record: that is the
user's error, shown before the session starts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mathloop.propose.replay import MAX_LINE_BYTES, ReplayFileError, ReplayProposer
from tests.integration.cli import invoke, mathloop
from tests.unit.test_openai_proposer import GOOD, context

GOOD_LINE = json.dumps(GOOD).encode()

BAD_LINES = [  # (id, raw line, reason)
    ("invalid-utf8", b'{"R": "\xff\xfe"}', "not UTF-8 (byte 8"),
    ("overlong-utf8-encoding", b'{"R": "\xc0\xaf"}', "not UTF-8"),
    ("utf16-bytes", '{"R": "1"}'.encode("utf-16"), "not UTF-8"),
    ("nul-byte", b'{"R": "1\x00"}', "NUL byte at character 9"),
    ("nul-outside-strings", b'\x00{"R": "1"}', "NUL byte at character 1"),
    ("json-list", b'[1, 2, 3]', "expected a JSON object, got list"),
    ("json-number", b"42", "expected a JSON object, got int"),
    ("json-string", b'"hello"', "expected a JSON object, got str"),
    ("json-null", b"null", "expected a JSON object, got NoneType"),
    ("integer-over-4300-digits", b'{"R": ' + b"1" * 5000 + b"}", "4300 digits"),
    ("nan", b'{"R": NaN}', "non-finite number NaN"),
    ("duplicate-keys", b'{"R": "1", "R": "2"}', "duplicate key 'R'"),
    ("nested-too-deeply", b"[" * 50_000 + b"]" * 50_000, "nested too deeply"),
    ("truncated", b'{"P": ["0", "1"], "Q"', "not JSON"),
    ("trailing-garbage", GOOD_LINE + b" trailing", "not JSON"),
]


def _replay(tmp_path: Path, data: bytes) -> ReplayProposer:
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    return ReplayProposer(path)


@pytest.mark.parametrize("case,line,reason", BAD_LINES, ids=[c[0] for c in BAD_LINES])
def test_a_bad_line_is_malformed_naming_the_line_and_the_next_line_still_replays(tmp_path, case, line, reason):
    props = _replay(tmp_path, GOOD_LINE + b"\n" + line + b"\n" + GOOD_LINE + b"\n").propose(context(samples=5))
    assert [p.malformed is None for p in props] == [True, False, True]
    assert props[1].malformed.startswith("r.jsonl line 2: ") and reason in props[1].malformed, props[1].malformed
    json.dumps([p.payload for p in props], ensure_ascii=False).encode("utf-8")  # storable


def test_a_line_over_the_cap_is_skipped_without_being_held_whole(tmp_path):
    huge = b'{"R": "' + b"1" * (3 * MAX_LINE_BYTES) + b'"}'
    props = _replay(tmp_path, huge + b"\n" + GOOD_LINE + b"\n").propose(context(samples=5))
    assert props[0].malformed == f"r.jsonl line 1: longer than {MAX_LINE_BYTES} bytes" and props[0].payload is None
    assert props[1].payload == GOOD and props[1].meta["replay"]["line"] == 2


def test_an_overlong_last_line_without_newline_is_malformed(tmp_path):
    props = _replay(tmp_path, GOOD_LINE + b"\n" + b"x" * (MAX_LINE_BYTES + 5)).propose(context(samples=5))
    assert props[1].malformed == f"r.jsonl line 2: longer than {MAX_LINE_BYTES} bytes"


def test_lone_surrogates_become_storable_replacement_characters(tmp_path):
    [p] = _replay(tmp_path, b'{"R": "\\ud800", "\\udfff": 1}\n').propose(context())
    assert p.malformed is None and p.payload == {"R": "\ufffd", "\ufffd": 1}


def test_a_byte_order_mark_crlf_and_blank_lines_are_not_errors(tmp_path):
    data = b"\xef\xbb\xbf" + GOOD_LINE + b"\r\n\r\n   \r\n" + json.dumps({"payload": GOOD, "meta": {"src": "x"}}).encode()
    props = _replay(tmp_path, data).propose(context(samples=5))
    assert [p.payload for p in props] == [GOOD, GOOD] and props[1].meta["untrusted_line_meta"] == {"src": "x"}
    assert props[1].meta["replay"]["line"] == 4 and "src" not in props[1].meta


def test_a_directory_is_refused_naming_the_file(tmp_path):
    with pytest.raises(ReplayFileError, match=r"^replay file .*: not a regular file"):
        ReplayProposer(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "secret.jsonl"
    path.write_bytes(GOOD_LINE)
    path.chmod(0)
    with pytest.raises(ReplayFileError, match=r"secret.jsonl: Permission denied"):
        ReplayProposer(path)


def test_the_cli_refuses_an_unopenable_replay_file_with_exit_2(tmp_path):
    res = mathloop("run", "levinson-conrey", "--db", str(tmp_path / "x.db"), "--proposer", f"replay:{tmp_path}",
                   "--no-progress", "--no-lean")
    assert res.returncode == 2 and str(tmp_path) in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_a_session_over_a_hostile_replay_file_records_every_line_and_audits(tmp_path):
    lines = [line for _, line, _ in BAD_LINES] + [b"x" * (MAX_LINE_BYTES + 1), b'{"R": "\\ud800"}']
    replay = tmp_path / "hostile.jsonl"
    replay.write_bytes(b"\n".join(lines) + b"\n")
    db = str(tmp_path / "h.db")
    res = invoke("run", "levinson-conrey", "--db", db, "--proposer", f"replay:{replay}", "--no-progress", "--no-lean",
                 "--budget", "100")
    assert res.exit_code == 0, res.output
    status = json.loads(invoke("status", "levinson-conrey", "--db", db, "--json").output)
    assert status["labels"]["malformed"] == len(lines)
    out = tmp_path / "records.jsonl"
    assert invoke("export", "levinson-conrey", "--db", db, "--records", str(out)).exit_code == 0
    reasons = [" ".join(json.loads(r)["reasons"]) for r in out.read_text().splitlines()]
    replayed = [r for r in reasons if "hostile.jsonl line" in r]
    assert len(replayed) == len(lines) - 1  # the last line parses; the target's parser refuses it
    assert invoke("audit", "levinson-conrey", "--db", db).exit_code == 0
