"""README and the docs are written for users: no words of how the project is made, and every extra named.

Machine paths (/tmp, /work), issue numbers, who measured (helpers, the lead), the measuring protocol's lock and
work "waves" mean nothing to a reader of a clone: they are refused here wherever they come back.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").rglob("*.md")])
INTERNAL = {
    "a machine path": r"/tmp/|/work/",
    "an issue of the project": r"\bissues?\b",
    "the measuring lock": r"\bbench(mark)?[ .]lock\b|\bflock\b",
    "who measured": r"\bhelpers?\b|\bthe lead\b|\(lead\b",
    "a work wave": r"\bwaves?\b",
    "a review number": r"\breview ?\d+\b",
}


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_public_pages_carry_no_internal_words(page):
    found = [f"{page.relative_to(ROOT)}:{n}: {what}: {m.group(0)!r}"
             for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             for what, pattern in INTERNAL.items() for m in re.finditer(pattern, line, flags=re.I)]
    assert found == []


def _extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["optional-dependencies"]) - {"test"}


def test_the_readme_names_every_optional_extra():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"Optional extras \(([^)]*)\)", text)
    assert listed is not None, "README: the sentence 'Optional extras (`a`, `b`, …)' is gone"
    assert set(re.findall(r"`([\w-]+)`", listed.group(1))) == _extras()


def test_the_guide_tables_every_optional_extra():
    text = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    assert set(re.findall(r"^\| `([\w-]+)` \|", text, flags=re.M)) >= _extras()
