"""Hostile stored text in a real headless Chromium: every page of `mathloop serve` shows it as text, runs none
of it, and the strict CSP is never even tested (no violation in the console); the store is left byte-identical."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from sqlalchemy import text

from mathloop.targets import load_contract
from mathloop.domain import Label
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.browser import chromium, unavailable_reason
from tests.integration.cli import mathloop
from tests.integration.web_server import serving

pytestmark = [pytest.mark.browser, pytest.mark.skipif(unavailable_reason() is not None,
                                                      reason=unavailable_reason() or "")]

# Each would mark the page if it ever ran: a script, an event handler, a javascript: URL, a broken-out attribute.
MARK = "document.documentElement.dataset.pwned='{where}'"
HOSTILE = ('<script>{m}</script><img src=x onerror="{m}"><a href="javascript:{m}">x</a>'
           '"><svg onload="{m}"></svg><iframe srcdoc="<script>{m}</script>"></iframe>')


def evil(where: str) -> str:
    return HOSTILE.format(m=MARK.format(where=where))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hostile")
    db = str(directory / "h.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "2", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    repo = Repository(make_engine(db))
    contract = load_contract("levinson-conrey")
    head = repo.head(contract.sha256)
    for i in range(2):  # what a hostile model or proposer could leave in the memory
        repo.record(contract_sha=contract.sha256, session_id=None, head_commit=head.hash,
                    payload={"P": [evil("payload")], "note": evil("payload key")}, proposer=evil("proposer"),
                    meta={"model": evil("model name")}, label=Label.MALFORMED, reasons=[evil("reason")], evidence=None)
    with repo.engine.begin() as c:  # and what a hand edit could leave in the displayed columns
        c.execute(text("UPDATE contracts SET name = :n, target = :t, text = replace(text, :old, :new)"),
                  {"n": evil("contract name"), "t": evil("contract target"), "old": 'title = "Levinson–Conrey',
                   "new": "title = '''" + evil("contract title") + "''' #"})
        c.execute(text("UPDATE candidates SET label = :l WHERE id = (SELECT max(id) FROM candidates)"),
                  {"l": evil("label")})
    repo.engine.dispose()
    return db


def _digest(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def test_hostile_stored_text_is_shown_escaped_and_never_runs(store):
    from selenium.webdriver.common.by import By

    directory = Path(store).parent
    before = _digest(directory)
    sha = load_contract("levinson-conrey").sha256
    with serving(store) as (url, _), chromium() as driver:
        driver.get(f"{url}/t/{sha}/candidates")
        ids = sorted({int(m) for m in re.findall(r"/candidate/(\d+)", driver.page_source)})[-3:]
        commits = set(re.findall(r"/commit/([0-9a-f]{64})", driver.get(f"{url}/t/{sha}") or driver.page_source))
        paths = ["/", f"/t/{sha}", f"/t/{sha}/graph", f"/t/{sha}/candidates", f"/t/{sha}/candidates?label=malformed"]
        paths += [f"/candidate/{i}" for i in ids] + [f"/commit/{h}" for h in sorted(commits)]
        shown = set()
        for path in paths:
            driver.get(url + path)
            assert driver.execute_script("return document.documentElement.dataset.pwned || null") is None, path
            assert not driver.find_elements(By.CSS_SELECTOR, "img[src='x'], svg[onload], iframe, a[href^='javascript']"), path
            body = driver.find_element(By.TAG_NAME, "body").text
            shown |= {w for w in ("payload", "proposer", "model name", "reason", "contract name", "contract target",
                                  "contract title", "label") if MARK.format(where=w) in body}
            severe = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
            assert severe == [], (path, severe)  # no script error, no CSP violation: nothing tried to run
    # every hostile string appears somewhere as visible text (escaped, not dropped)
    assert shown >= {"payload", "proposer", "model name", "reason", "contract name", "contract target", "contract title",
                     "label"}, shown
    assert _digest(directory) == before
