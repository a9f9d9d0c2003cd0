"""The README stays a short front page and every page it or the site's navigation names is there (or owned elsewhere)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# pages other parts of the project write; the nav hook leaves them out of the site until they exist
OWNED_ELSEWHERE = {"docs/targets/sidon-autocorrelation.md", "docs/targets/erdos-minimum-overlap.md",
                   "docs/targets/shannon-capacity-c7.md", "docs/lean.md", "docs/przz.md"}


def test_readme_is_a_short_front_page_with_the_two_set_up_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert "pip install -e '.[lean,test]' && pytest" in text  # the test command .ci/run runs
    assert "pip install -e '.[lean]' && mathloop run levinson-conrey" in text
    for verb in ("mathloop run", "mathloop status", "mathloop graph", "--lean", "mathloop serve"):
        assert verb in text


def test_every_relative_link_of_the_readme_exists():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" in link:
            continue
        assert (ROOT / link).exists() or link in OWNED_ELSEWHERE, link


def test_every_nav_page_exists_or_is_owned_elsewhere():
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in re.findall(r"([\w./-]+\.md)\s*$", text, flags=re.M):
        assert (ROOT / "docs" / page).is_file() or f"docs/{page}" in OWNED_ELSEWHERE, page


def test_the_verl_page_says_no_manager_calls_a_batch_function():
    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    assert "serves verl's batch reward manager" not in text
    assert "once per row" in text and "no 0.9 manager calls one" in text


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or "mkdocs"
    r = subprocess.run([mkdocs, "build", "--strict", "-d", str(tmp_path / "site")], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "env" / "index.html").is_file()
