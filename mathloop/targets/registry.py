"""The target registry: implementations found through entry points, loaded lazily and refused when unsafe.

A distribution registers a target in its own pyproject.toml:

    [project.entry-points."mathloop.targets"]
    my-target = "my_package.target:MyTarget"

mathloop's own targets register through the same door. Reading the registrations imports nothing;
a target's module is imported only when that target is used, and a plug-in's import runs in a
bounded thread: one that hangs or raises (anything, not only ImportError) is refused alone, naming
its distribution, and the other targets still work. A name registered by two distributions is
refused for both: no plug-in replaces a shipped target, and mathloop never picks one silently.
"""

from __future__ import annotations

import importlib
import os
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mathloop.contract.model import Contract, ContractError

if TYPE_CHECKING:
    from mathloop.targets.base import Target

GROUP = "mathloop.targets"
OWN_DISTRIBUTION = "mathloop"
# How long a plug-in's module may take to import; MATHLOOP_PLUGIN_IMPORT_TIMEOUT_S overrides it.
DEFAULT_IMPORT_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Registered:
    """One registered implementation.

    Attributes:
        key: the implementation key (`[target] implementation` in a contract; the entry point name).
        spec: "module:Class".
        distribution: the distribution that registered it.
    """

    key: str
    spec: str
    distribution: str

    @property
    def module(self) -> str:
        return self.spec.partition(":")[0]

    @property
    def package(self) -> str:
        """Return the package that holds the target's module (where its contracts/ folder is)."""
        return self.module.rpartition(".")[0] or self.module

    @property
    def own(self) -> bool:
        """Return True for mathloop's own targets (imported like the rest of mathloop, unbounded)."""
        return self.distribution == OWN_DISTRIBUTION and self.module.startswith("mathloop.")

    def describe(self) -> str:
        """Return e.g. "distribution mathloop-plugin-x (entry point x = 'pkg.mod:X')"."""
        return f"distribution {self.distribution} (entry point {self.key} = {self.spec!r})"


# Registrations added by tests and embedding programs, as a Registered or a plain "module:Class"
# string; they sit beside the entry points, never over them (one key twice is a conflict).
REGISTRY: dict[str, Registered | str] = {}
_entry_points: list[Registered] = []
_read: list[bool] = []
# Per process: what loading each registration gave (the class, or the refusal).
_loaded: dict[Registered, type | ContractError] = {}
_lock = threading.RLock()  # re-entrant: a target module may use the registry while it is imported


def registrations() -> list[Registered]:
    """Return every registration (entry points of group `mathloop.targets`, then REGISTRY); imports nothing."""
    if not _read:
        seen = set()
        for ep in metadata.entry_points(group=GROUP):
            reg = Registered(ep.name, ep.value, ep.dist.name if ep.dist is not None else "?")
            if reg not in seen:
                seen.add(reg)
                _entry_points.append(reg)
        _read.append(True)
    local = [v if isinstance(v, Registered) else Registered(k, v, "local") for k, v in REGISTRY.items()]
    return [*_entry_points, *(r for r in local if r not in _entry_points)]


def conflicts() -> dict[str, tuple[Registered, ...]]:
    """Return every key registered more than once, with all its registrations (each is refused)."""
    by_key: dict[str, list[Registered]] = {}
    for r in registrations():
        by_key.setdefault(r.key, []).append(r)
    return {k: tuple(v) for k, v in by_key.items() if len(v) > 1}


def registered() -> dict[str, Registered]:
    """Return every implementation registered exactly once, by key (a conflicting key is left out)."""
    clash = conflicts()
    return {r.key: r for r in registrations() if r.key not in clash}


def conflict_reason(key: str, regs: tuple[Registered, ...]) -> str:
    """Return the refusal text for a key registered by several distributions."""
    who = "; ".join(r.describe() for r in regs)
    return (f"implementation {key!r} is registered more than once ({who}): refused, never chosen silently; "
            "uninstall the distribution that should not provide it")


