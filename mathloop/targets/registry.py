"""The target registry: implementations found through entry points, and the contracts they ship.

A distribution registers a target in its own pyproject.toml:

    [project.entry-points."mathloop.targets"]
    my-target = "my_package.target:MyTarget"

mathloop's own targets register through the same door. The contracts a target ships are the
`*.toml` files in the `contracts/` folder of the package that holds the entry point's module
(package data, read with importlib.resources; listing them imports no target module).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata, resources
from importlib.resources.abc import Traversable
from pathlib import Path

from mathloop.contract.model import Contract, ContractError

GROUP = "mathloop.targets"


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
    def package(self) -> str:
        """Return the package that holds the target's module (where its contracts/ folder is)."""
        module = self.spec.partition(":")[0]
        return module.rpartition(".")[0] or module


@dataclass(frozen=True)
class ShippedContract:
    """A contract file shipped as package data by a registered target."""

    name: str
    implementation: str
    distribution: str
    resource: Traversable


# key -> registration; filled from the entry points on first use. Tests (and embedding programs)
# may add entries directly, as a Registered or as a plain "module:Class" string.
REGISTRY: dict[str, Registered | str] = {}
_loaded: list[bool] = []


def registered() -> dict[str, Registered]:
    """Return every registered implementation by key (entry points of group `mathloop.targets`)."""
    if not _loaded:
        for ep in metadata.entry_points(group=GROUP):
            dist = ep.dist.name if ep.dist is not None else "?"
            REGISTRY.setdefault(ep.name, Registered(ep.name, ep.value, dist))
        _loaded.append(True)
    return {k: v if isinstance(v, Registered) else Registered(k, v, "local") for k, v in REGISTRY.items()}


def target_class(key: str, path: Path | str = "<contract>"):
    """Return the Target subclass for an implementation key. Raises ContractError if unknown or broken."""
    reg = registered().get(key)
    if reg is None:
        known = ", ".join(sorted(registered())) or "none"
        raise ContractError(path, "target.implementation", f"unknown implementation {key!r} (known: {known})")
    module, _, attr = reg.spec.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise ContractError(path, "target.implementation", f"entry point {key} = {reg.spec!r} of "
                                                           f"{reg.distribution} cannot be loaded: {e}") from None
    from mathloop.targets.base import Target

    if not (isinstance(cls, type) and issubclass(cls, Target)) or cls.name != key:
        raise ContractError(path, "target.implementation", f"entry point {key} = {reg.spec!r} is not a Target "
                                                           f"named {key!r}")
    return cls


def build_target(contract: Contract):
    """Return the Target instance that checks `contract`."""
    return target_class(contract.target, contract.path)(contract)


def shipped_contracts() -> list[ShippedContract]:
    """Return every contract the registered targets ship, sorted by name (a broken package ships none)."""
    out = []
    for reg in registered().values():
        try:
            folder = resources.files(reg.package).joinpath("contracts")
            files = [f for f in folder.iterdir() if f.name.endswith(".toml")] if folder.is_dir() else []
        except (ImportError, OSError):
            continue
        out += [ShippedContract(f.name.removesuffix(".toml"), reg.key, reg.distribution, f) for f in files]
    return sorted(out, key=lambda c: (c.name, c.implementation))


def shipped_contract(name: str) -> ShippedContract:
    """Return the shipped contract called `name`. Raises ContractError if none or several ship it."""
    all_ = shipped_contracts()
    found = [c for c in all_ if c.name == name]
    if not found:
        known = ", ".join(sorted({c.name for c in all_})) or "none"
        raise ContractError(f"<{name}>", "<target>", f"unknown target {name!r} (known: {known})")
    if len(found) > 1:
        who = ", ".join(f"{c.distribution} ({c.implementation})" for c in found)
        raise ContractError(f"<{name}>", "<target>", f"target {name!r} is shipped more than once: {who}")
    return found[0]
