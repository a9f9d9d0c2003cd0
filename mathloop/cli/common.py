"""What every command needs: opening a contract and a store, failing at the edge with a reason."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console

from mathloop.contract import Contract, ContractError, load_contract
from mathloop.domain import Kind
from mathloop.search.gate import bound_specs, decimal
from mathloop.store.engine import StoreError, make_engine
from mathloop.store.repository import CommitRecord, Repository

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
    return ", ".join(f"{k} ≥ {v}" if specs_max(contract, k) else f"{k} ≤ {v}"
                     for k, v in bounds_json(contract, bounds).items()) or "none certified"


def specs_max(contract: Contract, name: str) -> bool:
    spec = bound_specs(contract).get(name)
    return spec is None or spec.direction.value == "maximize"


def hypotheses_line(contract: Contract, *, cite: bool = False) -> str:
    """Return the hypotheses every bound of this contract rests on, in one line (titles, or with citations)."""
    hs = contract.hypotheses
    if not hs:
        return "none"
    return "; ".join(f"{h.title} [{h.citation}]" if cite else h.title for h in hs)


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False) + "\n")


def head_or_none(repo: Repository, contract: Contract) -> CommitRecord | None:
    return repo.head(contract.sha256)


def hypothesis_ids(contract: Contract) -> list[str]:
    return [o.id for o in contract.obligations if o.kind is Kind.HYPOTHESIS]