def target_class(key: str, path: Path | str = "<contract>") -> type[Target]:
    """Return the Target subclass for an implementation key.

    Raises:
        ContractError: unknown key, a key registered more than once, or a registration whose module
            cannot be imported in time, raises anything while importing, or is not a Target named `key`
            (the message names the distribution).
    """
    clash = conflicts().get(key)
    if clash:
        raise ContractError(path, "target.implementation", conflict_reason(key, clash))
    reg = registered().get(key)
    if reg is None:
        known = ", ".join(sorted(registered())) or "none"
        raise ContractError(path, "target.implementation", f"unknown implementation {key!r} (known: {known})")
    with _lock:
        got = _loaded.get(reg)
        if got is None:
            got = _loaded[reg] = _load(reg)
    if isinstance(got, ContractError):
        raise ContractError(path, got.key, got.reason)
    return got


def build_target(contract: Contract) -> Any:
    """Return the Target instance that checks `contract`. Raises ContractError naming a plug-in that fails."""
    cls = target_class(contract.target, contract.path)
    try:
        return cls(contract)
    except ContractError:
        raise
    except Exception as e:  # a plug-in's constructor: its failure is its own refusal, not a traceback
        reg = registered()[contract.target]
        raise ContractError(contract.path, "target.implementation",
                            f"{reg.describe()} failed to build: {type(e).__name__}: {e}") from None


def import_timeout_s() -> float:
    """Return the time a plug-in's module may take to import (MATHLOOP_PLUGIN_IMPORT_TIMEOUT_S, else 20 s)."""
    raw = os.environ.get("MATHLOOP_PLUGIN_IMPORT_TIMEOUT_S", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_IMPORT_TIMEOUT_S
    return value if 0 < value < 86_400 else DEFAULT_IMPORT_TIMEOUT_S


def _load(reg: Registered) -> type | ContractError:
    """Return the registration's Target class, or the ContractError that refuses it."""
    def refused(why: str) -> ContractError:
        return ContractError("<registry>", "target.implementation", f"entry point {reg.key} = {reg.spec!r} of "
                                                                    f"{reg.distribution} {why}")

    module, _, attr = reg.spec.partition(":")
    if not module or not attr:
        return refused("cannot be loaded: not of the form 'module:Class'")
    try:
        mod = importlib.import_module(module) if reg.own else _import_bounded(module, import_timeout_s())
        cls = getattr(mod, attr)
    except TimeoutError as e:
        return refused(f"cannot be loaded: {e}")
    except (ImportError, AttributeError) as e:
        return refused(f"cannot be loaded: {e}")
    except KeyboardInterrupt:  # the user's Ctrl-C (in the main thread, e.g. while waiting): not the plug-in's
        raise
    except BaseException as e:  # noqa: BLE001 - whatever a plug-in raises refuses that plug-in alone
        return refused(f"cannot be loaded: its import raised {type(e).__name__}: {e}")
    from mathloop.targets.base import Target

    if not (isinstance(cls, type) and issubclass(cls, Target)) or getattr(cls, "name", None) != reg.key:
        return refused(f"is not a Target named {reg.key!r}")
    return cls


def _import_bounded(module: str, timeout_s: float) -> Any:
    """Return the imported module; a daemon thread imports it so that a hang costs `timeout_s`, not the process.

    Raises:
        TimeoutError: the import did not finish in time (the thread is abandoned).
        BaseException: whatever the import raised.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["module"] = importlib.import_module(module)
        except BaseException as e:  # noqa: BLE001 - SystemExit too: it must not end the thread silently
            box["error"] = e

    t = threading.Thread(target=run, name=f"mathloop-import-{module}", daemon=True)
    t.start()
    t.join(timeout_s)
    if t.is_alive():
        raise TimeoutError(f"its import did not finish within {timeout_s:g} s")
    if "error" in box:
        raise box["error"]
    return box["module"]


def health() -> list[dict[str, Any]]:
    """Return one row per registration: key, distribution, spec and status ("ok", "conflict", "refused").

    Loads every target that is registered once (bounded), so that `doctor` can name every refusal.
    """
    clash = conflicts()
    rows = []
    for r in registrations():
        row: dict[str, Any] = {"name": r.key, "distribution": r.distribution, "entry_point": r.spec}
        if r.key in clash:
            row |= {"status": "conflict", "reason": conflict_reason(r.key, clash[r.key])}
        else:
            try:
                target_class(r.key)
                row["status"] = "ok"
            except ContractError as e:
                row |= {"status": "refused", "reason": e.reason}
        rows.append(row)
    return rows
