"""The API key never reaches the store, the output, an export or a log, whatever the model server echoes.

A hostile server reads the key from the Authorization header and echoes it into every field it
controls, in every spelling that decodes to it. The real CLI runs a session against it; then the
SQLite file (and its WAL), stdout/stderr, `export --records`, `status` and `log` are scanned for the
key with a scanner written independently of the redactor (literal, JSON-escaped, percent-encoded,
split by invisible characters, and any 12-character run of it).
"""

from __future__ import annotations

import base64
import codecs
import json
import logging
import re
import urllib.parse
from pathlib import Path

import pytest

from mathloop.propose.base import StopSession
from mathloop.propose.redact import Redactor
from tests.integration.cli import invoke, mathloop
from tests.support.hostile_server import HostileServer, Seen, Wire, completion_body, send_json
from tests.unit.test_openai_proposer import GOOD, context, proposer

KEY = "sk-hostile-0123456789abcdefXYZ-secret"
FRAGMENT = 12


def _escaped(key: str, upper: bool = False) -> str:
    return "".join((f"\\u{ord(c):04X}" if upper else f"\\u{ord(c):04x}") for c in key)


def _payload(value: str) -> str:
    return '{"P": ["0", "1"], "Q": ["1", "-1"], "R": "' + value + '"}'


def _content(text_of_key) -> object:
    """Return a behaviour answering a completion whose content is text_of_key(key)."""
    return lambda seen, wire: send_json(wire, completion_body(text_of_key(seen.key)))


def _fields(**spec) -> object:
    def behaviour(seen: Seen, wire: Wire) -> None:
        k = seen.key
        kw = {name: (f(k) if callable(f) else f) for name, f in spec.items()}
        send_json(wire, completion_body(kw.pop("content", json.dumps(GOOD)), **kw))
    return behaviour


def _error(status: int, reason_is_key: bool = True) -> object:
    def behaviour(seen: Seen, wire: Wire) -> None:
        k = seen.key
        body = {"error": {"message": f"Incorrect API key provided: {k}", "code": k, "echo": {"authorization": f"Bearer {k}"}}}
        send_json(wire, body, status, k if reason_is_key else "Error", {"X-Echo-Authorization": f"Bearer {k}",
                                                                      "Retry-After": "0"})
    return behaviour


ECHOES = [  # (id, behaviour): every field and spelling a server controls
    ("content-literal", _content(lambda k: _payload(k))),
    ("content-json-escaped", _content(lambda k: _payload(_escaped(k)))),
    ("content-json-escaped-upper", _content(lambda k: _payload(_escaped(k, upper=True)))),
    ("content-first-char-escaped", _content(lambda k: _payload("\\u0073" + k[1:]))),
    ("content-double-escaped", _content(lambda k: _payload("\\\\u0073" + k[1:]))),
    ("content-slash-escaped", _content(lambda k: _payload(k.replace("-", "\\-")))),
    ("content-free-text", _content(lambda k: f"My key is {k}. " + json.dumps(GOOD))),
    ("content-zero-width-split", _content(lambda k: _payload(k[:9] + "\u200b" + k[9:20] + "\u00ad" + k[20:]))),
    ("content-newline-split", _content(lambda k: _payload(k[:15] + "\\n" + k[15:]))),
    ("content-percent-encoded", _content(lambda k: "see " + "".join(f"%{ord(c):02X}" for c in k) + " " + json.dumps(GOOD))),
    ("content-key-as-object-key", _content(lambda k: json.dumps({**GOOD, k: 1}))),
    ("content-int-over-limit", _content(lambda k: '{"R": "' + k + '", "x": ' + "9" * 5000 + "}")),
    ("content-truncated", _fields(content=lambda k: '{"R": "' + k, finish_reason="length")),
    ("content-over-char-cap", _content(lambda k: k + " " * 70_000)),
    ("finish-reason", _fields(finish_reason=lambda k: k)),
    ("model-name", _fields(model=lambda k: k)),
    ("split-across-fields", _fields(finish_reason=lambda k: k[:19], model=lambda k: k[19:])),
    ("tool-call-arguments", _fields(content=None, tool_calls=lambda k: [
        {"id": k, "type": "function", "function": {"name": k, "arguments": json.dumps({"key": k})}}])),
    ("content-base64-in-a-longer-text", _content(lambda k: "token " + base64.b64encode(b"id=7;" + k.encode()).decode()
                                                  + " " + json.dumps(GOOD))),
    ("content-urlsafe-base64-offset-2", _content(lambda k: base64.urlsafe_b64encode(b"ab" + k.encode()).decode() + json.dumps(GOOD))),
    ("content-hex", _content(lambda k: _payload(k.encode().hex().upper()))),
    ("content-reversed", _content(lambda k: _payload(k[::-1]))),
    ("content-rot13", _content(lambda k: _payload(codecs.encode(k, "rot13")))),
    ("server-error-body-status-text-headers", _error(503)),
    ("format-refusal-body", _error(400)),
]


