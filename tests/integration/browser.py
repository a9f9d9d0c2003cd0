"""A headless system Chromium driven by selenium with the system chromedriver (no browser download)."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def unavailable_reason() -> str | None:
    """Return why no real browser can be driven here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'mathloop[test]')"
    if not any(shutil.which(n) for n in CHROMIUM_NAMES):
        return "no Chromium here (Debian: apt-get install -y chromium chromium-driver)"
    if not shutil.which("chromedriver"):
        return "no chromedriver here (Debian: apt-get install -y chromium-driver)"
    return None


@contextmanager
def chromium(width: int = 1500, height: int = 1000):
    """Yield a headless Chromium WebDriver; quit it (and its processes) afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--disable-extensions", "--no-first-run"):
        opts.add_argument(arg)
    opts.binary_location = next(shutil.which(n) for n in CHROMIUM_NAMES if shutil.which(n))
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()
