"""The README's `pip install -e '.[lean,test]' && pytest` installs every module the default tier imports.

`--doctest-modules` imports every module under tests/ and mathloop/ (support files included), so each
of their module-level imports must come from the core dependencies or the `lean`/`test` extras; so must
every `pytest.importorskip` of a default-tier test (a module missing there is coverage silently lost).
Read with `ast`; distributions are resolved through the installed metadata (transitively).
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
README_EXTRAS = ("lean", "test")  # what README's test command installs: `pip install -e '.[lean,test]'`
SLOW_MARKS = {"slow", "lean", "model", "browser"}  # deselected by the default tier's addopts


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _closure(requirements: list[str]) -> set[str]:
    """Return the normalised names of every distribution `requirements` pull in (installed metadata, transitively)."""
    seen: set[str] = set()
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = _name(req.name)
        key = name + "[" + ",".join(sorted(req.extras)) + "]"
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = md.requires(req.name) or []
        except md.PackageNotFoundError:
            continue  # not installed: its modules cannot be found either, and the test names them
        for r in requires:
            sub = Requirement(r)
            for e in ("", *req.extras):
                todo.append((sub, e))
    return {k.split("[")[0] for k in seen}


def _readme_closure() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(project["dependencies"])
    for extra in README_EXTRAS:
        reqs += project["optional-dependencies"][extra]
    return _closure(reqs)


def _marks(decorators: list[ast.expr]) -> set[str]:
    out = set()
    for d in decorators:
        for node in ast.walk(d):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "mark":
                out.add(node.attr)
    return out


def _module_marks(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            return _marks([node.value])
    return set()


def _importorskips(node: ast.AST) -> list[str]:
    return [c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and c.func.attr == "importorskip" and c.args and isinstance(c.args[0], ast.Constant)]


def _module_level_imports(tree: ast.Module) -> list[str]:
    """Return the modules a file imports when it is imported (not inside functions; TYPE_CHECKING blocks skipped)."""
    out: list[str] = []

    def visit(stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if isinstance(s, ast.Import):
                out.extend(a.name for a in s.names)
            elif isinstance(s, ast.ImportFrom) and s.module and not s.level:
                out.append(s.module)
            elif isinstance(s, ast.If) and "TYPE_CHECKING" not in ast.unparse(s.test):
                visit(s.body)
                visit(s.orelse)
            elif isinstance(s, ast.Try):
                if not any("ImportError" in ast.unparse(h.type or ast.Name("BaseException")) for h in s.handlers):
                    visit(s.body)
            elif isinstance(s, (ast.With,)):
                visit(s.body)
    visit(tree.body)
    return out


def default_tier_imports() -> dict[str, str]:
    """Return {top-level module: first file that needs it} for what the default tier imports."""
    needed: dict[str, str] = {}
    files = [p for d in ("mathloop", "tests") for p in sorted((ROOT / d).rglob("*.py"))]
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        names = _module_level_imports(tree)
        module_marks = _module_marks(tree)
        if path.name.startswith("test_") and not module_marks & SLOW_MARKS:
            names += [n for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                      for n in _importorskips(s)]
            names += [n for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and not _marks(s.decorator_list) & SLOW_MARKS for n in _importorskips(s)]
        for name in names:
            needed.setdefault(name.split(".")[0], rel)
    return needed


def test_the_readme_test_command_installs_every_module_the_default_tier_imports():
    closure = _readme_closure()
    owners = md.packages_distributions()
    first_party = {"mathloop", "tests", "obligations", "lean"}
    missing = []
    for module, where in sorted(default_tier_imports().items()):
        if module in sys.stdlib_module_names or module in first_party or module == "__future__":
            continue
        dists = {_name(d) for d in owners.get(module, [])}
        if not dists & closure:
            missing.append(f"{module} ({where}; distribution {', '.join(sorted(dists)) or 'not installed'})")
    assert missing == [], ("pip install -e '.[lean,test]' does not install what the default tier imports: "
                           + "; ".join(missing))
