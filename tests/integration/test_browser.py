"""A person's path through `mathloop serve` in a real headless Chromium: index → target → graph → a node."""

from __future__ import annotations

import os

import pytest

from mathloop.targets import load_contract
from tests.integration.browser import chromium, unavailable_reason
from tests.integration.cli import ROOT, mathloop
from tests.integration.web_server import serving

pytestmark = [pytest.mark.browser, pytest.mark.skipif(unavailable_reason() is not None,
                                                      reason=unavailable_reason() or "")]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("browser") / "lc.db")
    proc = mathloop("run", "levinson-conrey", "--db", db, "--budget", "4", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return db


def _wait(driver, css: str, timeout: float = 20):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def _severe_console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def test_a_reader_clicks_from_the_index_to_a_bound_and_its_hypotheses(store, tmp_path):
    from selenium.webdriver.common.by import By

    contract = load_contract("levinson-conrey")
    with serving(store) as (url, _), chromium() as driver:
        driver.get(url + "/")
        link = _wait(driver, "a.target")
        assert link.text == "levinson-conrey"
        assert "kappa ≥ 0.4" in driver.find_element(By.ID, "targets").text
        link.click()

        bounds = _wait(driver, "#head-bounds")
        assert bounds.text.startswith("kappa ≥ 0.4")
        bounds_text = bounds.text
        rows = driver.find_elements(By.CSS_SELECTOR, "#commits tr")[1:]
        assert len(rows) >= 2 and rows[-1].text.startswith("0 ")  # newest first, the root last
        plot = driver.find_element(By.CSS_SELECTOR, "img.plot")
        assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", plot) > 0
        driver.find_element(By.ID, "graph-link").click()

        _wait(driver, "g.node")
        nodes = driver.find_elements(By.CSS_SELECTOR, "g.node")
        assert {n.get_attribute("data-id") for n in nodes} == {o.id for o in contract.obligations}
        hyp = driver.find_element(By.CSS_SELECTOR, 'g.node[data-id="conrey-mean-value"] rect.box')
        assert hyp.get_attribute("fill") == "#e1f5fe"  # hypothesis colour
        driver.find_element(By.CSS_SELECTOR, 'g.node[data-id="kappa-bound"]').click()
        panel = driver.find_element(By.ID, "panel").text
        for expected in ("kappa-bound", "certified value", "≥ 0.4", "class maximum", "0.408960000000 (numerical optimum)",
                         "trust level", "verdict", "depends on"):
            assert expected in panel, (expected, panel)
        driver.save_screenshot(str(tmp_path / "graph.png"))
        shot = os.environ.get("MATHLOOP_README_SCREENSHOT")
        if shot:  # the README's picture is taken by this test: MATHLOOP_README_SCREENSHOT=docs/img/serve-graph.png
            driver.save_screenshot(str(ROOT / shot))
        driver.find_element(By.CSS_SELECTOR, 'g.node[data-id="conrey-mean-value"]').click()
        panel = driver.find_element(By.ID, "panel").text
        assert "taken as given" in panel and "J. B. Conrey" in panel

        driver.find_element(By.ID, "nav-target").click()  # back to the target page from the graph
        assert _wait(driver, "#head-bounds").text == bounds_text
        driver.get(url + f"/t/{contract.sha256}/candidates?label=progress")
        table = _wait(driver, "#candidates")
        labels = {e.text for e in table.find_elements(By.CSS_SELECTOR, "span.lbl")}
        assert labels == {"progress"}
        assert _severe_console_errors(driver) == []  # no CSP violation, no script error
    assert (tmp_path / "graph.png").read_bytes().startswith(b"\x89PNG")
