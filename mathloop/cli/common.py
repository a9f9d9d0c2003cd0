"""What every command needs: opening a contract and a store, failing at the edge with a reason."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console

from mathloop.contract import Contract, ContractError, load_contract
from mathloop.domain import Direction
from mathloop.search.gate import bound_specs, decimal
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import Repository

console = Console()
err_console = Console(stderr=True)

DB_HELP = "Store: a SQLite file path or a SQLAlchemy URL (postgresql+psycopg://...). Default $MATHLOOP_DB or ./mathloop.db."


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` to stderr and exit with `code` (2 = bad input, 1 = check failed)."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
    raise typer.Exit(code)


def open_contract(target: str) -> Contract:
    try:
        return load_contract(target)
    except ContractError as e:
        fail(str(e))


def open_repo(db: str | None, *, create: bool = True) -> Repository:
    try:
        return Repository(make_engine(db, create=create))
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
    """Return the hypotheses every bound of this contract rests on, in one line (titles, or with citations)."""
    hs = contract.hypotheses
    if not hs:
        return "none"
    return "; ".join(f"{h.title} [{h.citation}]" if cite else h.title for h in hs)


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False) + "\n")


