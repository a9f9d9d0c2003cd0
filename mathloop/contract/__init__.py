"""Contracts: the fixed obligation graph of a target, loaded and validated from TOML."""

from mathloop.contract.load import load_contract, load_file
from mathloop.contract.model import BoundSpec, Contract, ContractError, Obligation
from mathloop.contract.rules import Floor, Required

__all__ = ["BoundSpec", "Contract", "ContractError", "Floor", "Obligation", "Required", "load_contract", "load_file"]