def _decoded(text: str) -> str:
    """Undo the encodings a leak could hide behind (independently of mathloop's redactor)."""
    out = text
    for _ in range(4):
        out = out.replace("\\\\", "\\")
    out = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), out)
    out = urllib.parse.unquote(out)
    return re.sub(r"[\u200b\u00ad\ufeff]|\\[nrt]|\s", "", out.replace("\\-", "-"))


def _unencoded(text: str) -> list[str]:
    """Return `text` read back from reversal, rot13, hex and (every offset of) base64, independently of the redactor."""
    out = [text[::-1], codecs.encode(text, "rot13")]
    for run in re.findall(r"[0-9a-fA-F]{24,}", text):
        out.append(bytes.fromhex(run[: len(run) // 2 * 2]).decode("latin-1"))
    for run in re.findall(r"[A-Za-z0-9+/_-]{16,}", text):
        for skip in range(4):
            part = run[skip:]
            part = part[: len(part) // 4 * 4]
            for alt in (b"+/", b"-_"):
                try:
                    out.append(base64.b64decode(part.encode(), altchars=alt).decode("latin-1"))
                except ValueError:
                    pass
    return out


def leaked(text: str, key: str = KEY) -> list[str]:
    """Return the 12-character runs of `key` found in `text`, in its decoded form or re-encoded."""
    views = (text, _decoded(text), *_unencoded(text))
    return sorted({key[i:i + FRAGMENT] for i in range(len(key) - FRAGMENT + 1) for v in views if key[i:i + FRAGMENT] in v})


def test_the_scanner_sees_every_spelling_it_must():
    for spelled in (KEY, _escaped(KEY), "\\\\u0073" + KEY[1:], KEY[:9] + "\u200b" + KEY[9:],
                    urllib.parse.quote(KEY), json.dumps({"x": "\\u0073" + KEY[1:]})):
        assert leaked(f"prefix {spelled} suffix"), spelled
    for spelled in (base64.b64encode(b"x" + KEY.encode()).decode(), KEY.encode().hex(), KEY[::-1], codecs.encode(KEY, "rot13")):
        assert leaked(f"prefix {spelled} suffix"), spelled
    assert leaked("[redacted] sk-hostile- and other words") == []


@pytest.mark.parametrize("case,behaviour", ECHOES, ids=[c[0] for c in ECHOES])
def test_an_echoed_key_is_redacted_from_the_proposal(case, behaviour, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with HostileServer([behaviour], default=_fields()) as srv:
        prop = proposer(srv, max_retries=1, max_consecutive_failures=3)
        props = prop.propose(context())
        assert srv.seen[0].key == KEY  # the server really had it
    recorded = json.dumps([[p.payload, dict(p.meta), p.malformed] for p in props], default=str, ensure_ascii=False)
    assert leaked(recorded) == [], recorded[:2000]
    assert leaked(json.dumps([[p.payload, dict(p.meta), p.malformed] for p in props], default=str)) == []


def test_a_key_echoed_in_the_last_error_does_not_reach_the_stop_message(monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    with HostileServer([], default=_error(401)) as srv:
        with pytest.raises(StopSession) as stop:
            proposer(srv, max_retries=0, max_consecutive_failures=2).propose(context())
    assert "HTTP 401" in str(stop.value) and "[redacted]" in str(stop.value)
    assert leaked(str(stop.value)) == [] and leaked(repr(stop.value)) == []
    assert "HTTP Request" in caplog.text or "401" in caplog.text  # the HTTP stack did log the status text ...
    assert leaked(caplog.text) == [], caplog.text[-2000:]  # ... redacted


def test_the_redactor_keeps_text_without_the_key_and_short_public_prefixes():
    r = Redactor(KEY)
    text = 'sk-hostile- is our prefix; {"R": "13/10"} \\u0041 100% done'
    assert r(text) == text
    assert r(f"a{KEY}b") == "a[redacted]b" and r(KEY[5:20]) == "[redacted]"
    assert r.value({KEY: [KEY, 1]}) == {"[redacted]": ["[redacted]", 1]}
    assert r("deadbeef0123 cGFzc3dvcmQ= 2026-12-01 drow") == "deadbeef0123 cGFzc3dvcmQ= 2026-12-01 drow"
    short = Redactor("abc-token")  # shorter than 12: literal only (its hex or reversal would hit ordinary text)
    assert short("abc-token nekot-cba 6162632d746f6b656e") == "[redacted] nekot-cba 6162632d746f6b656e"
    assert repr(r) == "Redactor(<hidden>)"


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_a_cli_session_against_an_echoing_server_leaves_no_trace_of_the_key(tmp_path: Path):
    db = tmp_path / "leak.db"
    script = [b for _, b in ECHOES]
    with HostileServer(script, default=_error(401)) as srv:
        run = mathloop("run", "levinson-conrey", "--db", str(db), "--proposer", "openai", "--model", "m",
                       "--base-url", srv.url, "--budget", "60", "--samples", "1", "--no-progress", "--no-lean",
                       "--request-timeout", "10", env={"OPENAI_API_KEY": KEY}, timeout=240)
        assert all(s.key == KEY for s in srv.seen) and len(srv.seen) >= len(ECHOES)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "proposer stopped" in run.stdout and "HTTP 401" in run.stdout
    records = tmp_path / "records.jsonl"
    export = invoke("export", "levinson-conrey", "--db", str(db), "--records", str(records))
    status = invoke("status", "levinson-conrey", "--db", str(db), "--json")
    log = invoke("log", "levinson-conrey", "--db", str(db), "--json")
    assert export.exit_code == status.exit_code == log.exit_code == 0, export.output + status.output + log.output
    texts = {"stdout": run.stdout, "stderr": run.stderr, "records": records.read_text(encoding="utf-8"),
             "status": status.output, "log": log.output, "export-out": export.output}
    for f in tmp_path.glob("leak.db*"):  # the database, its WAL and shared memory
        texts[f.name] = f.read_bytes().decode("latin-1")
        texts[f.name + " (utf-8)"] = f.read_bytes().decode("utf-8", "replace")
    rows = [json.loads(line) for line in texts["records"].splitlines()]
    assert len(rows) >= len(ECHOES) - 4  # every reply that arrived is recorded (errors are not candidates)
    assert "[redacted]" in texts["records"]
    found = {name: leaked(text) for name, text in texts.items()}
    assert all(v == [] for v in found.values()), {k: v for k, v in found.items() if v}


def test_an_error_body_is_redacted_before_it_is_cut_so_no_piece_of_the_key_survives(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    behaviour = lambda seen, wire: send_json(wire, None, 401, "Unauthorized", raw="x" * 292 + seen.key)  # noqa: E731
    with HostileServer([], default=behaviour) as srv:
        with pytest.raises(StopSession) as stop:
            proposer(srv, max_retries=0, max_consecutive_failures=1).propose(context())
    assert "HTTP 401: " + "x" * 292 + "[redac" in str(stop.value) and KEY[:5] not in str(stop.value)
