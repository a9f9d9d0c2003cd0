"""`mathloop targets` at 80 columns: one block per target, no word (id, title word, hash prefix) split across lines."""

from __future__ import annotations

import json
import re

from tests.integration.cli import invoke


def _tokens(text: str) -> set[str]:
    return {t.strip(",;()") for t in text.split()}


def test_targets_at_80_columns_keeps_every_word_whole(monkeypatch):
    from mathloop.cli.common import console

    rows = json.loads(invoke("targets", "--json").output)
    monkeypatch.setattr(console, "width", 80)
    out = invoke("targets").output
    lines = out.splitlines()
    assert lines and max(len(l) for l in lines) <= 80
    seen = _tokens(out)
    for r in rows:
        assert "error" not in r, r
        words = [r["name"], r["implementation"], r["contract_sha256"][:12], *r["bounds"],
                 *(w.strip(",;()") for w in r["title"].split()), *(w.strip(",;()") for w in r["rests_on"].split())]
        split = [w for w in words if w and w not in seen]
        assert not split, (r["name"], split)
    # every target has its own head line, its title indented, its bounds line and what they rest on
    assert sum(1 for l in lines if re.match(r"^\S+  [0-9a-f]{12}  ", l)) == len(rows)
    assert sum(1 for l in lines if l.startswith("    bounds: ")) == len(rows)
    assert sum(1 for l in lines if l.startswith("    rests on (taken as given): ")) == len(rows)
