"""What every command needs: opening a contract and a store, failing at the edge with a reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.console import Console
from rich.text import Text

from mathloop.contract import Contract, ContractError
from mathloop.contract.model import REST_ON_LABEL
from mathloop.domain import Direction
from mathloop.check.gate import bound_specs, decimal
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import Repository

# Markup is off: every string is shown as written ('mathloop[lean]', heights[3], a citation's [arXiv:...]);
# a style is asked for explicitly (style=, or a rich Text) where one is wanted.
console = Console(markup=False)
err_console = Console(stderr=True, markup=False)

DB_HELP = "Store: a SQLite file path or a SQLAlchemy URL (postgresql+psycopg://...). Default $MATHLOOP_DB or ./mathloop.db."


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` to stderr and exit with `code` (2 = bad input, 1 = check failed).

    The message is printed as written: `'mathloop[ml]'` keeps its brackets (no rich markup).
    """
    err_console.print(Text.assemble(("error:", "bold red"), " ", message), highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def require_extra(extra: str, command: str, *modules: str) -> None:
    """Exit 2 with the install line unless every module of the optional `extra` imports.

    Called before anything is opened or written, so a missing extra leaves no trace and no traceback.
    """
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            fail(f"{command} needs the `{extra}` extra: pip install 'mathloop[{extra}]' (module {module} is missing)")


TARGET_HELP = "Target name (a contract an installed target ships; see `mathloop targets`)."
CONTRACT_HELP = ("A user contract file (TOML), used only when named here: its own lineage, shown with its hash. "
                 "It must keep every obligation the target's soundness needs.")


def contract_option() -> Any:
    """Return the `--contract FILE` option shared by every command that opens a contract."""
    return typer.Option(None, "--contract", help=CONTRACT_HELP, dir_okay=False)


def open_contract(target: Optional[str], contract_file: Optional[Path] = None) -> Contract:
    """Return the shipped contract named `target`, or the user contract `contract_file`; exit 2 on bad input.

    A TARGET that is a path (ends in .toml) is read as a user contract too. With both, TARGET must
    name the user contract's implementation or its file stem.
    """
    from mathloop.search.config import ConfigError, named_contract

    try:
        return named_contract(target, contract_file)
    except (ContractError, ConfigError) as e:
        fail(str(e))


def contract_line(contract: Contract) -> str:
    """Return "contract 1a2b3c4d5e6f (package mathloop)", "(user contract file PATH)" or "(the store's copy)"."""
    where = contract.origin if contract.source != "file" else f"user contract file {contract.path}"
    return f"contract {contract.sha256[:12]} ({where})"


def open_repo(db: str | None, *, create: bool = True, readonly: bool = False) -> Repository:
    """Return the store's repository; readonly=True opens an existing store that nothing can change; exit 2 if none."""
    try:
        return Repository(make_engine(db, create=create and not readonly, readonly=readonly))
    except StoreError as e:
        fail(str(e))


def bounds_json(contract: Contract, bounds: dict) -> dict[str, str]:
    """Return {name: decimal string} (rounded in the safe direction) for JSON output."""
    specs = bound_specs(contract)
    return {k: decimal(v, specs.get(k)) for k, v in sorted(bounds.items())}


def bounds_text(contract: Contract, bounds: dict) -> str:
    """Return "kappa ≥ 0.40…, ..." with the relation each bound's direction certifies."""
    specs = bound_specs(contract)
    return ", ".join(f"{k} {'≤' if k in specs and specs[k].direction is Direction.MINIMIZE else '≥'} {v}"
                     for k, v in bounds_json(contract, bounds).items()) or "none certified"


def hypotheses_line(contract: Contract, *, cite: bool = False) -> str:
    """Return "rests on (taken as given): ..." for this contract (titles, or with citations): the one wording."""
    return f"{REST_ON_LABEL}: {contract.rests_on(cite=cite)}"


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False) + "\n")


