"""The bracket [best primal, best ceiling] on the served pages of both paired lineages: the figures of `status`."""

from __future__ import annotations

import html
import json
import re
from fractions import Fraction

import httpx
import pytest

from mathloop.targets import load_contract
from tests.integration.browser import chromium, unavailable_reason
from tests.integration.cli import invoke
from tests.integration.web_server import serving

PAIR = ("pair-correlation-rh", "pair-correlation-rh-ceiling")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Return (db, {target: status --json}) of a store where both lineages have certified commits."""
    db = str(tmp_path_factory.mktemp("bracket") / "pair.db")
    for name in PAIR:  # in-process CLI (the console script's code path), to keep the default tier fast
        res = invoke("run", name, "--db", db, "--budget", "1", "--no-progress")
        assert res.exit_code == 0, res.output
    out = {}
    for name in PAIR:
        res = invoke("status", name, "--db", db, "--json")
        assert res.exit_code == 0, res.output
        out[name] = json.loads(res.output)
    return db, out


def _bracket_text(page: str) -> str:
    m = re.search(r'id="bracket">([^<]*)<', page)
    assert m, "no bracket on the page"
    return html.unescape(m.group(1))


@pytest.mark.slow  # > 2 s: the default tier stays under 3 minutes
def test_served_graph_and_target_pages_of_both_lineages_show_the_status_bracket(store):
    db, status = store
    texts = {status[name]["bracket"]["text"] for name in PAIR}
    assert len(texts) == 1  # one bracket for the class, whichever side status is asked about
    br = status[PAIR[0]]["bracket"]
    assert br["consistent"] and br["primal"]["value"] and br["ceiling"]["value"] and Fraction(br["width"]) > 0
    want = texts.pop()
    assert re.fullmatch(r"\[0\.67\d{8}, 0\.\d{10}\] \(width 0\.\d{10}\)", want)
    with serving(db) as (url, _):
        for name in PAIR:
            sha = load_contract(name).sha256
            for path in (f"/t/{sha}/graph", f"/t/{sha}"):
                page = httpx.get(url + path)
                assert page.status_code == 200
                assert _bracket_text(page.text).endswith(want), (name, path)
            head = status[name]["head"]["commit"]
            older = httpx.get(f"{url}/t/{sha}/graph", params={"commit": head})
            assert _bracket_text(older.text).endswith(want)


@pytest.mark.browser
@pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")
def test_a_reader_sees_the_bracket_and_its_width_on_both_graph_pages(store):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    db, status = store
    want = status[PAIR[1]]["bracket"]["text"]
    with serving(db) as (url, _), chromium() as driver:
        for name in PAIR:
            driver.get(f"{url}/t/{load_contract(name).sha256}/graph")
            el = WebDriverWait(driver, 20).until(ec.visibility_of_element_located((By.ID, "bracket")))
            assert el.is_displayed() and el.text.endswith(want) and "ASSUMING RH" in el.text, (name, el.text)
            assert "width" in el.text
        errors = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == []
