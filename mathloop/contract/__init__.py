"""Contracts: the fixed obligation graph of a target, loaded and validated from TOML."""

from mathloop.contract.load import available_contracts, contracts_dir, load_contract, resolve
from mathloop.contract.model import BoundSpec, Contract, ContractError, Obligation

__all__ = [
    "BoundSpec",
    "Contract",
    "ContractError",
    "Obligation",
    "available_contracts",
    "contracts_dir",
    "load_contract",
    "resolve",
]
