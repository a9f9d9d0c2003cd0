"""The Lean support modules a rendering imports: mathloop's library and those a plug-in target ships.

mathloop's Lean library is the top-level `lean/Mathloop/` folder of a checkout (package data of
`mathloop.lean_sources` in the wheel): `Mathloop.Exact` (exact rational arithmetic, shared by every
target) and one module per shipped target, which the target names in its `lean_modules`. A plug-in
target ships its own modules as package data of its own package, one file per module under `lean/`
(`<package>/lean/Mathloop/MyTarget.lean` is the module `Mathloop.MyTarget`), so it renders Lean
through the same door. No target may ship a module under a name of mathloop's library: that text is
always mathloop's own.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Iterable, Mapping, Sequence

LIBRARY = "mathloop.lean_sources"  # the top-level `lean/` folder, shipped inside the wheel
SHARED = ("Mathloop.Exact",)
MAX_MODULE_BYTES = 2_000_000
_MODULE = re.compile(r"^[A-Z][A-Za-z0-9_]*(\.[A-Z][A-Za-z0-9_]*)+$")
_IMPORT = re.compile(r"^import\s+(\S+)\s*$", re.M)


class SupportError(ValueError):
    """A support module is misnamed, too large, shadows a library module or imports an unknown one."""


def shared_modules() -> dict[str, str]:
    """Return {module: text} of the modules every target may import (`Mathloop.Exact`), mathloop's own text."""
    lib = library_modules()
    return {m: lib[m] for m in SHARED}


def library_modules() -> dict[str, str]:
    """Return {module: text} of every module of mathloop's Lean library (`lean/Mathloop/**/*.lean`)."""
    return dict(_library())


@lru_cache(maxsize=1)
def _library() -> tuple[tuple[str, str], ...]:
    root = resources.files(LIBRARY) / "Mathloop"
    return tuple((m, f.read_text(encoding="utf-8")) for m, f in _walk(root, ("Mathloop",)))


def path_of(module: str) -> str:
    """Return the relative path of a module's file.

    >>> path_of("Mathloop.Exact")
    'Mathloop/Exact.lean'
    """
    return module.replace(".", "/") + ".lean"


def imports(text: str) -> list[str]:
    """Return the modules a module's text imports (`import X` lines, in order)."""
    return _IMPORT.findall(text)


def _walk(folder: Traversable, prefix: tuple[str, ...]) -> Iterable[tuple[str, Traversable]]:
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            yield from _walk(entry, (*prefix, entry.name))
        elif entry.name.endswith(".lean"):
            yield ".".join((*prefix, entry.name.removesuffix(".lean"))), entry


def package_modules(package: str) -> dict[str, str]:
    """Return {module: text} of every `lean/**/*.lean` file of a package (empty when it has none).

    Raises:
        SupportError: a file is misnamed, too large, or takes the name of a module of mathloop's library.
    """
    return dict(_package(package))


@lru_cache(maxsize=64)
def _package(package: str) -> tuple[tuple[str, str], ...]:
    try:
        folder = resources.files(package).joinpath("lean")
        if not folder.is_dir():
            return ()
    except (ImportError, TypeError, OSError):
        return ()
    out: dict[str, str] = {}
    for module, f in _walk(folder, ()):
        where = f"{package}: lean/{path_of(module)}"
        if not _MODULE.match(module):
            raise SupportError(f"{where}: not a Lean module name (dotted, capitalised components)")
        if module in _library_names():
            what = "mathloop's shared module" if module in SHARED else "a module of mathloop's Lean library"
            raise SupportError(f"{where}: {module} is {what}; a target cannot ship its own")
        data = f.read_bytes()
        if len(data) > MAX_MODULE_BYTES:
            raise SupportError(f"{where}: larger than {MAX_MODULE_BYTES} bytes")
        out[module] = data.decode("utf-8")
    return tuple(out.items())


def _library_names() -> frozenset[str]:
    return frozenset(m for m, _ in _library())


def class_modules(cls: Any) -> dict[str, str]:  # a Target class: targets/ imports lean/, not the reverse
    """Return the support modules of a target class: the library modules it (or a base) names in
    `lean_modules`, then its package's own, then its base targets' packages'.

    Raises:
        SupportError: a named module is not in mathloop's Lean library, or a package's module is refused.
    """
    lib = library_modules()
    out: dict[str, str] = {}
    for m in cls.lean_modules:
        if m not in lib:
            raise SupportError(f"{cls.__name__}.lean_modules names {m}, which is not in mathloop's Lean library "
                               f"(lean/{path_of(m)})")
        out[m] = lib[m]
    seen: set[str] = set()
    for k in cls.__mro__:
        mod = sys.modules.get(k.__module__)
        package = getattr(mod, "__package__", None) or ""
        if not package or package in seen or package == "mathloop.targets":
            continue
        seen.add(package)
        for m, text in package_modules(package).items():
            out.setdefault(m, text)
    return out


def ordered(modules: Mapping[str, str]) -> dict[str, str]:
    """Return the modules in an order where each comes after every module it imports (shared first).

    Raises:
        SupportError: a module imports a module that is neither given nor `Init`, or imports form a cycle.
    """
    left, out = dict(modules), {}
    while left:
        ready = [m for m, t in left.items()
                 if all(i in out or i == "Init" or i.startswith("Init.") for i in imports(t))]
        if not ready:
            m = sorted(left)[0]
            missing = [i for i in imports(left[m]) if i not in out and i not in left]
            raise SupportError(f"{path_of(m)}: imports {', '.join(missing) or 'in a cycle'} (not a support module)")
        for m in sorted(ready, key=lambda m: (m not in SHARED, m)):
            out[m] = left.pop(m)
    return out


def select(names: Sequence[str], own: Mapping[str, str]) -> dict[str, str]:
    """Return {module: text} for `names` (import order kept), library names from mathloop, others from `own`.

    Raises:
        SupportError: a name is neither in mathloop's library nor in `own`.
    """
    shared = library_modules()
    out = {}
    for m in names:
        if m in shared:
            out[m] = shared[m]
        elif m in own:
            out[m] = own[m]
        else:
            raise SupportError(f"support module {m} is neither in mathloop's Lean library nor shipped by the target")
    return out


def anchored(used: Mapping[str, str], own: Mapping[str, str]) -> list[str]:
    """Return why `used` (a rendering's modules) differs from mathloop's shared text or the target's own.

    Empty: every module is exactly `Mathloop.Exact` or what the target names (`lean_support()`: its library
    modules, its package's own). A library module the target does not name is refused like any other.
    """
    shared = shared_modules()
    problems = []
    for m, text in used.items():
        expected = shared.get(m, own.get(m))
        if expected is None:
            problems.append(f"{path_of(m)}: not shipped by mathloop nor by the target")
        elif text != expected:
            who = "mathloop's own" if m in shared or m in _library_names() else "the target package's"
            problems.append(f"{path_of(m)} differs from {who} text of {m}")
    return problems
