"""The shipped-contract catalogue and contract loading: a shipped contract by name, or a user file by path.

The contracts a target ships are the `*.toml` files in the `contracts/` folder of the package that
holds its entry point's module (package data). Finding them imports no target module and runs no
plug-in code. A loaded contract is checked by its target (required obligations, floors, checkers,
parameters, seed). In a user contract, the texts of the target's required obligations and the class
maxima that are theorems must be the target's own (those of a contract it ships); every other text
the user wrote is shown marked as the user's.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from mathloop.contract.load import parse_contract, read_contract_file
from mathloop.contract.model import Contract, ContractError, Obligation
from mathloop.targets.registry import registered, registrations, target_class

USER_MARK = "(user contract) "  # no brackets: rich would read them as markup


@dataclass(frozen=True)
class ShippedContract:
    """A contract file shipped as package data by a registered target."""

    name: str
    implementation: str
    distribution: str
    resource: Traversable


def shipped_contracts() -> list[ShippedContract]:
    """Return every contract the registrations ship, sorted by name (a registration whose folder is not found ships none).

    A key registered twice lists the contracts of both registrations: loading them is refused, naming both.
    """
    out = []
    for reg in registrations():
        folder = _contracts_folder(reg.package)
        try:
            files = [f for f in folder.iterdir() if f.name.endswith(".toml")] if folder is not None else []
        except OSError:
            continue
        out += [ShippedContract(f.name.removesuffix(".toml"), reg.key, reg.distribution, f) for f in files]
    return sorted(out, key=lambda c: (c.name, c.implementation, c.distribution))


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


def load_contract(name_or_path: str | Path) -> Contract:
    """Return the validated contract: a shipped one by target name, or a user file by path.

    A name (a file stem) is looked up among the contracts the registered targets ship; a path (ends
    in .toml or contains a separator) is read as a user contract. No directory is ever searched: a
    user contract is used only when named.

    Raises:
        ContractError: unknown name, unreadable file, bad TOML, unknown/missing keys, bad values, a cycle,
            an unknown dependency or checker, a required obligation missing or changed (its text too), a
            theorem's class maximum changed, target-specific parameter errors, or a target that cannot be
            loaded. An error in a plug-in's own contract names its distribution.
    """
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or text.endswith(".toml") or os.sep in text or "/" in text:
        return load_file(Path(name_or_path))
    shipped = shipped_contract(text)
    path = Path(str(shipped.resource))
    try:
        try:
            raw = shipped.resource.read_bytes()
        except OSError as e:
            raise ContractError(path, "<file>", f"cannot read: {e.strerror}") from None
        contract = parse_contract(path, raw, source="package", package=shipped.distribution)
        if contract.target != shipped.implementation:
            raise ContractError(path, "target.implementation", f"{contract.target!r} differs from the entry point "
                                                                f"{shipped.implementation!r} that ships this contract")
        _check(contract)
    except ContractError as e:
        if shipped.distribution == "mathloop" or "distribution" in e.reason:
            raise
        raise ContractError(e.path, e.key, f"{e.reason} (a contract shipped by distribution "
                                           f"{shipped.distribution})") from None
    return contract


def load_file(path: Path) -> Contract:
    """Return the validated user contract read from `path` (source "file"). Raises ContractError."""
    contract = parse_contract(path, read_contract_file(path), source="file", package=None)
    _check(contract)
    return _with_target_texts(contract)


def _check(contract: Contract) -> None:
    cls = target_class(contract.target, contract.path)
    try:
        cls.validate_contract(contract)
    except ContractError:
        raise
    except Exception as e:  # a target's own validation crashing refuses the contract, never a traceback
        raise ContractError(contract.path, "target.implementation",
                            f"{registered()[contract.target].describe()} failed to validate the contract: "
                            f"{type(e).__name__}: {e}") from None


def _with_target_texts(contract: Contract) -> Contract:
    """Return the user contract with every text the target does not ship marked as the user's.

    Raises:
        ContractError: a required obligation's title/statement/citation, or a class maximum the target
            ships as a theorem, differs from every contract the target ships.
    """
    own = _shipped_variants(contract.target)
    if not own:
        return _marked(contract, set(), set())
    required = {r.id for r in target_class(contract.target, contract.path).required_obligations}
    texts: dict[str, set[tuple]] = {}
    theorems: dict[str, set[tuple]] = {}
    for c in own:
        for o in c.obligations:
            texts.setdefault(o.id, set()).add((o.title, o.statement, o.citation))
            if o.bound is not None and o.bound.class_maximum_is_theorem:
                theorems.setdefault(o.bound.name, set()).add((o.bound.class_maximum, o.bound.class_maximum_basis))
    for o in contract.obligations:
        mine = (o.title, o.statement, o.citation)
        if o.id in required and o.id in texts and mine not in texts[o.id]:
            field = next(f for i, f in enumerate(("title", "statement", "citation"))
                         if mine[i] not in {t[i] for t in texts[o.id]})
            ship = sorted({str(t[("title", "statement", "citation").index(field)]) for t in texts[o.id]})
            raise ContractError(contract.path, f"obligations.{o.id}.{field}",
                                f"the {field} of a required obligation comes from the target: must be "
                                f"{' or '.join(repr(s[:120]) for s in ship)}")
        if o.bound is not None and o.bound.name in theorems and \
                (o.bound.class_maximum, o.bound.class_maximum_basis) not in theorems[o.bound.name]:
            (value, _), *_ = sorted(theorems[o.bound.name], key=str)
            raise ContractError(contract.path, f"obligations.{o.id}.bound.class_maximum",
                                f"the class maximum of bound {o.bound.name!r} is a theorem: it stays {value} with "
                                "the target's class_maximum_basis")
    shipped_texts = {o_id: {t for t in ts} for o_id, ts in texts.items()}
    kept = {o.id for o in contract.obligations if (o.title, o.statement, o.citation) in shipped_texts.get(o.id, ())}
    heads = {(c.title, c.statement) for c in own}
    return _marked(contract, kept, heads)


def _marked(contract: Contract, kept: set[str], heads: set[tuple[str, str]]) -> Contract:
    """Return the contract with the texts of obligations not in `kept` (and its own title/statement unless
    they are a shipped pair in `heads`) prefixed with USER_MARK."""
    def mark(s: str | None) -> str | None:
        return None if s is None else USER_MARK + s

    def ob(o: Obligation) -> Obligation:
        return o if o.id in kept else replace(o, title=mark(o.title), statement=mark(o.statement),
                                              citation=mark(o.citation))

    obligations = tuple(ob(o) for o in contract.obligations)
    if (contract.title, contract.statement) in heads:
        return replace(contract, obligations=obligations)
    return replace(contract, obligations=obligations, title=mark(contract.title), statement=mark(contract.statement))


def _shipped_variants(implementation: str) -> list[Contract]:
    """Return the parsed contracts that the registration of `implementation` ships (its own texts)."""
    return [_parsed(str(c.resource), c.distribution) for c in shipped_contracts()
            if c.implementation == implementation and _file_readable(c.resource)]


def _file_readable(resource: Traversable) -> bool:
    try:
        return resource.is_file()
    except OSError:
        return False


@lru_cache(maxsize=64)
def _parsed(path: str, distribution: str) -> Contract:
    p = Path(path)
    return parse_contract(p, p.read_bytes(), source="package", package=distribution)


def _contracts_folder(package: str) -> Traversable | None:
    """Return the package's `contracts` folder, found without importing (running) the package."""
    if package in sys.modules:
        try:
            return resources.files(package).joinpath("contracts")
        except (ImportError, TypeError, ValueError):
            return None
    path = None
    parts = package.split(".")
    for i in range(len(parts)):
        name = ".".join(parts[: i + 1])
        module = sys.modules.get(name)
        spec = getattr(module, "__spec__", None) if module is not None else None
        if spec is None:
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                try:
                    spec = find(name, path) if find is not None else None
                except (ImportError, ValueError, OSError):
                    spec = None
                if spec is not None:
                    break
        if spec is None or spec.submodule_search_locations is None:
            return None
        path = list(spec.submodule_search_locations)
    folders = [Path(p) / "contracts" for p in path or () if (Path(p) / "contracts").is_dir()]
    return folders[0] if folders else None
