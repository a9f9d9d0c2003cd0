"""Imports point one way (docs/design.md): cli -> search -> {check, targets, propose, lean, store, export} -> {contract,
domain, order}. Every import of every module (lazy ones and TYPE_CHECKING ones included) is read with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mathloop"

# A package may import its own layer and every layer below it, never one above.
LAYER = {
    "domain": 0, "order": 0, "contract": 0, "bounded": 0, "children": 0, "outputs": 0, "sandbox": 0,
    "check": 1, "targets": 1, "propose": 1, "lean": 1, "store": 1, "export": 1,
    "search": 2, "audit": 2,  # audit re-verifies what search recorded
    "env": 3, "view": 3,  # the verifier as a reward; pictures and pages of what search recorded
    "integrations": 4, "bench": 4, "web": 4,
    "cli": 5,
    "__main__": 6, "__init__": 6,
}
# Imports that break the layers today, each with the owner who removes it. Add nothing here.
KNOWN = {
    ("mathloop/export/dataset.py", "env"),  # export/ reads env's prompting and rewards (owner: export)
    ("mathloop/lean/attest.py", "targets"),  # lean's audit rebuilds the target (owner: lean)
    ("mathloop/lean/commit.py", "targets"),  # a type annotation; targets import lean.render (owner: lean)
}


def _imports() -> list[tuple[str, str, str]]:
    """Return (file, its package, imported package) for every `mathloop.*` import in mathloop/."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        parts = ("mathloop", *path.relative_to(PACKAGE).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against this module's package
                    base = parts[: len(parts) - node.level + (path.name == "__init__.py")]
                    names = [".".join([*base, *([node.module] if node.module else [])])]
                elif node.module:
                    names = [node.module]
            for name in names:
                head, _, rest = name.partition(".")
                if head == "mathloop" and rest:
                    out.append((rel, own, rest.split(".")[0]))
    return out


def test_every_package_has_a_layer():
    packages = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    assert packages - set(LAYER) == set(), "place the new package in LAYER (and in docs/design.md's layers)"


def test_no_module_imports_a_layer_above_its_own():
    upward = sorted({(f, dst) for f, src, dst in _imports() if LAYER[dst] > LAYER[src]} - KNOWN)
    assert upward == [], "imports pointing up a layer: " + ", ".join(f"{f} -> mathloop.{d}" for f, d in upward)


def test_contract_parses_and_validates_toml_only():
    above = sorted({(f, dst) for f, src, dst in _imports() if src == "contract" and dst not in ("contract", "domain")})
    assert above == [], f"contract/ imports {above}"


def test_a_target_never_imports_the_store_or_the_loop():
    wrong = sorted({(f, dst) for f, src, dst in _imports() if src == "targets" and dst in ("store", "search", "cli")})
    assert wrong == [], f"targets/ imports {wrong}"


def test_packages_of_one_layer_import_each_other_without_a_circle():
    g = nx.DiGraph((src, dst) for f, src, dst in _imports() if src != dst and (f, dst) not in KNOWN)
    assert list(nx.simple_cycles(g)) == []
