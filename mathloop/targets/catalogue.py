"""The shipped-contract catalogue and contract loading: a shipped contract by name, or a user file by path.

A target names the contract files it ships (`Target.contract_files`). mathloop's own are in the
top-level `obligations/` folder (package data of `mathloop.obligations`), each saying in its
`[target] implementation` which target checks it; a plug-in's are the `*.toml` files in the
`contracts/` folder of the package that holds its entry point's module. Finding them imports no
target module and runs no plug-in code; loading one checks that its target names it. A loaded
contract is checked by its target (required obligations, floors, checkers, parameters, seed). In a
user contract, the texts of the target's required obligations are the target's own (those of a
contract it ships, whatever the file says), a class maximum the target ships as a theorem cannot
change, and every other text the user wrote is shown marked as the user's.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from mathloop.contract.load import parse_contract, read_contract_file
from mathloop.contract.model import Contract, ContractError, Obligation
from mathloop.targets.registry import registered, registrations, target_class

USER_MARK = "(user contract) "  # no brackets: rich would read them as markup
_SAFE_STEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
OBLIGATIONS = "mathloop.obligations"  # the top-level `obligations/` folder, shipped inside the wheel


@dataclass(frozen=True)
class ShippedContract:
    """A contract file shipped as package data by a registered target."""

    name: str
    implementation: str
    distribution: str
    resource: Traversable
    in_obligations: bool = False  # from mathloop's `obligations/` (else from a package's `contracts/` folder)


def shipped_contracts() -> list[ShippedContract]:
    """Return every contract shipped in `obligations/` or by a registration's package, sorted by name (a
    registration whose folder is not found ships none).

    A key registered twice lists the contracts of both registrations: loading them is refused, naming both.
    """
    out = list(_obligations())
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
        hint = "" if _obligations() else f"; mathloop's own contracts ({OBLIGATIONS}) are not installed: reinstall it"
        raise ContractError(f"<{name}>", "<target>", f"unknown target {name!r} (known: {known}){hint}")
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
        _check_named(shipped, path)
        _check(contract)
    except ContractError as e:
        if shipped.distribution == "mathloop" or f"distribution {shipped.distribution}" in e.reason:
            raise
        raise ContractError(e.path, e.key, f"{e.reason} (a contract shipped by distribution "
                                           f"{shipped.distribution})") from None
    return contract


def load_file(path: Path) -> Contract:
    """Return the validated user contract read from `path` (source "file"). Raises ContractError."""
    contract = parse_contract(path, read_contract_file(path), source="file", package=None)
    _check(contract)
    return _with_target_texts(contract)


def load_stored(name: str, sha: str, text: str) -> Contract:
    """Return the contract a lineage was recorded with, from the text its store keeps, checked as a user file is.

    The lineage stays named by the stored hash `sha`, whatever the text hashes to today: an edited text
    is the audit's finding (`audit_contract_row`), not a reason to read another lineage. The stored name
    is data: one that is not a plain file stem never becomes part of a path.

    Raises:
        ContractError: the text is not a contract its target accepts (see load_contract).
    """
    stem = name if _SAFE_STEM.fullmatch(name) else "stored-contract"
    contract = parse_contract(Path(f"<the store's copy>/{stem}.toml"), text.encode("utf-8"), source="store",
                              package=None)
    _check(contract)
    return replace(_with_target_texts(contract), sha256=sha, name=name)


def _check_named(shipped: ShippedContract, path: Path) -> None:
    """Raise ContractError unless the contract's target names its file (an own target: always; a plug-in
    that names none ships every file of its `contracts/` folder)."""
    cls = target_class(shipped.implementation, path)
    file = shipped.resource.name
    own = registered()[shipped.implementation].own
    # A plug-in that subclasses a shipped target does not inherit its file names: those name mathloop's files.
    named = tuple(cls.contract_files if own else vars(cls).get("contract_files", ()))
    if shipped.in_obligations and not own:
        raise ContractError(path, "target.implementation", f"{shipped.implementation!r} is not one of mathloop's "
                                                            f"own targets: {OBLIGATIONS} holds only theirs")
    if file in named or (not named and not shipped.in_obligations):
        return
    raise ContractError(path, "target.implementation",
                        f"target {shipped.implementation!r} does not name the contract file {file!r} (its "
                        f"contract_files: {', '.join(named) or 'none'}); add the name to {cls.__name__}.contract_files")


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
    """Return the user contract with the target's texts for its required obligations, and every other text
    the target does not ship marked as the user's.

    A required obligation's title, statement and citation are replaced by those of a contract the target
    ships (the one with the same name first): a user contract cannot rename what the bound rests on, and a
    lineage stored with older texts still loads.

    Raises:
        ContractError: a class maximum that the target ships as a theorem has another value (a number, not
            a text: its basis is the target's).
    """
    own = sorted(_shipped_variants(contract.target),
                 key=lambda c: (c.name != contract.name, c.name != contract.target, c.name))
    if not own:
        return _marked(contract, set(), set())
    required = {r.id for r in target_class(contract.target, contract.path).required_obligations}
    texts: dict[str, list[tuple]] = {}
    theorems: dict[str, dict[Fraction | None, str | None]] = {}
    for c in own:
        for o in c.obligations:
            texts.setdefault(o.id, []).append((o.title, o.statement, o.citation))
            if o.bound is not None and o.bound.class_maximum_is_theorem:
                theorems.setdefault(o.bound.name, {}).setdefault(o.bound.class_maximum, o.bound.class_maximum_basis)
    obligations = []
    for o in contract.obligations:
        if o.id in required and o.id in texts and (o.title, o.statement, o.citation) not in texts[o.id]:
            title, statement, citation = texts[o.id][0]
            o = replace(o, title=title, statement=statement, citation=citation)
        b = o.bound
        if b is not None and b.name in theorems:  # the value is checked; the basis is the target's text
            if b.class_maximum not in theorems[b.name]:
                value = " or ".join(sorted(str(v) for v in theorems[b.name]))
                raise ContractError(contract.path, f"obligations.{o.id}.bound.class_maximum",
                                    f"the class maximum of bound {b.name!r} is a theorem: it stays {value}")
            o = replace(o, bound=replace(b, class_maximum_basis=theorems[b.name][b.class_maximum]))
        obligations.append(o)
    contract = replace(contract, obligations=tuple(obligations))
    kept = {o.id for o in contract.obligations if (o.title, o.statement, o.citation) in texts.get(o.id, ())}
    return _marked(contract, kept, {(c.title, c.statement) for c in own})


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


@lru_cache(maxsize=1)
def _obligations() -> tuple[ShippedContract, ...]:
    """Return the contracts in mathloop's `obligations/` (none when that package is not installed).

    The implementation is read from each file's `[target]` table; a file that cannot be read keeps
    "?" here and is refused, with its reason, when it is loaded.
    """
    try:
        files = [f for f in resources.files(OBLIGATIONS).iterdir() if f.name.endswith(".toml")]
    except (ImportError, OSError, TypeError):
        return ()
    return tuple(ShippedContract(f.name.removesuffix(".toml"), _implementation_of(f), "mathloop", f, True)
                 for f in files)


def _implementation_of(resource: Traversable) -> str:
    try:
        key = tomllib.loads(resource.read_bytes().decode("utf-8"))["target"]["implementation"]
    except (OSError, ValueError, KeyError, TypeError):  # TOMLDecodeError and UnicodeDecodeError are ValueErrors
        return "?"
    return key if isinstance(key, str) else "?"


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
