"""The HTML templates are package data: matched by pyproject's globs and rendered from a built (non-editable) tree."""

from __future__ import annotations

import fnmatch
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_every_template_is_named_by_a_package_data_glob_and_readable_as_a_resource():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    shipped = resources.files("mathloop.view").joinpath("templates")
    names = sorted(p.name for p in shipped.iterdir() if p.is_file())
    assert {"base.html", "macros.html", "graph.html", "graph.js", "page.css"} <= set(names)
    for name in names:
        assert any(fnmatch.fnmatch(f"view/templates/{name}", g) for g in globs["mathloop"]), name
        assert shipped.joinpath(name).read_text(encoding="utf-8")


@pytest.mark.slow  # builds the package tree a wheel holds (setup.py build_py), then renders from it
def test_pages_render_from_the_built_package_tree(tmp_path):
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "-d", str(tmp_path / "tree")], cwd=ROOT, check=True,
                   capture_output=True)
    assert (tmp_path / "tree" / "mathloop" / "view" / "templates" / "graph.js").read_bytes() == \
        (ROOT / "mathloop" / "view" / "templates" / "graph.js").read_bytes()
    code = ("import mathloop.web.pages as p, mathloop.view.markup as m; assert m.__file__.startswith(%r); "
            "print(p.error_page(404, '<b>x</b>'))" % str(tmp_path / "tree"))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(tmp_path / "tree"), "PATH": "/usr/bin:/bin"}).stdout
    assert "<h1>404</h1><p>&lt;b&gt;x&lt;/b&gt;</p>" in out and "<nav>" in out
